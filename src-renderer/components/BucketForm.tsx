import { useId, useState, type FormEvent } from 'react';
import type { BucketTestResult, IpcError } from '../../src-shared/ipc-contract';
import type { BucketLocation } from '../../src-shared/settings';
import { invoke } from '../api';
import { useCollections } from '../stores/collections';
import { ErrorMessage } from './ErrorMessage';

interface Fields {
  endpoint: string;
  region: string;
  bucket: string;
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
}

const EMPTY: Fields = { endpoint: '', region: 'us-east-1', bucket: '', prefix: '', accessKeyId: '', secretAccessKey: '' };

/** The location as the contract wants it: an empty endpoint is AWS itself, a prefix loses its outer slashes. */
function locationOf(f: Fields): BucketLocation {
  return {
    endpoint: f.endpoint.trim() === '' ? null : f.endpoint.trim(),
    region: f.region.trim() || 'us-east-1',
    bucket: f.bucket.trim(),
    prefix: f.prefix.trim().replace(/^\/+|\/+$/g, ''),
    accessKeyId: f.accessKeyId.trim(),
  };
}

/**
 * "S3-compatible bucket…": where in object storage the dataset goes. The secret access key is
 * typed here once, sent to main, which stores it in the OS keychain; it is never shown again or
 * sent back (the field is emptied once saved).
 */
export function BucketForm({ collectionId, initial, onDone }: { collectionId: number; initial?: BucketLocation; onDone: () => void }) {
  const chooseBucket = useCollections((s) => s.chooseBucket);
  const [fields, setFields] = useState<Fields>(
    initial ? { ...EMPTY, endpoint: initial.endpoint ?? '', region: initial.region, bucket: initial.bucket, prefix: initial.prefix, accessKeyId: initial.accessKeyId } : EMPTY,
  );
  const [test, setTest] = useState<BucketTestResult | null>(null);
  const [error, setError] = useState<IpcError | null>(null);
  const [busy, setBusy] = useState<'testing' | 'saving' | null>(null);
  const id = useId();
  const field = (name: keyof Fields, label: string, hint?: string, type = 'text') => (
    <label className="field" htmlFor={`${id}-${name}`}>
      <span>{label}</span>
      <input
        id={`${id}-${name}`}
        type={type}
        value={fields[name]}
        autoComplete="off"
        spellCheck={false}
        onChange={(e) => setFields({ ...fields, [name]: e.target.value })}
        aria-describedby={hint ? `${id}-${name}-hint` : undefined}
      />
      {hint && (
        <span id={`${id}-${name}-hint`} className="muted small">
          {hint}
        </span>
      )}
    </label>
  );

  const onTest = async () => {
    setBusy('testing');
    setError(null);
    setTest(null);
    const secret = fields.secretAccessKey;
    const result = await invoke('dataset:testBucket', { collectionId, location: locationOf(fields), ...(secret ? { secretAccessKey: secret } : {}) });
    setBusy(null);
    if (result.ok) setTest(result.value);
    else setError(result.error);
  };

  const onSave = async (e: FormEvent) => {
    e.preventDefault();
    setBusy('saving');
    setError(null);
    const failure = await chooseBucket(collectionId, locationOf(fields), fields.secretAccessKey);
    setBusy(null);
    if (failure) {
      setError(failure);
      return;
    }
    setFields({ ...fields, secretAccessKey: '' });
    onDone();
  };

  return (
    <form className="bucket-form" aria-label="S3-compatible bucket" onSubmit={(e) => void onSave(e)}>
      {field('endpoint', 'Endpoint', 'e.g. https://s3.example.org; leave empty for AWS S3. http:// only on this computer (127.0.0.1, localhost).')}
      {field('region', 'Region')}
      {field('bucket', 'Bucket')}
      {field('prefix', 'Prefix', 'The folder in the bucket, e.g. datasets/collection-1. Consents go beside it (prefix.consents/).')}
      {field('accessKeyId', 'Access key ID')}
      {field('secretAccessKey', 'Secret access key', 'Stored in the system keychain, never in the settings; type it again to change it.', 'password')}
      <div className="actions">
        <button type="button" onClick={() => void onTest()} disabled={busy !== null}>
          {busy === 'testing' ? 'Testing…' : 'Test'}
        </button>
        <button type="submit" disabled={busy !== null || fields.secretAccessKey === ''}>
          {busy === 'saving' ? 'Checking…' : 'Use this bucket'}
        </button>
        <button type="button" onClick={onDone} disabled={busy !== null}>
          Cancel
        </button>
      </div>
      {/* tone-ok is the stylesheet's success colour (a bare "ok" class had no style, so a passed Test looked like plain text). */}
      <p role="status" className={test ? (test.ok ? 'tone-ok' : 'error') : undefined} data-testid="bucket-test">
        {test?.message ?? ''}
      </p>
      {error && <ErrorMessage error={error} />}
    </form>
  );
}
