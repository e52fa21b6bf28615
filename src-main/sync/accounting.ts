// Everything a sync counts, in one place (as rclone's fs/accounting): the progress counters the
// progress events show, the statistics of the summary, and the hook a bandwidth limit plugs into.
// Transfers report every body chunk through `received`, so the rate limiter sees every byte.
import type { SyncSummary } from '../../src-shared/sync-events';

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
  bytesDone: number;
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
  readonly active = new Set<ActiveTransfer>();

  // Statistics: what the summary reports.
  bytesDownloaded = 0;
  bytesHashed = 0;
  sets = 0;
  setsComplete = 0;
  setsFailed = 0;
  filesDownloaded = 0;
  filesUpToDate = 0;
  filesFailed = 0;
  readonly setsNotServed: number[] = [];
  readonly failures: Failure[] = [];

  constructor(private readonly limiter: RateLimiter = noRateLimit) {}

  /**
   * `bytes` of a body arrived (and were hashed on the way). A promise: hold the source until it
   * settles (the rate limit is exceeded).
   */
  received(bytes: number): Promise<void> | undefined {
    this.bytesDone += bytes;
    this.bytesDownloaded += bytes;
    this.bytesHashed += bytes;
    return this.limiter.consumed(bytes);
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
      filesDownloaded: this.filesDownloaded,
      filesUpToDate: this.filesUpToDate,
      filesFailed: this.filesFailed,
      bytesDownloaded: this.bytesDownloaded,
      bytesHashed: this.bytesHashed,
      failures: this.failures,
    });
  }
}
