// One resumable, hashed download (docs/contracts.md §4): bytes go to a .part file under
// DEST/.dataset-sync/partial, the SHA-256 is computed while streaming (held bytes first on
// resume), and the file reaches its final name only by rename after the hash matched.
//
// Hot path (bench scenario 1 and 2): body chunks arrive from the client's streamFile sink
// (no Readable in between), are hashed at once and coalesced into large positional writes
// (pwritev) with at most one write in flight per file; the socket is paused while the disk
// lags. The part file is opened once per attempt (O_NOFOLLOW: a planted symlink is never
// followed) and its mtime taken with fstat before close, so finishing a file costs no stat.
import {
  close,
  closeSync,
  constants,
  createReadStream,
  fstat,
  fstatSync,
  ftruncate,
  ftruncateSync,
  open,
  openSync,
  promises as fs,
  realpathSync,
  rename,
  renameSync,
  writev,
  writevSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BodyFlow, DeliveryClient, FileBodySink } from '../api/delivery-client';
import { ApiError, isApiError } from '../api/errors';
// One rule for file bodies and JSON answers: slower than this over a whole stall window is stalled.
import { MIN_BYTES_PER_SECOND } from '../api/json-body';
import { isFatalFsError, localFsError } from './local-errors';
import { newActiveTransfer, type Accounting, type ActiveTransfer } from './accounting';
import { failureCode, type CodedError } from './failure-code';
import { backoff, isRetryable, type RetryPolicy } from './retry';
import type { FailureCode } from '../../src-shared/sync-events';
import { createSha256Stream, type Sha256Stream } from './sha256-stream';

export interface TransferJob {
  fileId: number;
  url: string;
  sizeBytes: number;
  sha256: string;
  /** Absolute paths. */
  partPath: string;
  finalPath: string;
  /** Relative to DEST, for events. */
  relPath: string;
  /** A part file of this download under the name older versions used; taken over when present. */
  legacyPartPath?: string;
  /**
   * The set folder's real path (DEST's realpath + sets/<id>). When given, the folder of finalPath
   * must still resolve to it just before and just after the rename: a folder swapped for a symlink
   * mid-download would otherwise take the verified file outside DEST.
   */
  realDir?: string;
}

