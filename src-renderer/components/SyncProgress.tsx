import { Fragment, useEffect, useState } from 'react';
import { mediaLeftWords } from '../../src-shared/media-words';
import type { SyncPhase } from '../../src-shared/sync-events';
import type { AggregateProgress } from '../stores/sync-view';
import { formatBytes, formatDuration, formatRate, percent } from '../format';

const PHASES: Record<SyncPhase, string> = {
  checking: 'checking partial downloads',
  listing: 'listing sets',
  downloading: 'downloading',
  retrying: 'retrying',
  checking_media: 'checking the media',
  writing_manifest: 'writing the manifest',
};

/** "12.0 MB of 64.0 MB", "of about 64.0 MB" while sets are listed, the bytes alone before any set is. */
function ofTotal(done: string, total: string | null, estimated: boolean): string {
  if (total === null) return done;
  return `${done} of ${estimated ? 'about ' : ''}${total}`;
}

/** What the sync is doing, every part of it ("listing sets and downloading"); the walk's back-off counts down in place. */
function PhaseWords({ progress }: { progress: AggregateProgress }) {
  const phases = progress.phases?.length ? progress.phases : progress.phase ? [progress.phase] : [];
  if (phases.length === 0) return null;
  return (
    <>
      {phases.map((p, i) => (
        <Fragment key={p}>
          {i === 0 ? ' · ' : ' and '}
          {p === 'retrying' && progress.retry ? <RetryCountdown retry={progress.retry} /> : PHASES[p]}
          {p === 'checking_media' && progress.mediaLeft ? ` (${mediaLeftWords(progress.mediaLeft)})` : null}
        </Fragment>
      ))}
    </>
  );
}

/**
 * Overall progress of a run. The bar follows the engine's `fraction` (bytes of the best known
 * total; it never goes back); events without it fall back to bytes. While sets are listed the
 * totals are the engine's estimates, said with "about"; paused says so instead of a rate.
 */
export function SyncProgress({ progress, running }: { progress: AggregateProgress | null; running: boolean }) {
  if (!progress) return <p className="muted">{running ? 'Looking for new sets…' : 'No sync in this session yet.'}</p>;
  const byBytes = progress.bytesTotal > 0;
  const pct = byBytes ? percent(progress.bytesDone, progress.bytesTotal) : percent(progress.filesDone, progress.filesTotal);
  const complete = !running && progress.filesTotal > 0 && progress.filesDone >= progress.filesTotal;
  const shownPct = progress.fraction !== undefined ? percent(progress.fraction, 1) : byBytes || progress.filesTotal > 0 ? pct : complete ? 100 : 0;
  const sets = progress.setsTotal !== undefined && progress.setsTotal > 0 ? ` · sets ${progress.setsDone ?? 0} of ${progress.setsTotal}` : '';
  // Estimates only while the sync runs and lists sets; older events carry the listed totals only.
  const estimated = running && progress.estimated === true;
  const bytesTotal = estimated ? progress.bytesTotalEstimate : progress.bytesTotal;
  const filesTotal = estimated ? progress.filesTotalEstimate : progress.filesTotal;
  const bytes = ofTotal(formatBytes(progress.bytesDone), bytesTotal === null || bytesTotal === undefined ? null : formatBytes(Math.max(bytesTotal, progress.bytesTotal)), estimated);
  const files = ofTotal(String(progress.filesDone), filesTotal === null || filesTotal === undefined ? null : String(Math.max(filesTotal, progress.filesTotal)), estimated);
  const paused = running && progress.paused === true;
  return (
    <div className="sync-progress">
      <div className="progress-bar" role="progressbar" aria-label="Overall sync progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={shownPct}>
        <span style={{ width: `${shownPct}%` }} />
      </div>
      {/* Polite and atomic: screen readers hear whole updates, at the batch rate, not every digit. */}
      <p className="progress-text" aria-live="polite" aria-atomic="true" data-testid="overall-progress" data-estimated={estimated ? 'true' : undefined}>
        <strong>{shownPct}%</strong>
        {sets} · {bytes} · files {files}
        {estimated && bytesTotal === null && ' (totals known once the first sets are listed)'}
        {running && !paused && <PhaseWords progress={progress} />}
        {paused && ' · paused'}
        {running && !paused && (
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
