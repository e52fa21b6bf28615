import type { VerifyProgress } from '../../src-shared/ipc-contract';
import { formatBytes, formatRate } from '../format';

/** A running verify: files and bytes checked of the manifest's, and the hashing rate. */
export function VerifyProgressView({ progress }: { progress: VerifyProgress | null }) {
  if (!progress) {
    return (
      <p className="muted" role="status" data-testid="verify-progress">
        Verifying: reading the manifest…
      </p>
    );
  }
  const { filesChecked, filesTotal, bytesChecked, bytesTotal, bytesPerSecond } = progress;
  return (
    <div className="verify-progress">
      <progress max={Math.max(1, bytesTotal)} value={bytesChecked} aria-label="Verify progress" />
      <p className="muted" role="status" data-testid="verify-progress">
        Verifying: {filesChecked} of {filesTotal} files · {formatBytes(bytesChecked)} of {formatBytes(bytesTotal)} · {formatRate(bytesPerSecond)}
      </p>
    </div>
  );
}
