// The recruiter key, connected separately from the delivery key (its own address and secret).
import { useState, type FormEvent } from 'react';
import { useConnection } from '../stores/connection';
import { GuardedButton } from './GuardedButton';
import { useFocusOnAppear } from './focus';
import { describeRecruiterConnectError, useRecruiterConnection } from './stores/connection';

/** The recruiter API usually sits beside the delivery API on the same host. */
function suggestedBaseUrl(deliveryBaseUrl: string | undefined): string {
  if (!deliveryBaseUrl) return 'https://';
  return deliveryBaseUrl.replace(/\/api\/v1\/partner\/?$/, '/api/v1/recruiter');
}

export function RecruiterConnectCard() {
  const deliveryBaseUrl = useConnection((s) => s.info?.baseUrl);
  const [baseUrl, setBaseUrl] = useState(() => suggestedBaseUrl(deliveryBaseUrl));
  const [apiKey, setApiKey] = useState('');
  const { busy, error, connect } = useRecruiterConnection();
  const headingRef = useFocusOnAppear<HTMLHeadingElement>();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await connect(baseUrl, apiKey);
    // The key leaves the renderer's memory as soon as main holds it (or refused it).
    setApiKey('');
  };

  return (
    <form className="card rc-connect" onSubmit={submit} aria-labelledby="rc-connect-title">
      <h2 id="rc-connect-title" tabIndex={-1} ref={headingRef}>Connect the recruiter API</h2>
      <p className="muted">
        Recruiting uses its own organization key, separate from the delivery key. The operator sends it once; paste it here. It is kept in your system&apos;s secret store.
      </p>
      <label className="field">
        <span>Recruiter API address</span>
        <input type="url" name="recruiterBaseUrl" required value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="https://example.com/api/v1/recruiter" spellCheck={false} />
      </label>
      <label className="field">
        <span>Recruiter API key</span>
        <input type="password" name="recruiterApiKey" required value={apiKey} onChange={(e) => setApiKey(e.target.value)} autoComplete="off" spellCheck={false} />
      </label>
      {error && (
        <div className="error" role="alert" data-error-kind={error.kind}>
          <strong>{describeRecruiterConnectError(error)}</strong>
          <div className="error-detail">{error.message}</div>
        </div>
      )}
      <div className="actions">
        <GuardedButton type="submit" className="primary" unavailable={busy}>
          {busy ? 'Connecting…' : 'Connect recruiter key'}
        </GuardedButton>
      </div>
    </form>
  );
}
