import { useState } from 'react';
import type { IpcError } from '../../src-shared/ipc-contract';
import { useCollections } from '../stores/collections';
import { useSettings } from '../stores/settings';
import { BucketForm } from './BucketForm';
import { ErrorMessage } from './ErrorMessage';

export function useDatasetFolder(collectionId: number): string | null {
  const fromList = useCollections((s) => s.list?.find((c) => c.id === collectionId)?.dest);
  const fromSettings = useSettings((s) => s.settings?.collections[String(collectionId)]?.dest);
  return fromList ?? fromSettings ?? null;
}

/** Where this collection's dataset lives, with the two actions on it. */
export function DatasetFolder({ collectionId, disabled = false }: { collectionId: number; disabled?: boolean }) {
  const dest = useDatasetFolder(collectionId);
  const pickFolder = useCollections((s) => s.pickFolder);
  const showInFolder = useCollections((s) => s.showInFolder);
  const loadSettings = useSettings((s) => s.load);
  const [error, setError] = useState<{ error: IpcError; picking: boolean } | null>(null);
  const [bucketOpen, setBucketOpen] = useState(false);
  const bucket = useSettings((s) => s.settings?.collections[String(collectionId)]?.bucket);

  const choose = async () => {
    const failed = await pickFolder(collectionId);
    setError(failed && { error: failed, picking: true });
    void loadSettings();
  };

  return (
    <div className="dataset-folder">
      <span className="label">Dataset location</span>
      <span className={dest ? 'mono path' : 'muted'} title={dest ?? undefined} data-testid="dataset-folder">
        {dest ?? 'No folder chosen yet'}
      </span>
      <span className="actions">
        <button type="button" onClick={() => void choose()} disabled={disabled}>
          Folder…
        </button>
        <button type="button" onClick={() => setBucketOpen(true)} disabled={disabled || bucketOpen} aria-expanded={bucketOpen}>
          S3-compatible bucket…
        </button>
        <button type="button" onClick={() => void showInFolder(collectionId).then((failed) => setError(failed && { error: failed, picking: false }))} disabled={!dest || bucket !== undefined}>
          Show in folder
        </button>
      </span>
      {bucketOpen && (
        <BucketForm
          collectionId={collectionId}
          {...(bucket ? { initial: bucket } : {})}
          onDone={() => {
            setBucketOpen(false);
            void loadSettings();
          }}
        />
      )}
      {error && <ErrorMessage error={error.error} {...(error.picking ? { summary: dest ? 'The folder was not changed.' : 'No folder was chosen.' } : {})} />}
    </div>
  );
}
