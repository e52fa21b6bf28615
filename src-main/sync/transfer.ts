// One resumable, hashed download (docs/contracts.md §4): bytes go to an Upload of the destination (a
// folder's .part file under DEST/.dataset-sync/partial), the SHA-256 is computed while streaming
// (held bytes first on resume), and the file becomes visible under its key only by the upload's
// commit after the hash matched (a folder: rename, with the escape checks around it).
//
// Hot path (bench scenario 1 and 2): body chunks arrive from the client's streamFile sink
// (no Readable in between), are hashed at once and coalesced into large positional writes
// with at most one write in flight per file; the socket is paused while the destination lags.
// The upload is opened once per attempt (a folder: O_NOFOLLOW, a planted symlink is never
// followed) and its stamp comes back from commit, so finishing a file costs no stat. A small body
// that starts at byte 0 (most files of a first sync of short clips) skips that machinery: it is
// received whole and written with one upload write (WholeBodySink); when its destination opens
// the upload without waiting, its first attempt is one function (firstWholeAttempt).
import type { BodyFlow, DeliveryClient, FileBodySink, FileResponseHead } from '../api/delivery-client';
import { ApiError, isApiError } from '../api/errors';
// One rule for file bodies and JSON answers: slower than this over a whole stall window is stalled.
import { MIN_BYTES_PER_SECOND } from '../api/json-body';
import { isFatalFsError, localFsError } from './local-errors';
import { EscapeError, type Destination, type ExpectedBody, type Upload } from './destination/destination';
import { newActiveTransfer, type Accounting, type ActiveTransfer } from './accounting';
import { failureCode, type CodedError } from './failure-code';
import { backoff, isRetryable, type RetryPolicy } from './retry';
import type { FailureCode } from '../../src-shared/sync-events';
import { createSha256Stream, type Sha256Stream } from './sha256-stream';
import type { StageTaps } from './stages/pipeline';

export interface TransferJob {
  fileId: number;
  url: string;
  sizeBytes: number;
  sha256: string;
  /** The destination key (relative to DEST, as in events and manifest.csv). */
  relPath: string;
  /** Names the held bytes across attempts and syncs: `${setId}-${fileId}-${sha256}` (ExpectedBody.resumeKey). */
  resumeKey: string;
  /** The stages' taps for one attempt at the body (stages/pipeline.ts): asked again whenever the hash starts over. */
  taps?(): StageTaps | undefined;
  /**
   * Called once the bytes are verified, just before a commit that only writes to this machine's
   * disk (Upload.commitsLocally): the network is done with this file (set-plan.ts lets the next
   * download start).
   */
  committingLocally?(): void;
  onRetry(attempt: number, reason: string, bytesDone: number, code: FailureCode): void;
}

/** A committed file: the stamp to record, and the stages' taps that saw every byte of it. */
export interface Transferred {
  stamp: string;
  taps?: StageTaps;
}

/** What every transfer of a sync shares (one object per sync; what is the file's own is in its TransferJob). */
export interface TransferContext {
  /** Where the file goes: an upload per attempt, committed once the hash matched. */
  dest: Destination;
  client: DeliveryClient;
  policy: RetryPolicy;
  signal: AbortSignal;
  /** Progress counters, statistics and the rate limit (every received chunk goes through it). */
  accounting: Accounting;
  /** Hash worker threads allowed (SyncTuning.hashWorkers). */
  hashWorkers: number;
  /** The stall window (tuning.stallTimeoutMs): a body slower than MIN_BYTES_PER_SECOND over it is aborted. Default 30 s. */
  stallMs?: number;
}

/** A body slower than MIN_BYTES_PER_SECOND over the stall window: retried like a stall, but never counted as progress. */
class TooSlowError extends ApiError {
  constructor(message: string) {
    super('network', message, { networkCause: 'stalled' });
    this.name = 'TooSlowError';
  }
}

/** The file failed for good (404, hash never matching...): reported, the sync goes on. */
export class FileFailedError extends Error implements CodedError {
  constructor(
    message: string,
    readonly failureCode: FailureCode,
  ) {
    super(message);
    this.name = 'FileFailedError';
  }
}

/** The set folder led outside DEST (swapped for a link) when the file was to be committed (the destination's EscapeError). */
export class FolderEscapeError extends FileFailedError {
  constructor(message: string) {
    super(message, 'escaped');
    this.name = 'FolderEscapeError';
  }
}

