// Human progress of a sync on stderr: a live redrawn block on a terminal (overall bar with
// bytes, rate and ETA, one line per active file), plain periodic lines otherwise. NDJSON on
// stdout is handled by the caller; this only draws for people.
import type { ProgressEvent, SyncEvent, SyncPhase, SyncSummary } from '../../src-shared/sync-events';
import { consentMissingWords } from '../../src-shared/consent-words';
import { mediaCheckWords, mediaLeftWords } from '../../src-shared/media-words';
import { bar, formatBytes, formatDuration, formatRate } from './format';

const PLAIN_INTERVAL_MS = 5000;
const MAX_FILE_LINES = 8;

export class SyncDisplay {
  private drawnLines = 0;
  private lastPlain = 0;
  private lastProgress: ProgressEvent | undefined;
  /** Warnings that come before the "Syncing collection…" header (the first requests retry while the folder opens): printed after it. */
  private early: string[] | undefined = [];
  /** After the summary nothing more is drawn (a late progress event would put a bar under it). */
  private done = false;

  constructor(private readonly out: NodeJS.WriteStream, private readonly live: boolean) {}

  handle(e: SyncEvent): void {
    if (this.done) return;
    switch (e.type) {
      case 'start':
        this.line(`Syncing collection ${e.collectionId} into ${e.dest}${e.full ? ' (full walk)' : e.watermark ? ` (changes since ${e.watermark})` : ''}`);
        if (e.consentsDir) this.line(`Consent records go to ${e.consentsDir}`);
        this.flushEarly();
        break;
      case 'collection':
        this.line(`Collection ${e.collectionId} "${e.title}": ${e.acceptedSets} accepted sets`);
        break;
      case 'warning':
        if (this.early) this.early.push(`warning: ${e.message}`);
        else this.line(`warning: ${e.message}`);
        break;
      case 'file':
        if (e.state === 'failed') this.line(`failed: ${e.path}: ${e.reason ?? ''}`);
        else if (e.state === 'queued' && e.reason) this.line(`${e.path}: ${e.reason}, fetching it again`);
        else if (e.state === 'retrying' && !this.live) this.line(`retrying ${e.path} (attempt ${e.attempt ?? '?'}): ${e.reason ?? ''}`);
        break;
      case 'media':
        // Said when the file is checked; the summary's line counts every file with a problem.
        if (e.probed && e.problems.length > 0 && e.rules !== 'unprobed') this.line(`media check: ${e.path}: ${e.problems.join('; ')}`);
        break;
      case 'set':
        if (e.state === 'failed') this.line(`set ${e.setId} failed: ${e.reason ?? ''}`);
        else if (e.state === 'not_served') this.line(`set ${e.setId} is no longer served: ${e.reason ?? ''}`);
        else if (e.state === 'withdrawn') this.line(`set ${e.setId} left the dataset: ${e.reason ?? ''}`);
        break;
      case 'progress':
        this.lastProgress = e;
        if (this.live) this.redraw();
        else if (Date.now() - this.lastPlain >= PLAIN_INTERVAL_MS) {
          this.lastPlain = Date.now();
          this.out.write(progressLine(e) + '\n');
        }
        break;
      case 'summary':
        // A sync that stopped before its header (service unreachable) still shows why it retried.
        this.flushEarly();
        this.clear();
        this.done = true;
        this.lastProgress = undefined;
        this.out.write(summaryText(e.summary) + '\n');
        break;
    }
  }

  private flushEarly(): void {
    const early = this.early ?? [];
    this.early = undefined;
    for (const text of early) this.line(text);
  }

  private clear(): void {
    if (!this.live || this.drawnLines === 0) return;
    this.out.write(`\x1b[${this.drawnLines}A\x1b[J`);
    this.drawnLines = 0;
  }

  /** Prints a message above the live block, then draws the block again. */
  private line(text: string): void {
    this.clear();
    this.out.write(text + '\n');
    if (this.live && this.lastProgress) this.redraw();
  }

  private redraw(): void {
    const p = this.lastProgress;
    if (!p) return;
    this.clear();
    const cols = Math.max(40, this.out.columns ?? 100);
    const lines = [progressLine(p)];
    for (const a of p.active.slice(0, MAX_FILE_LINES)) {
      const pct = a.sizeBytes > 0 ? Math.floor((a.bytesDone / a.sizeBytes) * 100) : 100;
      const rate = p.paused ? 'paused' : formatRate(a.bytesPerSecond);
      lines.push(`  ${String(pct).padStart(3)}% ${formatBytes(a.bytesDone).padStart(9)} ${rate.padStart(11)}  ${a.path}`);
    }
    if (p.active.length > MAX_FILE_LINES) lines.push(`  … and ${p.active.length - MAX_FILE_LINES} more`);
    this.out.write(lines.map((l) => (l.length > cols - 1 ? l.slice(0, cols - 1) : l)).join('\n') + '\n');
    this.drawnLines = lines.length;
  }
}

