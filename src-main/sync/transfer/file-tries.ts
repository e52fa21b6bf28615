// The rules every attempt at one file answers to, in one object per file (FileTries) so that every
// path of an attempt (transferLoop's rounds, and the lean first attempt of a small file, issue 21)
// answers to the same ones: the attempt count and its backoff, the byte budget, the count of bad
// bodies, the hash of the attempt under way with the stages' taps, what a failed request means, and
// which receiver takes an answer's body (PartSink or WholeBodySink), or none (a 416, a Content-Range
// that does not append to what is held: parseContentRange, rangeAppends, which judgeReply asks too).
import type { BodyFlow, FileResponseHead } from '../../api/delivery-client';
import { isApiError, type ApiError } from '../../api/errors';
import type { Upload } from '../destination/destination';
import type { ActiveTransfer } from '../accounting';
import { failureCode } from '../failure-code';
import { backoff, isRetryable } from '../retry';
import type { FailureCode } from '../../../src-shared/sync-events';
import { createSha256Stream, type Sha256Stream } from '../sha256-stream';
import type { StageTaps } from '../stages/pipeline';
import { FileFailedError, type TransferContext, type TransferJob, type Transferred } from './contract';
import { TooSlowError, WHOLE_BODY_MAX_BYTES, WholeBodySink, type BodyReceiver } from './body-sinks';
import { PartSink } from './part-sink';
import { TappedHash } from './tapped-hash';

const MAX_HASH_MISMATCHES = 3;
/**
 * Bytes one file may take from the network in one sync: the file once plus three times its size
 * re-fetched. Each attempt that makes progress resets the attempt count (a flaky link may need
 * many resumes), so without this a server that keeps throwing received bytes away (a size one
 * larger than the body: "ended early", 416, start over) would loop for ever.
 */
const BYTE_BUDGET_FACTOR = 4;

/** Parses "bytes a-b/total"; null when absent or malformed. */
export function parseContentRange(v: string | string[] | undefined): { start: number; end: number; total: number } | null {
  const s = Array.isArray(v) ? v[0] : v;
  const m = s === undefined ? null : /^\s*bytes\s+(\d+)-(\d+)\/(\d+)\s*$/i.exec(s);
  if (!m) return null;
  return { start: Number(m[1]), end: Number(m[2]), total: Number(m[3]) };
}

/** Whether a 206 answer's Content-Range appends to what is held: it starts exactly at `held` and its total is the file's size. */
export function rangeAppends(headers: FileResponseHead['headers'], held: number, sizeBytes: number): boolean {
  const cr = parseContentRange(headers['content-range']);
  return cr !== null && cr.start === held && cr.total === sizeBytes;
}

/**
 * One file's attempts in this sync: the rules every attempt answers to (the attempt count and
 * its backoff, the byte budget, the count of bad bodies) and the hash of the attempt under way.
 * One object per file with its rules as methods, in one place, where any path of an attempt
 * (a lean first attempt for small files among them, issue 21) can reach them.
 */
export class FileTries {
  private attempt = 0;
  private mismatches = 0;
  /** Bytes taken from the network for this file in this sync, all attempts together. */
  readonly spent = { bytes: 0 };
  readonly label: string;
  /** The hash of the attempt under way: its held bytes, then the body's (newHash). */
  hash: Sha256Stream | undefined;
  /** The hash's digest once read (a hash gives its digest once). */
  private digested: string | undefined;
  /** The stages' taps of the attempt under way: they see every byte the hash sees. */
  taps: StageTaps | undefined;

  constructor(
    readonly job: TransferJob,
    readonly ctx: TransferContext,
    readonly active: ActiveTransfer,
  ) {
    this.label = `file ${job.relPath}`;
  }

  /**
   * The next attempt, after its backoff; throws FileFailedError once the attempts or the byte
   * budget are spent. `err` names the failure when there is one; the answers that did not fit
   * (ended early, a 416, a Content-Range for other bytes) are the connection's.
   */
  async retryLater(reason: string, err: unknown): Promise<void> {
    const { job, ctx } = this;
    this.attempt++;
    const code = err === undefined ? 'connection' : failureCode(err);
    if (this.attempt >= ctx.policy.maxAttempts) throw new FileFailedError(`${reason} (gave up after ${this.attempt} attempts)`, code);
    if (this.spent.bytes > BYTE_BUDGET_FACTOR * job.sizeBytes) {
      throw new FileFailedError(`${reason} (gave up: ${this.spent.bytes} bytes received for a file of ${job.sizeBytes}, more than ${BYTE_BUDGET_FACTOR}x its size)`, 'unstable');
    }
    job.onRetry(this.attempt, reason, this.active.bytesDone, code);
    await backoff(ctx.policy, this.attempt, err, ctx.signal);
  }

