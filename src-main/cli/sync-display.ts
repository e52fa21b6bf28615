// Human progress of a sync on stderr: a live redrawn block on a terminal (overall bar with
// bytes, rate and ETA, one line per active file), plain periodic lines otherwise. NDJSON on
// stdout is handled by the caller; this only draws for people.
import type { SyncEvent, SyncSummary } from '../../src-shared/sync-events';
import { bar, formatBytes, formatDuration } from './format';

type ProgressEvent = Extract<SyncEvent, { type: 'progress' }>;

const PLAIN_INTERVAL_MS = 5000;
const MAX_FILE_LINES = 8;

export class SyncDisplay {
  private drawnLines = 0;
  private lastPlain = 0;
  private lastProgress: ProgressEvent | undefined;

  constructor(private readonly out: NodeJS.WriteStream, private readonly live: boolean) {}

  handle(e: SyncEvent): void {
    switch (e.type) {
      case 'start':
        this.line(`Syncing collection ${e.collectionId} into ${e.dest}${e.full ? ' (full walk)' : e.watermark ? ` (changes since ${e.watermark})` : ''}`);
        break;
      case 'collection':
        this.line(`Collection ${e.collectionId} "${e.title}": ${e.acceptedSets} accepted sets`);
        break;
      case 'warning':
        this.line(`warning: ${e.message}`);
        break;
      case 'file':
        if (e.state === 'failed') this.line(`failed: ${e.path}: ${e.reason ?? ''}`);
        else if (e.state === 'retrying' && !this.live) this.line(`retrying ${e.path} (attempt ${e.attempt ?? '?'}): ${e.reason ?? ''}`);
        break;
      case 'set':
        if (e.state === 'failed') this.line(`set ${e.setId} failed: ${e.reason ?? ''}`);
        else if (e.state === 'not_served') this.line(`set ${e.setId} is no longer served: ${e.reason ?? ''}`);
        break;
      case 'progress':
        this.lastProgress = e;
        if (this.live) this.redraw();
        else if (Date.now() - this.lastPlain >= PLAIN_INTERVAL_MS) {
          this.lastPlain = Date.now();
          this.out.write(this.overall(e) + '\n');
        }
        break;
      case 'summary':
        this.clear();
        this.line(summaryText(e.summary));
        break;
    }
  }

  private overall(p: ProgressEvent): string {
    const frac = p.bytesTotal > 0 ? p.bytesDone / p.bytesTotal : 1;
    return `[${bar(frac, 24)}] ${formatBytes(p.bytesDone)}/${formatBytes(p.bytesTotal)}  files ${p.filesDone}/${p.filesTotal}  ${formatBytes(p.bytesPerSecond)}/s  ETA ${formatDuration(p.etaSeconds)}`;
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
    const lines = [this.overall(p)];
    for (const a of p.active.slice(0, MAX_FILE_LINES)) {
      const pct = a.sizeBytes > 0 ? Math.floor((a.bytesDone / a.sizeBytes) * 100) : 100;
      lines.push(`  ${String(pct).padStart(3)}% ${formatBytes(a.bytesDone).padStart(9)}  ${a.path}`);
    }
    if (p.active.length > MAX_FILE_LINES) lines.push(`  … and ${p.active.length - MAX_FILE_LINES} more`);
    this.out.write(lines.map((l) => (l.length > cols - 1 ? l.slice(0, cols - 1) : l)).join('\n') + '\n');
    this.drawnLines = lines.length;
  }
}

export function summaryText(s: SyncSummary): string {
  const head = s.fatal
    ? `Sync stopped: ${s.fatal.message}`
    : s.cancelled
      ? 'Sync cancelled; partial downloads are kept and resume next time.'
      : s.exitCode === 0
        ? 'Sync complete: every file verified.'
        : 'Sync finished with failures (the rest is kept).';
  const body =
    `sets ${s.sets} (complete ${s.setsComplete}, failed ${s.setsFailed}${s.setsNotServed.length ? `, no longer served ${s.setsNotServed.length}` : ''}); ` +
    `files downloaded ${s.filesDownloaded}, up to date ${s.filesUpToDate}, failed ${s.filesFailed}; ` +
    `${formatBytes(s.bytesDownloaded)} in ${(s.durationMs / 1000).toFixed(1)} s, ${s.requests} requests`;
  return `${head}\n${body}`;
}