const PHASE_WORDS: Record<SyncPhase, string> = {
  listing: 'listing sets',
  checking: 'checking partial downloads',
  downloading: 'downloading',
  retrying: 'retrying',
  checking_media: 'checking the media',
  writing_manifest: 'writing the manifest',
};

/** What the sync is doing, in words: everything at once ("listing sets and downloading"), the retry countdown included. */
export function phaseText(p: ProgressEvent): string {
  if (p.paused) return 'paused';
  return (p.phases ?? [p.phase])
    .map((phase) =>
      // The set list waits to be fetched again; the same words as the window's progress line.
      phase === 'retrying' && p.retry
        ? `retrying: attempt ${p.retry.attempt} of ${p.retry.of} in ${p.retry.inSeconds} s`
        : phase === 'checking_media' && p.mediaLeft
          ? `${PHASE_WORDS[phase]} (${mediaLeftWords(p.mediaLeft)})`
          : PHASE_WORDS[phase],
    )
    .join(' and ');
}

/** "12.0 MB/64.0 MB"; "12.0 MB/~64.0 MB" while the total is an estimate, "12.0 MB/?" while nothing is listed yet. */
function ofTotal(done: string, exact: string, estimate: string | null, estimated: boolean | undefined): string {
  if (!estimated) return `${done}/${exact}`;
  return estimate === null ? `${done}/?` : `${done}/~${estimate}`;
}

/**
 * The one-line overall progress: sets n/N, the percentage (the engine's fraction), bytes and
 * files of the best known totals (`~` an estimate while sets are listed), rate, ETA and the phase.
 */
export function progressLine(p: ProgressEvent): string {
  const pct = Math.floor(p.fraction * 100);
  const bytes = ofTotal(formatBytes(p.bytesDone), formatBytes(p.bytesTotal), p.bytesTotalEstimate == null ? null : formatBytes(p.bytesTotalEstimate), p.estimated);
  const files = ofTotal(String(p.filesDone), String(p.filesTotal), p.filesTotalEstimate == null ? null : String(p.filesTotalEstimate), p.estimated);
  const speed = p.paused ? '' : `${formatRate(p.bytesPerSecond)}  ETA ${formatDuration(p.etaSeconds)}  `;
  return `[${bar(p.fraction, 24)}] ${String(pct).padStart(3)}%  sets ${p.setsDone}/${p.setsTotal}  ${bytes}  files ${files}  ${speed}${phaseText(p)}`;
}

/** Nothing was downloaded, failed, withdrawn or found damaged: the dataset was already current. */
export function isNoOp(s: SyncSummary): boolean {
  const damaged = s.diskCheck ? s.diskCheck.missing + s.diskCheck.changed : 0;
  return s.exitCode === 0 && !s.fatal && !s.cancelled && s.filesDownloaded === 0 && s.filesFailed === 0 && s.setsFailed === 0 && s.setsNotServed.length === 0 && !s.withdrawnSets && damaged === 0;
}

export function summaryText(s: SyncSummary): string {
  const took = `${(s.durationMs / 1000).toFixed(1)} s, ${s.requests} requests`;
  // Files complete is not everything in order: sets lacking a consent are said on every outcome that wrote the dataset files.
  const consent = consentMissingWords(s.consentMissingSets);
  const consentLine = consent ? `\n${consent} (participants.csv: consent "missing").` : '';
  if (isNoOp(s)) {
    // The counts of a no-op (the sets of the overlap window looked at again) read as work done: say it plainly.
    const onDisk = s.diskCheck ? `${s.diskCheck.files} files on disk checked (size and time; nothing hashed)` : `${s.filesUpToDate} files checked`;
    return `Up to date: nothing new since the last sync, nothing downloaded.${consentLine}\n${onDisk}; ${took}${mediaLine(s)}`;
  }
  const head = s.fatal
    ? `Sync stopped: ${s.fatal.message}`
    : s.cancelled
      ? 'Sync cancelled; partial downloads are kept and resume next time.'
      : s.exitCode === 0
        ? consent
          ? `Sync complete: every file verified, but ${consent} (participants.csv: consent "missing").`
          : 'Sync complete: every file verified.'
        : `Sync finished with failures (the rest is kept).${consentLine}`;
  const body =
    `sets ${s.sets} (complete ${s.setsComplete}, failed ${s.setsFailed}${s.setsNotServed.length ? `, no longer served ${s.setsNotServed.length}` : ''}${s.withdrawnSets ? `, withdrawn ${s.withdrawnSets}` : ''}); ` +
    `files downloaded ${s.filesDownloaded}, up to date ${s.filesUpToDate}, failed ${s.filesFailed}; ` +
    `${formatBytes(s.bytesDownloaded)} in ${took}` +
    (s.diskCheck && s.diskCheck.missing + s.diskCheck.changed > 0 ? `; found on disk: ${s.diskCheck.missing} missing, ${s.diskCheck.changed} changed` : '');
  return `${head}\n${body}${mediaLine(s)}`;
}

/** The media check's line, only when some file of the dataset is not `ok` in media.csv. */
function mediaLine(s: SyncSummary): string {
  const words = mediaCheckWords(s);
  return words ? `\n${words}` : '';
}
