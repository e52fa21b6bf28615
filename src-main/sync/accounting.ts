// Everything a sync counts, in one place (as rclone's fs/accounting): the progress counters the
// progress events show, the statistics of the summary, and the hooks a bandwidth limit and a
// pause plug into. Transfers report every body chunk through `received`, so the rate limiter and
// the pause gate see every byte.
//
// Done counts never fall: a download that must start over (a 200 answer to a resume, a hash
// mismatch) keeps the bytes it was credited, and what it receives again up to that mark is
// counted as re-downloaded instead (ActiveTransfer.credited).
import type { SyncPhase, SyncSummary } from '../../src-shared/sync-events';
import { systemClock, type Clock } from './clock';
import { openGate, type PauseGate } from './task-pool';
import type { StageWork } from './stages/stage';

/**
 * A bandwidth limit. `consumed` is told of every body chunk as it arrives; it returns a promise
 * when the caller is over its budget (a token bucket in debt): the transfer pauses its socket
 * until the promise settles, then reads on. Returning undefined means "go on".
 */
export interface RateLimiter {
  consumed(bytes: number): Promise<void> | undefined;
}

export const noRateLimit: RateLimiter = { consumed: () => undefined };

/** One download in flight, as progress events list it. */
export interface ActiveTransfer {
  fileId: number;
  path: string;
  sizeBytes: number;
  /** Bytes of the file held now (part file plus this attempt's body). */
  bytesDone: number;
  /** The most of this file ever counted in Accounting.bytesDone (never lowered). */
  credited: number;
  /** Bytes received from the network for this file, all attempts (its rate is measured on this). */
  received: number;
  /** True while the held bytes of a part file are hashed before a resume. */
  checking: boolean;
  /** When its first body byte arrived (clock ms): its rate is measured from there, so a file seen once in flight has one. */
  firstByteAt?: number;
}

export function newActiveTransfer(fileId: number, path: string, sizeBytes: number): ActiveTransfer {
  return { fileId, path, sizeBytes, bytesDone: 0, credited: 0, received: 0, checking: false };
}

export type Failure = SyncSummary['failures'][number];

/** Keeps the summary bounded when thousands fail the same way. */
const MAX_FAILURES_LISTED = 1000;

export class Accounting {
  // Progress: what the progress events show.
  bytesDone = 0;
  bytesTotal = 0;
  filesDone = 0;
  filesTotal = 0;
  bytesRedownloaded = 0;
  /** Sizes of the files queued by sets that ended (complete or failed): the rest of bytesTotal belongs to sets in flight. */
  bytesOfEndedSets = 0;
  readonly active = new Set<ActiveTransfer>();
  /** Sets the sync expects to go through: the collection's accepted count, or a repair's sets. */
  setsExpected = 0;
  /** An incremental sync: accepted sets unchanged since the watermark (never walked, already done). */
  setsUnchanged = 0;
  /** Sets fetched again by id after the walk (pending from earlier syncs): work beyond the walk. */
  setsRefetched = 0;
  /** What the run is doing (ProgressEvent.phase, `retrying` aside). */
  phase: SyncPhase = 'checking';
  /** The stages' own work in files (stages/pipeline.ts: files they read themselves), asked when progress is computed, never copied. */
  stageWork: () => StageWork = () => ({ done: 0, total: 0 });
  /** True once every set is listed and planned: the file totals are final (the progress fraction switches to bytes). */
  listed = false;
  /** The walk's back-off: the attempt coming next, the attempts allowed, and when it starts (clock ms). */
  walkRetry: { attempt: number; of: number; until: number } | undefined;

  // Statistics: what the summary reports.
  bytesDownloaded = 0;
  bytesHashed = 0;
  sets = 0;
  /**
   * Sets whose files are still being queued (the transfer pool pushes back when it is full), and
   * the bytes and files queued of them so far: the progress estimate leaves them out of the
   * per-set average, which they would lower while most of their files wait to be queued.
   */
  setsQueuing = 0;
  bytesQueuing = 0;
  filesQueuing = 0;
  setsComplete = 0;
  setsFailed = 0;
  setsSkipped = 0;
  /** Sets moved to DEST.withdrawn/ in this sync (withdraw.ts). */
  withdrawnSets = 0;
  filesDownloaded = 0;
  filesUpToDate = 0;
  filesFailed = 0;
  readonly setsNotServed: number[] = [];
  readonly failures: Failure[] = [];