const MAX_HASH_MISMATCHES = 3;
/**
 * Bytes one file may take from the network in one sync: the file once plus three times its size
 * re-fetched. Each attempt that makes progress resets the attempt count (a flaky link may need
 * many resumes), so without this a server that keeps throwing received bytes away (a size one
 * larger than the body: "ended early", 416, start over) would loop for ever.
 */
const BYTE_BUDGET_FACTOR = 4;
/** Bytes gathered before a write is issued: large writes keep syscalls and thread-pool hops per byte low. */
const COALESCE_BYTES = 1024 * 1024;
/** Bytes held in memory per file before the socket is paused until the disk catches up. */
const PAUSE_BYTES = 4 * 1024 * 1024;
/** Hashes the held bytes of a resume; returns how many there were. */
async function hashHeld(upload: Upload, hash: Sha256Stream): Promise<number> {
  let n = 0;
  for await (const chunk of upload.readHeld()) {
    hash.update(chunk);
    n += chunk.length;
    if (hash.backlogged) await hash.drained();
  }
  return n;
}

/** Parses "bytes a-b/total"; null when absent or malformed. */
export function parseContentRange(v: string | string[] | undefined): { start: number; end: number; total: number } | null {
  const s = Array.isArray(v) ? v[0] : v;
  const m = s === undefined ? null : /^\s*bytes\s+(\d+)-(\d+)\/(\d+)\s*$/i.exec(s);
  if (!m) return null;
  return { start: Number(m[1]), end: Number(m[2]), total: Number(m[3]) };
}

/** Whether a 206 answer's Content-Range appends to what is held: it starts exactly at `held` and its total is the file's size. */
function rangeAppends(headers: FileResponseHead['headers'], held: number, sizeBytes: number): boolean {
  const cr = parseContentRange(headers['content-range']);
  return cr !== null && cr.start === held && cr.total === sizeBytes;
}

type StreamOutcome = { kind: 'complete' } | { kind: 'short'; bytes: number } | { kind: 'oversize' };

