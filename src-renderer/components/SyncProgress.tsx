import { useEffect, useState } from 'react';
import type { SyncPhase } from '../../src-shared/sync-events';
import type { AggregateProgress } from '../stores/sync';
import { formatBytes, formatDuration, formatRate, percent } from '../format';

const PHASES: Record<SyncPhase, string> = {
  checking: 'checking partial downloads',
  listing: 'listing sets',
  downloading: 'downloading',
  retrying: 'retrying',
  writing_manifest: 'writing the manifest',
};

/**
 * Overall progress of a run. The bar follows the engine's `fraction` (sets until every file is
 * known, then bytes; it never goes back); events without it fall back to bytes.
 */
export function SyncProgress({ progress, running }: { progress: AggregateProgress | null; running: boolean }) {
  if (!progress) return <p className="muted">{running ? 'Looking for new sets…' : 'No sync in this session yet.'}</p>;
  const byBytes = progress.bytesTotal > 0;
  const pct = byBytes ? percent(progress.bytesDone, progress.bytesTotal) : percent(progress.filesDone, progress.filesTotal);
  const complete = !running && progress.filesTotal > 0 && progress.filesDone >= progress.filesTotal;
  const shownPct = progress.fraction !== undefined ? percent(progress.fraction, 1) : byBytes || progress.filesTotal > 0 ? pct : complete ? 100 : 0;
  const sets = progress.setsTotal !== undefined && progress.setsTotal > 0 ? ` · sets ${progress.setsDone ?? 0} of ${progress.setsTotal}` : '';
  const retrying = running && progress.phase === 'retrying' && progress.retry;
  const phase = running && progress.phase && !retrying ? ` · ${PHASES[progress.phase]}` : '';
  return (
    <div className="sync-progress">
      <div className="progress-bar" role="progressbar" aria-label="Overall sync progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={shownPct}>
        <span style={{ width: `${shownPct}%` }} />
      </div>
      {/* Polite and atomic: screen readers hear whole updates, at the batch rate, not every digit. */}
      <p className="progress-text" aria-live="polite" aria-atomic="true" data-testid="overall-progress">
        <strong>{shownPct}%</strong>
        {sets} · {formatBytes(progress.bytesDone)} of {formatBytes(progress.bytesTotal)} · files {progress.filesDone} of {progress.filesTotal}
        {phase}
        {retrying && (
          <>
            {' · '}
            <RetryCountdown retry={progress.retry!} />
          </>
        )}
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

/**
 * "retrying: attempt 3 of 6 in 8 s", counting down every second between progress events (they
 * come at most once a second while nothing else moves, and batched). Each event restarts the
 * count from its own `inSeconds`.
 */
function RetryCountdown({ retry }: { retry: NonNullable<AggregateProgress['retry']> }) {
  const [deadline, setDeadline] = useState(() => Date.now() + retry.inSeconds * 1000);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const at = Date.now();
    setDeadline(at + retry.inSeconds * 1000);
    setNow(at);
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [retry]);
  const left = Math.max(0, Math.ceil((deadline - now) / 1000));
  return (
    <span data-testid="retry-countdown">
      {PHASES.retrying}: attempt {retry.attempt} of {retry.of} {left > 0 ? `in ${left} s` : 'starting'}
    </span>
  );
}