  constructor(
    private readonly limiter: RateLimiter = noRateLimit,
    readonly gate: PauseGate = openGate,
    private readonly signal: AbortSignal = new AbortController().signal,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Sets finished (complete, failed or skipped) plus those an incremental sync need not walk. */
  get setsDone(): number {
    return this.setsUnchanged + this.setsComplete + this.setsFailed + this.setsSkipped;
  }

  get setsTotal(): number {
    return Math.max(this.setsExpected + this.setsRefetched, this.setsUnchanged + this.sets, this.setsDone);
  }

  get paused(): boolean {
    return this.gate.paused === true;
  }

  /** A file to download was planned. */
  fileQueued(sizeBytes: number): void {
    this.filesTotal++;
    this.bytesTotal += sizeBytes;
  }

  /**
   * A download is over. Verified or failed for good, all of its size counts as done (the bar
   * reaches its end); cancelled (`finished` false), only what it holds.
   */
  transferEnded(active: ActiveTransfer, finished: boolean): void {
    this.active.delete(active);
    if (finished && active.sizeBytes > active.credited) {
      this.bytesDone += active.sizeBytes - active.credited;
      active.credited = active.sizeBytes;
    }
  }

  /** An attempt starts from the `bytes` a part file holds (hashed, not received: no rate). */
  held(active: ActiveTransfer, bytes: number): void {
    active.bytesDone = bytes;
    this.credit(active);
  }

  /** The held bytes were dropped (the server sent the whole file again): done counts stay. */
  restarted(active: ActiveTransfer): void {
    active.bytesDone = 0;
  }

  /**
   * `bytes` of a body arrived (and were hashed on the way). A promise: hold the source until it
   * settles (the sync is paused, or the rate limit is exceeded).
   */
  received(active: ActiveTransfer, bytes: number): Promise<void> | undefined {
    const before = active.bytesDone;
    active.firstByteAt ??= this.clock.now();
    active.bytesDone += bytes;
    active.received += bytes;
    this.bytesRedownloaded += Math.max(0, Math.min(active.bytesDone, active.credited) - before);
    this.credit(active);
    this.bytesDownloaded += bytes;
    this.bytesHashed += bytes;
    const limited = this.limiter.consumed(bytes);
    // The gate is asked again once the limiter lets the chunk go: a pause that came while it
    // waited for tokens holds it too (with many transfers, a second of chunks can be waiting).
    if (limited) return limited.then(() => this.gate.whenOpen(this.signal));
    return this.gate.whenOpen(this.signal);
  }

  /** Before a request for a body: resolves once the sync is not paused (undefined when it is not). */
  whenOpen(): Promise<void> | undefined {
    return this.gate.whenOpen(this.signal);
  }

  private credit(active: ActiveTransfer): void {
    if (active.bytesDone <= active.credited) return;
    this.bytesDone += active.bytesDone - active.credited;
    active.credited = active.bytesDone;
  }

  recordFailure(f: Failure): void {
    if (this.failures.length < MAX_FAILURES_LISTED) this.failures.push(f);
  }

  notServed(setId: number): void {
    if (!this.setsNotServed.includes(setId)) this.setsNotServed.push(setId);
  }

  /** Copies the statistics into the summary. */
  fill(s: SyncSummary): void {
    Object.assign(s, {
      sets: this.sets,
      setsComplete: this.setsComplete,
      setsFailed: this.setsFailed,
      setsNotServed: this.setsNotServed,
      withdrawnSets: this.withdrawnSets,
      filesDownloaded: this.filesDownloaded,
      filesUpToDate: this.filesUpToDate,
      filesFailed: this.filesFailed,
      bytesDownloaded: this.bytesDownloaded,
      bytesHashed: this.bytesHashed,
      failures: this.failures,
    });
  }
}
