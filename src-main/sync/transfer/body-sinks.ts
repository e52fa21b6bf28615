// The receivers of a response body: what both share (CountedBody: what each does first with a
// chunk, count it, check the size, hash it; and the stall rule, MIN_BYTES_PER_SECOND over a window),
// the BodyReceiver contract streamToPart (attempts.ts) settles, and WholeBodySink, which receives a
// small body that starts at byte 0 whole. The large-body receiver, PartSink, is in part-sink.ts.
// Receivers are the client's streamFile sink (no Readable in between): onData does its work
// synchronously and answers whether the socket may keep reading, so a chunk costs no await, and a
// promise only when the rate limit or a paused sync holds the socket.
import type { BodyFlow, FileBodySink } from '../../api/delivery-client';
import { ApiError } from '../../api/errors';
// One rule for file bodies and JSON answers: slower than this over a whole stall window is stalled.
import { MIN_BYTES_PER_SECOND } from '../../api/json-body';
import { isFatalFsError, localFsError } from '../local-errors';
import type { Upload } from '../destination/destination';
import type { ActiveTransfer } from '../accounting';
import type { Sha256Stream } from '../sha256-stream';
import type { TransferContext } from './contract';

/** A body slower than MIN_BYTES_PER_SECOND over the stall window: retried like a stall, but never counted as progress. */
export class TooSlowError extends ApiError {
  constructor(message: string) {
    super('network', message, { networkCause: 'stalled' });
    this.name = 'TooSlowError';
  }
}

export type StreamOutcome = { kind: 'complete' } | { kind: 'short'; bytes: number } | { kind: 'oversize' };

/** What streamToPart needs of a body's receiver: the chunks (FileBodySink), then the outcome once every byte is written. */
export interface BodyReceiver extends FileBodySink {
  settle(): Promise<StreamOutcome>;
}

/** What both receivers of a body (PartSink, WholeBodySink) know, and what they do first with each chunk. */
export abstract class CountedBody {
  protected received = 0;
  protected oversize = false;

  constructor(
    protected readonly upload: Upload,
    /** Bytes this body should bring. */
    protected readonly remaining: number,
    protected readonly hash: Sha256Stream,
    protected readonly active: ActiveTransfer,
    protected readonly ctx: TransferContext,
    protected readonly flow: BodyFlow,
    protected readonly relPath: string,
    /** Settles before the first write (the upload's restart after a 200 answer to a resume). */
    protected before: Promise<void> | undefined,
    /** Bytes taken from the network for this file in this sync, all attempts together. */
    protected readonly spent: { bytes: number },
  ) {}

  /** Counts the chunk and hashes it; false when it takes the body past its size (the body is then aborted and the chunk dropped). */
  protected counted(chunk: Buffer): boolean {
    this.received += chunk.length;
    this.spent.bytes += chunk.length;
    if (this.received > this.remaining) {
      this.oversize = true;
      this.flow.abort(new Error('oversize'));
      return false;
    }
    this.hash.update(chunk);
    return true;
  }

  /** The stall rule for a window that brought `bytes` in `elapsedMs`: the error to abort the body with when it was under MIN_BYTES_PER_SECOND, else undefined. */
  protected stallError(bytes: number, elapsedMs: number): TooSlowError | undefined {
    if (bytes >= (MIN_BYTES_PER_SECOND * elapsedMs) / 1000) return undefined;
    return new TooSlowError(`GET ${this.relPath}: transfer stalled (${bytes} bytes in ${(elapsedMs / 1000).toFixed(1)} s, under 1 KiB/s)`);
  }
}

/**
 * Bodies up to this size that start at byte 0 are received whole (WholeBodySink): most files of a
 * collection of short clips. The size up to which a folder holds a download in memory anyway
 * (memory-upload.ts).
 */
export const WHOLE_BODY_MAX_BYTES = 256 * 1024;

/**
 * Receives a small body that starts at byte 0: chunks are hashed and kept as they arrive and go to
 * the upload in one write at the end, whatever the outcome (a body cut short is resumed from them,
 * as from a part file). PartSink's machinery for large bodies is left out (issue 21: the per-file
 * steps of a first sync of small files): no write coalescing, no pause while the disk lags, and no
 * watchdog timer per file. The stall rule is the same, judged as each chunk arrives: fewer than
 * MIN_BYTES_PER_SECOND over a whole window aborts the body as too slow; a body that goes silent
 * is ended by the client's body timeout.
 */
export class WholeBodySink extends CountedBody implements BodyReceiver {
  private readonly chunks: Buffer[] = [];
  private windowStart = Date.now();
  private windowBytes = 0;
  /** Set while the rate limiter (or a pause) holds the socket: such a window is not judged. */
  private heldInWindow = false;

  constructor(
    /** The stall window (TransferContext.stallMs). */
    private readonly windowMs: number,
    ...body: ConstructorParameters<typeof CountedBody>
  ) {
    super(...body);
  }

  onData(chunk: Buffer): boolean {
    if (this.oversize || !this.counted(chunk)) return true;
    this.chunks.push(chunk);
    if (this.tooSlow(chunk.length)) return true;
    const wait = this.ctx.accounting.received(this.active, chunk.length);
    if (wait === undefined) return true;
    this.heldInWindow = true;
    void wait.catch(() => undefined).then(() => this.flow.resume());
    return false;
  }

  /** Judges the window that ended with this chunk; true when the body was aborted as too slow. */
  private tooSlow(n: number): boolean {
    this.windowBytes += n;
    const now = Date.now();
    const elapsed = now - this.windowStart;
    if (elapsed < this.windowMs) return false;
    const stalled = this.heldInWindow ? undefined : this.stallError(this.windowBytes, elapsed);
    this.windowStart = now;
    this.windowBytes = 0;
    this.heldInWindow = false;
    if (!stalled) return false;
    this.flow.abort(stalled);
    return true;
  }

  async settle(): Promise<StreamOutcome> {
    if (this.oversize) return { kind: 'oversize' };
    if (this.before !== undefined) await this.before;
    if (this.received > 0) {
      try {
        await this.upload.write(this.chunks, 0);
      } catch (e) {
        throw isFatalFsError(e) ? localFsError(e, `write ${this.relPath}`) : e;
      }
    }
    return this.received === this.remaining ? { kind: 'complete' } : { kind: 'short', bytes: this.received };
  }
}
