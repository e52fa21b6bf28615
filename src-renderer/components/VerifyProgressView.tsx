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
  const pct = bytesTotal > 0 ? Math.floor((bytesChecked / bytesTotal) * 100) : 100;
  return (
    <div className="verify-progress">
      <div className="progress-bar" role="progressbar" aria-label="Verify progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}>
        <span style={{ width: `${pct}%` }} />
      </div>
      <p className="muted" role="status" data-testid="verify-progress">
        Verifying: {filesChecked} of {filesTotal} files · {formatBytes(bytesChecked)} of {formatBytes(bytesTotal)} · {formatRate(bytesPerSecond)}
      </p>
    </div>
  );
}