/** What both receivers of a body (PartSink, WholeBodySink) know, and what they do first with each chunk. */
abstract class CountedBody {
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
 * Receives one response body: per chunk one hash update, counter bumps and a push onto the
 * pending list — no promise, no await. Pending bytes go out in one upload write (a folder: one
 * pwritev, synchronous for small files) once COALESCE_BYTES are gathered (or at the end), one
 * write in flight at a time.
 */
class PartSink extends CountedBody implements BodyReceiver {
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

/** What streamToPart needs of a body's receiver: the chunks (FileBodySink), then the outcome once every byte is written. */
interface BodyReceiver extends FileBodySink {
  settle(): Promise<StreamOutcome>;
}

/**
 * Bodies up to this size that start at byte 0 are received whole (WholeBodySink): most files of a
 * collection of short clips. The size up to which a folder holds a download in memory anyway
 * (memory-upload.ts).
 */
const WHOLE_BODY_MAX_BYTES = 256 * 1024;

/**
 * Receives a small body that starts at byte 0: chunks are hashed and kept as they arrive and go to
 * the upload in one write at the end, whatever the outcome (a body cut short is resumed from them,
 * as from a part file). PartSink's machinery for large bodies is left out (issue 21: the per-file
 * steps of a first sync of small files): no write coalescing, no pause while the disk lags, and no
 * watchdog timer per file. The stall rule is the same, judged as each chunk arrives: fewer than
 * MIN_BYTES_PER_SECOND over a whole window aborts the body as too slow; a body that goes silent
 * is ended by the client's body timeout.
 */
class WholeBodySink extends CountedBody implements BodyReceiver {
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

/** What one request brought: its answer's status and headers, and the body's outcome when a body was taken. */
interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  outcome?: StreamOutcome;
}

/** Streams one response body into the upload at `start` (or 0 when the answer is the whole file); the outcome once every byte is written. */
async function streamToPart(upload: Upload, tries: FileTries, start: number): Promise<Reply> {
  const { job, ctx } = tries;
  let sink: BodyReceiver | null = null;
  let head: FileResponseHead | undefined;
  let streamError: unknown;
  try {
    // If-Range only goes with a Range (start > 0): no string of it per first request.
    const ifRange = start > 0 ? `"${job.sha256}"` : undefined;
    await ctx.client.streamFile(job.url, { start, ifRange, signal: ctx.signal }, (h, flow) => {
      head = h;
      sink = tries.receiverFor(upload, start, h, flow);
      return sink;
    });
  } catch (e) {
    streamError = e;
  }
  // Pending writes finish (or fail) before the outcome is known, whatever happened to the socket.
  let outcome: StreamOutcome | undefined;
  if (sink) {
    outcome = await (sink as BodyReceiver).settle();
    if (outcome.kind === 'oversize') return { status: head!.status, headers: head!.headers, outcome };
  }
  if (streamError !== undefined) throw streamError;
  // Field by field: an object spread here cost several us per file.
  return { status: head!.status, headers: head!.headers, outcome };
}

/** Downloads and verifies one file; resolves with the committed object's stamp (a folder: its mtime). */
export async function transferFile(job: TransferJob, ctx: TransferContext): Promise<Transferred> {
  const active = newActiveTransfer(job.fileId, job.relPath, job.sizeBytes);
  ctx.accounting.active.add(active);
  try {
    const tries = new FileTries(job, ctx, active);
    const upload = job.sizeBytes <= WHOLE_BODY_MAX_BYTES ? (ctx.dest.openUploadNow?.(job.relPath, expectedBodyOf(job)) ?? null) : null;
    if (upload !== null) {
      const done = await firstWholeAttempt(upload, tries);
      if (done !== undefined) return done;
    }
    return await transferLoop(tries);
  } finally {
    ctx.accounting.transferEnded(active, !ctx.signal.aborted);
  }
}

/**
 * One file's attempts in this sync: the rules every attempt answers to (the attempt count and
 * its backoff, the byte budget, the count of bad bodies) and the hash of the attempt under way.
 * One object per file with its rules as methods, in one place, where any path of an attempt
 * (a lean first attempt for small files among them, issue 21) can reach them.
 */
class FileTries {
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

async function transferLoop(tries: FileTries): Promise<Transferred> {
  const { job, ctx, label } = tries;
  for (;;) {
    if (ctx.signal.aborted) throw new ApiError('aborted', `${label}: cancelled`);
    let upload: Upload;
    try {
      upload = await ctx.dest.openUpload(job.relPath, expectedBodyOf(job));
    } catch (e) {
      throw isFatalFsError(e) ? localFsError(e, `open the partial download of ${job.relPath}`) : e;
    }
    try {
      if ((await attemptOnce(upload, tries)) === 'done') {
        if (upload.commitsLocally === true) job.committingLocally?.();
        return tries.transferred(await commit(upload, label));
      }
    } finally {
      await upload.close().catch(() => undefined);
    }
  }
}

/** What the destination is told of the body it will receive. */
function expectedBodyOf(job: TransferJob): ExpectedBody {
  return { size: job.sizeBytes, sha256: job.sha256, resumeKey: job.resumeKey };
}

/**
 * The first attempt of a small file whose upload opened without waiting (Destination.openUploadNow:
 * a folder's upload held in memory, no part file listed for the file), which is most files of a
 * first sync of short clips (issue 21). transferLoop's first round (openUpload, attemptOnce,
 * commit, close) in one function, without their rounds of promises. An answer that is not a whole
 * body with the right hash is judged by the same rules (FileTries, judgeReply); undefined sends the
 * file on to transferLoop, the upload closed first (what it held is set aside to resume from).
 */
async function firstWholeAttempt(upload: Upload, tries: FileTries): Promise<Transferred | undefined> {
  const { job, ctx, active, label } = tries;
  let committed = false;
  try {
    if (ctx.signal.aborted) throw new ApiError('aborted', `${label}: cancelled`);
    tries.newHash();
    ctx.accounting.held(active, 0);
    const closed = ctx.accounting.whenOpen(); // a paused sync starts no request
    if (closed) await closed;
    const before = active.bytesDone;
    let reply: Reply;
    try {
      reply = await streamToPart(upload, tries, 0);
    } catch (e) {
      await tries.requestFailed(e, before);
      return undefined;
    }
    const whole = reply.status === 200 && reply.outcome?.kind === 'complete' && tries.digestNow() === job.sha256;
    if (!whole && (await judgeReply(upload, tries, reply, 0, before)) === 'retry') return undefined;
    if (upload.commitsLocally === true) job.committingLocally?.();
    const done = tries.transferred(await commit(upload, label));
    committed = true;
    return done;
  } finally {
    tries.hash?.discard();
    // Committed, it holds nothing (openUploadNow's promise): no close to wait for.
    if (!committed) await upload.close().catch(() => undefined);
  }
}

/** One request for the missing bytes. 'done': every byte is held and its hash matched; 'retry' means go round again. */
async function attemptOnce(upload: Upload, tries: FileTries): Promise<'done' | 'retry'> {
  const { job, ctx, active, label } = tries;
  let held = upload.held;
  if (held > job.sizeBytes) {
    await upload.restart();
    held = 0;
  }
  const hash = tries.newHash();
  try {
    if (held > 0) {
      active.checking = true;
      try {
        held = await hashHeld(upload, hash);
      } finally {
        active.checking = false;
      }
      ctx.accounting.bytesHashed += held;
    }
    ctx.accounting.held(active, held);

    if (held === job.sizeBytes) {
      if ((await tries.digest()) === job.sha256) return 'done';
      await tries.mismatch(upload, label, 'hash_mismatch');
      return 'retry';
    }

    const before = active.bytesDone;
    const closed = ctx.accounting.whenOpen(); // a paused sync starts no request
    if (closed) await closed;
    let reply: Reply;
    try {
      reply = await streamToPart(upload, tries, held);
    } catch (e) {
      return await tries.requestFailed(e, before);
    }
    return await judgeReply(upload, tries, reply, held, before);
  } finally {
    tries.hash!.discard(); // the attempt's last hash (a 200 to a resume began a new one)
  }
}

/**
 * What an answer to a request for the bytes from `held` makes of the file: 'done' once every byte
 * came and the hash matched; else the upload is emptied or kept as the answer says, and 'retry'
 * after the rules' wait (or a FileFailedError once they are spent).
 */
async function judgeReply(upload: Upload, tries: FileTries, reply: Reply, held: number, before: number): Promise<'done' | 'retry'> {
  const { job, active, label } = tries;
  if (reply.status === 416) {
    // We asked for held < size bytes, so the server disagrees on the size: start over.
    await upload.restart();
    await tries.retryLater(`${label}: range not satisfiable at byte ${held}; starting over`, undefined);
    return 'retry';
  }
  if (reply.status === 206) {
    if (!rangeAppends(reply.headers, held, job.sizeBytes)) {
      await upload.restart();
      await tries.retryLater(`${label}: unexpected Content-Range ${JSON.stringify(reply.headers['content-range'] ?? null)} for a resume at ${held} of ${job.sizeBytes}; starting over`, undefined);
      return 'retry';
    }
  }
  const outcome = reply.outcome!;
  if (outcome.kind === 'oversize') {
    await tries.mismatch(upload, `${label}: the server sent more than the announced ${job.sizeBytes} bytes`, 'oversize');
    return 'retry';
  }
  if (outcome.kind === 'short') {
    if (active.bytesDone > before) tries.resetAttempts();
    await tries.retryLater(`${label}: the transfer ended early at ${active.bytesDone} of ${job.sizeBytes} bytes`, undefined);
    return 'retry';
  }
  // A small file's hash is known at once: no promise for it.
  if ((tries.digestNow() ?? (await tries.digest())) === job.sha256) return 'done';
  await tries.mismatch(upload, `${label}: SHA-256 mismatch`, 'hash_mismatch');
  job.onRetry(0, `${label}: SHA-256 mismatch, downloading again`, 0, 'hash_mismatch');
  return 'retry';
}

/**
 * Makes the verified bytes visible under their key (a folder: rename into the set folder made
 * when set.json was written, with the escape checks around it). A set folder that leads outside
 * DEST fails the file as FolderEscapeError: its set's entries are checked again at the end.
 */
async function commit(upload: Upload, label: string): Promise<string> {
  try {
    return (await upload.commit()).stamp;
  } catch (e) {
    if (e instanceof EscapeError) throw new FolderEscapeError(`${label}: ${e.message}`);
    throw e;
  }
}

/**
 * A hash whose every byte also goes to the stages' taps (stages/pipeline.ts), in the same call: the
 * media check reads a container's headers from the bytes as they are hashed, a tap that has seen
 * enough costs a property read per chunk.
 */
class TappedHash implements Sha256Stream {
  constructor(
    private readonly hash: Sha256Stream,
    private readonly taps: StageTaps,
  ) {}

  update(chunk: Buffer): void {
    this.hash.update(chunk);
    if (!this.taps.done) this.taps.push(chunk);
  }
  get backlogged(): boolean {
    return this.hash.backlogged;
  }
  drained(): Promise<void> {
    return this.hash.drained();
  }
  digest(): Promise<string> {
    return this.hash.digest();
  }
  digestNow(): string | undefined {
    return this.hash.digestNow();
  }
  discard(): void {
    this.hash.discard();
  }
}
