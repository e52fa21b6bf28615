import type { IpcError } from '../../src-shared/ipc-contract';

/** A failure as a sentence for people plus the specific detail main reported. */
export function ErrorMessage({ error, summary }: { error: IpcError; summary?: string }) {
  return (
    <div className="error" role="alert">
      {summary && <strong>{summary} </strong>}
      <span>{error.message}</span>
      {error.fieldErrors && (
        <ul>
          {Object.entries(error.fieldErrors).map(([field, messages]) => (
            <li key={field}>
              {field}: {messages.join(', ')}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