export interface TransferContext {
  client: DeliveryClient;
  policy: RetryPolicy;
  signal: AbortSignal;
  /** Progress counters, statistics and the rate limit (every received chunk goes through it). */
  accounting: Accounting;
  /** Hash worker threads allowed (SyncTuning.hashWorkers). */
  hashWorkers: number;
  /** The stall window (tuning.stallTimeoutMs): a body slower than MIN_BYTES_PER_SECOND over it is aborted. Default 30 s. */
  stallMs?: number;
  onRetry(attempt: number, reason: string, bytesDone: number, code: FailureCode): void;
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

/** The set folder led outside DEST (swapped for a link) when the file was to be moved in. */
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
/** IOV_MAX is 1024 on Linux; stay well below it. */
const MAX_IOV = 512;
const OPEN_PART = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW;

/**
 * File-system calls on a part file. Small files (bench scenario 2: 10,000 x 64 KiB) use the
 * synchronous calls: each is a few microseconds on the page cache, while the asynchronous ones
 * each cost a thread-pool round trip (two thread switches), which dominated the per-file cost.
 * Large files keep the asynchronous calls so a slow disk never blocks the event loop for long.
 */
interface PartIo {
  readonly sync: boolean;
  open(p: string): Promise<number>;
  fstat(fd: number): Promise<Stats>;
  truncate(fd: number, len: number): Promise<void>;
  close(fd: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
}

const asyncIo: PartIo = {
  sync: false,
  open: (p) => promisify(open)(p, OPEN_PART, 0o644),
  fstat: promisify(fstat),
  truncate: (fd, len) => promisify(ftruncate)(fd, len),
  close: promisify(close),
  rename: promisify(rename),
};

const syncIo: PartIo = {
  sync: true,
  open: async (p) => openSync(p, OPEN_PART, 0o644),
  fstat: async (fd) => fstatSync(fd),
  truncate: async (fd, len) => ftruncateSync(fd, len),
  close: async (fd) => closeSync(fd),
  rename: async (from, to) => renameSync(from, to),
};

/** Files up to this size use syncIo. */
const SYNC_IO_MAX_BYTES = 1024 * 1024;

function ioFor(sizeBytes: number): PartIo {
  return sizeBytes <= SYNC_IO_MAX_BYTES ? syncIo : asyncIo;
}

/** An open part file and its size; anything but a regular file at its path (a planted symlink, a folder) is removed, never followed. */
async function openPart(p: string, io: PartIo): Promise<{ fd: number; held: number }> {
  if (io.sync) {
    // Usually there is no part file yet: O_EXCL creates a fresh regular file (never through a
    // symlink), so its size is 0 without an fstat. Anything already there takes the checked path below.
    try {
      return { fd: openSync(p, OPEN_PART | constants.O_EXCL, 0o644), held: 0 };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  for (let tries = 0; ; tries++) {
    let fd: number | undefined;
    try {
      fd = await io.open(p);
      const st = await io.fstat(fd);
      if (st.isFile()) return { fd, held: st.size };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (tries > 0 || (code !== 'ELOOP' && code !== 'EISDIR' && code !== 'ENXIO' && code !== 'EMLINK')) throw e;
    }
    if (fd !== undefined) await io.close(fd).catch(() => undefined);
    if (tries > 0) throw localFsError(Object.assign(new Error(`${p} is not a regular file`), { code: 'EEXIST' }), `open ${p}`);
    await fs.rm(p, { force: true, recursive: true });
  }
}

/** Hashes the first `bytes` of the part file (the held bytes of a resume). */
async function hashInto(file: string, hash: Sha256Stream, bytes: number): Promise<number> {
  let n = 0;
  const rs = createReadStream(file, { highWaterMark: 1024 * 1024, start: 0, end: bytes - 1 });
  for await (const chunk of rs as AsyncIterable<Buffer>) {
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

type StreamOutcome = { kind: 'complete' } | { kind: 'short'; bytes: number } | { kind: 'oversize' };

/**
 * Receives one response body: per chunk one hash update, counter bumps and a push onto the
 * pending list — no promise, no await. Pending bytes go out in one pwritev once COALESCE_BYTES
 * are gathered (or at the end), one write in flight at a time.
 */
class PartSink implements FileBodySink {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private writing = false;
  private paused = false;
  private waitingForHash = false;
  private ended = false;
  private received = 0;
  private failure: Error | undefined;
  private oversize = false;
  private drained: (() => void) | undefined;
  /** Set while the rate limiter holds the socket paused. */
  private limited: Promise<void> | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private windowStart = 0;
  private windowBytes = 0;
  private pausedInWindow = false;

  constructor(
    private readonly fd: number,
    private position: number,
    private readonly remaining: number,
    private readonly hash: Sha256Stream,
    private readonly active: ActiveTransfer,
    private readonly ctx: TransferContext,
    private readonly flow: BodyFlow,
    private readonly partPath: string,
    private readonly syncWrites: boolean,
    /** Bytes taken from the network for this file in this sync, all attempts together. */
    private readonly spent: { bytes: number },
  ) {}

  /**
   * Aborts the body when fewer than MIN_BYTES_PER_SECOND arrived over a whole window. A window in
   * which we paused the socket ourselves, or whose timer fired late (a busy event loop read
   * nothing), is not judged.
   */
  startWatchdog(windowMs: number, label: string): void {
    this.windowStart = Date.now();
    this.watchdog = setInterval(() => {
      const now = Date.now();
      const elapsed = now - this.windowStart;
      const judged = !this.paused && !this.pausedInWindow && elapsed < windowMs * 1.5;
      if (judged && this.windowBytes < (MIN_BYTES_PER_SECOND * elapsed) / 1000) {
        this.stopWatchdog();
        this.flow.abort(new TooSlowError(`${label}: transfer stalled (${this.windowBytes} bytes in ${(elapsed / 1000).toFixed(1)} s, under 1 KiB/s)`));
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
    const n = chunk.length;
    this.received += n;
    this.windowBytes += n;
    this.spent.bytes += n;
    if (this.received > this.remaining) {
      this.oversize = true;
      this.flow.abort(new Error('oversize'));
      return true;
    }
    this.hash.update(chunk);
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
    const bufs = this.pending.length <= MAX_IOV ? this.pending : this.pending.slice(0, MAX_IOV);
    this.pending = this.pending.length <= MAX_IOV ? [] : this.pending.slice(MAX_IOV);
    let bytes = 0;
    for (const b of bufs) bytes += b.length;
    this.pendingBytes -= bytes;
    this.writing = true;
    writev(this.fd, bufs, this.position, (err, written) => {
      this.writing = false;
      if (err) {
        this.failure = isFatalFsError(err) ? localFsError(err, `write ${this.partPath}`) : err;
        this.pending = [];
        this.pendingBytes = 0;
        this.flow.abort(this.failure);
        this.drained?.();
        return;
      }
      this.position += written;
      if (written < bytes) this.requeueTail(bufs, written);
      this.afterWrite();
    });
  }

  /** A short write (rare on regular files): the unwritten tail goes back to the front. */
  private requeueTail(bufs: Buffer[], written: number): void {
    const tail: Buffer[] = [];
    let skip = written;
    for (const b of bufs) {
      if (skip >= b.length) {
        skip -= b.length;
        continue;
      }
      tail.push(skip > 0 ? b.subarray(skip) : b);
      skip = 0;
    }
    for (const b of tail) this.pendingBytes += b.length;
    this.pending = tail.concat(this.pending);
  }

  /** Small files: the whole body (or its tail) in one synchronous pwritev. */
  private writeRestSync(): void {
    try {
      while (this.pendingBytes > 0) {
        const bufs = this.pending.length <= MAX_IOV ? this.pending : this.pending.slice(0, MAX_IOV);
        this.pending = this.pending.length <= MAX_IOV ? [] : this.pending.slice(MAX_IOV);
        let bytes = 0;
        for (const b of bufs) bytes += b.length;
        this.pendingBytes -= bytes;
        const written = writevSync(this.fd, bufs, this.position);
        this.position += written;
        if (written < bytes) this.requeueTail(bufs, written);
      }
    } catch (e) {
      this.failure = isFatalFsError(e) ? localFsError(e, `write ${this.partPath}`) : (e as Error);
      this.pending = [];
      this.pendingBytes = 0;
    }
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
    if (this.syncWrites && this.failure === undefined && !this.writing) this.writeRestSync();
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

/** Streams one response body into the part file at `position`; the outcome once every byte is on disk. */
async function streamToPart(
  fd: number,
  io: PartIo,
  job: TransferJob,
  start: number,
  hashFor: (status: number, headers: Record<string, string | string[] | undefined>) => Sha256Stream | null,
  active: ActiveTransfer,
  ctx: TransferContext,
  spent: { bytes: number },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; outcome?: StreamOutcome }> {
  let sink: PartSink | undefined;
  let head: { status: number; headers: Record<string, string | string[] | undefined> } | undefined;
  let streamError: unknown;
  try {
    await ctx.client.streamFile(job.url, { start, ifRange: `"${job.sha256}"`, signal: ctx.signal }, (h, flow) => {
      head = h;
      const hash = hashFor(h.status, h.headers);
      if (hash === null) return null;
      const position = h.status === 206 ? start : 0;
      sink = new PartSink(fd, position, job.sizeBytes - position, hash, active, ctx, flow, job.partPath, io.sync, spent);
      sink.startWatchdog(ctx.stallMs ?? 30_000, `GET ${job.relPath}`);
      return sink;
    });
  } catch (e) {
    streamError = e;
  }
  // Pending writes finish (or fail) before the outcome is known, whatever happened to the socket.
  let outcome: StreamOutcome | undefined;
  if (sink) {
    outcome = await (sink as PartSink).settle();
    if (outcome.kind === 'oversize') return { ...head!, outcome };
  }
  if (streamError !== undefined) throw streamError;
  return { ...head!, outcome };
}

/** Downloads and verifies one file; resolves with the final file's mtime. */
export async function transferFile(job: TransferJob, ctx: TransferContext): Promise<{ mtimeMs: number }> {
  if (job.legacyPartPath !== undefined) claimLegacyPart(job.legacyPartPath, job.partPath);
  const label = `file ${job.relPath}`;
  const active = newActiveTransfer(job.fileId, job.relPath, job.sizeBytes);
  ctx.accounting.active.add(active);
  try {
    return await transferLoop(job, ctx, active, label);
  } finally {
    ctx.accounting.transferEnded(active, !ctx.signal.aborted);
  }
}

async function transferLoop(job: TransferJob, ctx: TransferContext, active: ActiveTransfer, label: string): Promise<{ mtimeMs: number }> {
  let attempt = 0;
  let mismatches = 0;
  const spent = { bytes: 0 };
  const byteBudget = BYTE_BUDGET_FACTOR * job.sizeBytes;
  const discardPart = () => fs.rm(job.partPath, { force: true });
  // `err` names the failure when there is one; the answers that did not fit (ended early, a 416,
  // a Content-Range for other bytes) are the connection's.
  const retryLater = async (reason: string, err: unknown) => {
    attempt++;
    const code = err === undefined ? 'connection' : failureCode(err);
    if (attempt >= ctx.policy.maxAttempts) throw new FileFailedError(`${reason} (gave up after ${attempt} attempts)`, code);
    if (spent.bytes > byteBudget) {
      throw new FileFailedError(`${reason} (gave up: ${spent.bytes} bytes received for a file of ${job.sizeBytes}, more than ${BYTE_BUDGET_FACTOR}x its size)`, 'unstable');
    }
    ctx.onRetry(attempt, reason, active.bytesDone, code);
    await backoff(ctx.policy, attempt, err, ctx.signal);
  };

  for (;;) {
    if (ctx.signal.aborted) throw new ApiError('aborted', `${label}: cancelled`);
    const io = ioFor(job.sizeBytes);
    let part: { fd: number; held: number };
    try {
      part = await openPart(job.partPath, io);
    } catch (e) {
      throw isFatalFsError(e) ? localFsError(e, `open ${job.partPath}`) : e;
    }
    const { fd } = part;
    let step: 'done' | 'retry';
    let result: { mtimeMs: number } | undefined;
    try {
      ({ step, result } = await attemptOnce(fd, part.held, io, job, ctx, active, label, spent, {
        retryLater,
        mismatch: async (reason: string, code: FailureCode) => {
          try {
            mismatches = await countMismatch(mismatches, reason, code, () => io.truncate(fd, 0));
          } catch (e) {
            await discardPart(); // given up: no empty part file is left behind
            throw e;
          }
        },
        resetAttempts: () => {
          attempt = 0;
        },
      }));
    } finally {
      await io.close(fd).catch(() => undefined);
    }
    if (step === 'done') return finalize(job, result!.mtimeMs, io);
  }
}

interface AttemptHooks {
  retryLater(reason: string, err: unknown): Promise<void>;
  /** Counts a bad body (hash mismatch, oversize), empties the part file; throws after too many. */
  mismatch(reason: string, code: FailureCode): Promise<void>;
  resetAttempts(): void;
}

/** One request for the missing bytes. 'done' carries the verified part's mtime; 'retry' means go round again. */
async function attemptOnce(
  fd: number,
  heldAtOpen: number,
  io: PartIo,
  job: TransferJob,
  ctx: TransferContext,
  active: ActiveTransfer,
  label: string,
  spent: { bytes: number },
  hooks: AttemptHooks,
): Promise<{ step: 'done' | 'retry'; result?: { mtimeMs: number } }> {
  let held = heldAtOpen;
  if (held > job.sizeBytes) {
    await io.truncate(fd, 0);
    held = 0;
  }
  let hash = createSha256Stream(job.sizeBytes, ctx.hashWorkers);
  try {
    if (held > 0) {
      active.checking = true;
      try {
        held = await hashInto(job.partPath, hash, held);
      } finally {
        active.checking = false;
      }
      ctx.accounting.bytesHashed += held;
    }
    ctx.accounting.held(active, held);

    if (held === job.sizeBytes) {
      if ((await hash.digest()) === job.sha256) return { step: 'done', result: { mtimeMs: (await io.fstat(fd)).mtimeMs } };
      await hooks.mismatch(label, 'hash_mismatch');
      return { step: 'retry' };
    }

    let reply;
    const before = active.bytesDone;
    const closed = ctx.accounting.whenOpen(); // a paused sync starts no request
    if (closed) await closed;
    try {
      reply = await streamToPart(
        fd,
        io,
        job,
        held,
        (status, headers) => {
          if (status === 416) return null;
          if (status === 206) {
            // Append only when the range starts exactly at what we hold and the total is the file's size.
            const cr = parseContentRange(headers['content-range']);
            return cr && cr.start === held && cr.total === job.sizeBytes ? hash : null;
          }
          if (held > 0) {
            // 200 to a range request: the server sends the whole file, so the held bytes are dropped
            // (synchronously, before the first byte of the new body is written at position 0).
            ftruncateSync(fd, 0);
            hash.discard();
            hash = createSha256Stream(job.sizeBytes, ctx.hashWorkers);
            ctx.accounting.restarted(active); // done counts stay; the bytes received again are counted as re-downloaded
          }
          return hash;
        },
        active,
        ctx,
        spent,
      );
    } catch (e) {
      if (isApiError(e) && e.kind === 'not_found') throw new FileFailedError(`${label}: not served (404); its set may have left accepted`, 'not_served');
      if (isApiError(e) && e.kind === 'network' && active.bytesDone > before && !(e instanceof TooSlowError)) {
        hooks.resetAttempts(); // progress was made: this is a new failure, not a repeat (a trickle is no progress)
      }
      if (isRetryable(e)) {
        await hooks.retryLater((e as ApiError).message, e);
        return { step: 'retry' };
      }
      throw e;
    }

    if (reply.status === 416) {
      // We asked for held < size bytes, so the server disagrees on the size: start over.
      await io.truncate(fd, 0);
      await hooks.retryLater(`${label}: range not satisfiable at byte ${held}; starting over`, undefined);
      return { step: 'retry' };
    }
    if (reply.status === 206) {
      const cr = parseContentRange(reply.headers['content-range']);
      if (!cr || cr.start !== held || cr.total !== job.sizeBytes) {
        await io.truncate(fd, 0);
        await hooks.retryLater(`${label}: unexpected Content-Range ${JSON.stringify(reply.headers['content-range'] ?? null)} for a resume at ${held} of ${job.sizeBytes}; starting over`, undefined);
        return { step: 'retry' };
      }
    }
    const outcome = reply.outcome!;
    if (outcome.kind === 'oversize') {
      await hooks.mismatch(`${label}: the server sent more than the announced ${job.sizeBytes} bytes`, 'oversize');
      return { step: 'retry' };
    }
    if (outcome.kind === 'short') {
      if (active.bytesDone > before) hooks.resetAttempts();
      await hooks.retryLater(`${label}: the transfer ended early at ${active.bytesDone} of ${job.sizeBytes} bytes`, undefined);
      return { step: 'retry' };
    }
    if ((await hash.digest()) === job.sha256) return { step: 'done', result: { mtimeMs: (await io.fstat(fd)).mtimeMs } };
    await hooks.mismatch(`${label}: SHA-256 mismatch`, 'hash_mismatch');
    ctx.onRetry(0, `${label}: SHA-256 mismatch, downloading again`, 0, 'hash_mismatch');
    return { step: 'retry' };
  } finally {
    hash.discard();
  }
}

async function countMismatch(mismatches: number, reason: string, code: FailureCode, discardPart: () => Promise<void>): Promise<number> {
  await discardPart();
  const n = mismatches + 1;
  if (n >= MAX_HASH_MISMATCHES) throw new FileFailedError(`${reason} (${n} times; the file was discarded)`, code);
  return n;
}

/** rename is atomic: of two transfers that could use the same old part file, one gets it. */
function claimLegacyPart(legacy: string, part: string): void {
  try {
    renameSync(legacy, part);
  } catch {
    // Usually there is none (ENOENT); anything else just means no resume from it.
  }
}

/** Moves the verified part into place; the set folder was made (and checked) when set.json was written. */
async function finalize(job: TransferJob, mtimeMs: number, io: PartIo): Promise<{ mtimeMs: number }> {
  const label = `file ${job.relPath}`;
  const before = folderOutsideDest(job);
  if (before !== null) {
    throw new FolderEscapeError(`${label}: its folder no longer resolves inside DEST (it leads to ${before}); not moved into place, the verified bytes stay in the partial folder`);
  }
  try {
    try {
      await io.rename(job.partPath, job.finalPath);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      // The set folder vanished mid-sync (deleted by the user): make it again.
      await fs.mkdir(path.dirname(job.finalPath), { recursive: true });
      await fs.rename(job.partPath, job.finalPath);
    }
  } catch (e) {
    throw localFsError(e, `move ${job.relPath} into place`);
  }
  // Checked again after the fact: the folder may have been swapped between the check and the rename.
  const after = folderOutsideDest(job);
  if (after !== null) {
    throw new FolderEscapeError(`${label}: its folder was replaced by a link while the file was moved into place; the file ended up at ${path.join(after, path.basename(job.finalPath))}, outside DEST, and is not listed`);
  }
  // rename keeps the mtime that fstat saw just before the part file was closed.
  return { mtimeMs };
}

/** Where the final file's folder really leads when that is not job.realDir; null when it is (or there is nothing to check). */
function folderOutsideDest(job: TransferJob): string | null {
  if (job.realDir === undefined) return null;
  let real: string;
  try {
    real = realpathSync.native(path.dirname(job.finalPath));
  } catch {
    return null; // gone: the rename makes it again, and the check after the rename judges the result
  }
  return real === job.realDir ? null : real;
}
