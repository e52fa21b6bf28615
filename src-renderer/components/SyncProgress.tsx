import type { AggregateProgress } from '../stores/sync';
import { formatBytes, formatDuration, formatRate, percent } from '../format';

/** Overall progress of a run; the bar is by bytes, since files differ in size. */
export function SyncProgress({ progress, running }: { progress: AggregateProgress | null; running: boolean }) {
  if (!progress) return <p className="muted">{running ? 'Looking for new sets…' : 'No sync in this session yet.'}</p>;
  const byBytes = progress.bytesTotal > 0;
  const pct = byBytes ? percent(progress.bytesDone, progress.bytesTotal) : percent(progress.filesDone, progress.filesTotal);
  const complete = !running && progress.filesTotal > 0 && progress.filesDone >= progress.filesTotal;
  const shownPct = byBytes || progress.filesTotal > 0 ? pct : complete ? 100 : 0;
  return (
    <div className="sync-progress">
      <div className="progress-bar" role="progressbar" aria-label="Overall sync progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={shownPct}>
        <span style={{ width: `${shownPct}%` }} />
      </div>
      {/* Polite and atomic: screen readers hear whole updates, at the batch rate, not every digit. */}
      <p className="progress-text" aria-live="polite" aria-atomic="true" data-testid="overall-progress">
        <strong>{shownPct}%</strong> · {formatBytes(progress.bytesDone)} of {formatBytes(progress.bytesTotal)} · files {progress.filesDone} of {progress.filesTotal}
        {running && (
          <>
            {' '}
            · {formatRate(progress.bytesPerSecond)} · {progress.etaSeconds === null ? 'ETA –' : `about ${formatDuration(progress.etaSeconds)} left`}
          </>
        )}
      </p>
    </div>
  );
}