  /** Counts a bad body (hash mismatch, oversize) and empties the upload; throws after too many, the upload discarded (no empty part file is left behind). */
  async mismatch(upload: Upload, reason: string, code: FailureCode): Promise<void> {
    try {
      await upload.restart();
      this.mismatches++;
      if (this.mismatches >= MAX_HASH_MISMATCHES) throw new FileFailedError(`${reason} (${this.mismatches} times; the file was discarded)`, code);
    } catch (e) {
      await upload.discard().catch(() => undefined);
      throw e;
    }
  }

  /** Progress was made: a later failure is a new one, not a repeat. */
  resetAttempts(): void {
    this.attempt = 0;
  }

  /** A new hash for an attempt, or for a body that starts over at byte 0. */
  newHash(): Sha256Stream {
    this.hash?.discard();
    this.digested = undefined;
    const hash = createSha256Stream(this.job.sizeBytes, this.ctx.hashWorkers);
    // The stages start over with the hash: what they saw of dropped bytes is dropped with them.
    this.taps = this.job.taps?.();
    this.hash = this.taps ? new TappedHash(hash, this.taps) : hash;
    return this.hash;
  }

  /** The committed file: its stamp, and the taps that saw the bytes whose hash matched. */
  transferred(stamp: string): Transferred {
    return this.taps ? { stamp, taps: this.taps } : { stamp };
  }

  /** The digest when known without a promise (a small file's), else undefined. */
  digestNow(): string | undefined {
    return (this.digested ??= this.hash!.digestNow());
  }

  async digest(): Promise<string> {
    return (this.digested ??= this.hash!.digestNow() ?? (await this.hash!.digest()));
  }

  /**
   * A request that failed (no answer, an error status, a body cut or aborted): a 404 fails the
   * file for good; a retryable failure waits for the next attempt ('retry'); anything else is thrown.
   * `before`: the bytes done when the request went out (progress since makes it a new failure).
   */
  async requestFailed(e: unknown, before: number): Promise<'retry'> {
    const { active, label } = this;
    if (isApiError(e) && e.kind === 'not_found') throw new FileFailedError(`${label}: not served (404); its set may have left accepted`, 'not_served');
    if (isApiError(e) && e.kind === 'network' && active.bytesDone > before && !(e instanceof TooSlowError)) {
      this.resetAttempts(); // progress was made: this is a new failure, not a repeat (a trickle is no progress)
    }
    if (!isRetryable(e)) throw e;
    await this.retryLater((e as ApiError).message, e);
    return 'retry';
  }

  /**
   * The receiver of the body of an answer to a request for the bytes from `start` (what is held),
   * or null to drop it: a 416, or a 206 that does not append to what is held. A 200 to a range
   * request sends the whole file: the held bytes are dropped (and the hash begun again) before
   * the first byte of the new body is written at position 0.
   */
  receiverFor(upload: Upload, start: number, head: FileResponseHead, flow: BodyFlow): BodyReceiver | null {
    const { job, ctx, active } = this;
    const status = head.status;
    if (status === 416) return null;
    let before: Promise<void> | undefined;
    if (status === 206) {
      if (!rangeAppends(head.headers, start, job.sizeBytes)) return null;
    } else if (start > 0) {
      before = upload.restart();
      this.newHash();
      ctx.accounting.restarted(active); // done counts stay; the bytes received again are counted as re-downloaded
    }
    const position = status === 206 ? start : 0;
    const windowMs = ctx.stallMs ?? 30_000;
    if (position === 0 && job.sizeBytes <= WHOLE_BODY_MAX_BYTES) {
      return new WholeBodySink(windowMs, upload, job.sizeBytes, this.hash!, active, ctx, flow, job.relPath, before, this.spent);
    }
    const part = new PartSink(position, upload, job.sizeBytes - position, this.hash!, active, ctx, flow, job.relPath, before, this.spent);
    part.startWatchdog(windowMs);
    return part;
  }
}
