// The receiver of a large body, and of any body that does not start at byte 0 (a resume): each
// chunk is hashed at once and coalesced into large positional upload writes with at most one write
// in flight per file; the socket is paused while the destination or the hash worker lags or the
// rate limit (or a paused sync) holds it, and a watchdog timer aborts a body slower than
// MIN_BYTES_PER_SECOND over a whole stall window. FileTries.receiverFor picks it (file-tries.ts); a
// small body from byte 0 skips all of this (WholeBodySink, body-sinks.ts).
import { isFatalFsError, localFsError } from '../local-errors';
import { CountedBody, type BodyReceiver, type StreamOutcome } from './body-sinks';

/** Bytes gathered before a write is issued: large writes keep syscalls and thread-pool hops per byte low. */
const COALESCE_BYTES = 1024 * 1024;
/** Bytes held in memory per file before the socket is paused until the disk catches up. */
const PAUSE_BYTES = 4 * 1024 * 1024;

/**
 * Receives one response body: per chunk one hash update, counter bumps and a push onto the
 * pending list — no promise, no await. Pending bytes go out in one upload write (a folder: one
 * pwritev, synchronous for small files) once COALESCE_BYTES are gathered (or at the end), one
 * write in flight at a time.
 */
export class PartSink extends CountedBody implements BodyReceiver {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private writing = false;
  private paused = false;
  private waitingForHash = false;
  private ended = false;
  private failure: Error | undefined;
  private drained: (() => void) | undefined;
  /** Set while the rate limiter holds the socket paused. */
  private limited: Promise<void> | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private windowStart = 0;
  private windowBytes = 0;
  private pausedInWindow = false;

  constructor(
    /** Where in the upload this body's first byte goes. */
    private position: number,
    ...body: ConstructorParameters<typeof CountedBody>
  ) {
    super(...body);
  }

  /**
   * Aborts the body when fewer than MIN_BYTES_PER_SECOND arrived over a whole window. A window in
   * which we paused the socket ourselves, or whose timer fired late (a busy event loop read
   * nothing), is not judged.
   */
  startWatchdog(windowMs: number): void {
    this.windowStart = Date.now();
    this.watchdog = setInterval(() => {
      const now = Date.now();
      const elapsed = now - this.windowStart;
      const judged = !this.paused && !this.pausedInWindow && elapsed < windowMs * 1.5;
      const stalled = judged ? this.stallError(this.windowBytes, elapsed) : undefined;
      if (stalled) {
        this.stopWatchdog();
        this.flow.abort(stalled);
        return;
      }
      this.windowStart = now;
      this.windowBytes = 0;
      this.pausedInWindow = false;
    }, windowMs);
    this.watchdog.unref();
  }

  private stopWatchdog(): void {
    if (this.watchdog !== undefined) clearInterval(this.watchdog);
    this.watchdog = undefined;
  }

  onData(chunk: Buffer): boolean {
    if (this.failure !== undefined || this.oversize) return true;
    if (!this.counted(chunk)) return true;
    const n = chunk.length;
    this.windowBytes += n;
    const overLimit = this.ctx.accounting.received(this.active, n);
    if (overLimit) this.holdFor(overLimit);
    this.pending.push(chunk);
    this.pendingBytes += n;
    if (!this.writing && this.pendingBytes >= COALESCE_BYTES) this.flush();
    if (this.pendingBytes >= PAUSE_BYTES || this.hash.backlogged || this.limited) {
      this.paused = true;
      this.pausedInWindow = true;
      this.watchHash();
      return false;
    }
    return true;
  }

  /** The rate limiter (or a pause) asked to wait: the socket stays paused until its latest wait settles; the watchdog does not judge it meanwhile. */
  private holdFor(wait: Promise<void>): void {
    this.limited = wait;
    void wait
      .catch(() => undefined)
      .then(() => {
        if (this.limited !== wait) return;
        this.limited = undefined;
        this.maybeResume();
      });
  }

  /** The socket resumes once neither the disk, the hash worker nor the rate limit holds it. */
  private maybeResume(): void {
    if (!this.paused) return;
    if (this.hash.backlogged) this.watchHash();
    else if (this.pendingBytes < PAUSE_BYTES && !this.limited) {
      this.paused = false;
      this.flow.resume();
    }
  }

  private watchHash(): void {
    if (this.waitingForHash || !this.hash.backlogged) return;
    this.waitingForHash = true;
    void this.hash.drained().then(() => {
      this.waitingForHash = false;
      this.maybeResume();
    });
  }

  private flush(): void {
    const bufs = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    this.writing = true;
    const at = this.position;
    const before = this.before;
    this.before = undefined;
    const written = before ? before.then(() => this.upload.write(bufs, at)) : this.upload.write(bufs, at);
    written.then(
      (n) => {
        this.writing = false;
        this.position += n;
        this.afterWrite();
      },
      (err: unknown) => {
        this.writing = false;
        this.failure = isFatalFsError(err) ? localFsError(err, `write ${this.relPath}`) : (err as Error);
        this.pending = [];
        this.pendingBytes = 0;
        this.flow.abort(this.failure);
        this.drained?.();
      },
    );
  }

  private afterWrite(): void {
    if (this.pendingBytes > 0 && (this.ended || this.pendingBytes >= COALESCE_BYTES)) {
      this.flush();
    } else if (this.ended) {
      this.drained?.();
    }
    this.maybeResume();
  }

  /** Called once the body ended or failed: writes what is pending, then reports the outcome. */
  async settle(): Promise<StreamOutcome> {
    this.ended = true;
    this.stopWatchdog();
    if (this.failure === undefined && (this.writing || this.pendingBytes > 0)) {
      await new Promise<void>((r) => {
        this.drained = r;
        if (!this.writing) this.flush();
      });
    }
    if (this.failure !== undefined) throw this.failure;
    if (this.oversize) return { kind: 'oversize' };
    return this.received === this.remaining ? { kind: 'complete' } : { kind: 'short', bytes: this.received };
  }
}
