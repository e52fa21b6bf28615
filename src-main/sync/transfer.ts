// One resumable, hashed download (DESIGN 1.3): bytes go to a .part file under
// DEST/.dataset-sync/partial, the SHA-256 is computed while streaming (held bytes first on
// resume), and the file reaches its final name only by rename after the hash matched.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { mapBodyError, type DeliveryClient } from '../api/delivery-client';
import { ApiError, isApiError } from '../api/errors';
import { isFatalFsError, localFsError } from './local-errors';
import type { ActiveTransfer, ProgressTracker } from './progress';
import { backoff, isRetryable, type RetryPolicy } from './retry';

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
}

export interface TransferStats {
  bytesDownloaded: number;
  bytesHashed: number;
}

export interface TransferContext {
  client: DeliveryClient;
  host: string;
  policy: RetryPolicy;
  signal: AbortSignal;
  progress: ProgressTracker;
  stats: TransferStats;
  onRetry(attempt: number, reason: string, bytesDone: number): void;
}

/** The file failed for good (404, hash never matching...): reported, the sync goes on. */
export class FileFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FileFailedError';
  }
}

const MAX_HASH_MISMATCHES = 3;
const WRITE_BUFFER = 4 * 1024 * 1024;

/** Bytes held in a part file; anything but a regular file there (a planted symlink) is removed, never followed. */
async function sizeOf(p: string): Promise<number> {
  try {
    const st = await fs.lstat(p);
    if (st.isFile()) return st.size;
    await fs.rm(p, { force: true });
    return 0;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw e;
  }
}

async function hashInto(file: string, hash: Hash): Promise<number> {
  let n = 0;
  const rs = createReadStream(file, { highWaterMark: 1024 * 1024 });
  for await (const chunk of rs as AsyncIterable<Buffer>) {
    hash.update(chunk);
    n += chunk.length;
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
 * Streams `body` into the part file. Per chunk: one hash update, one buffered write, two
 * counter bumps — nothing awaited; back-pressure pauses the socket instead.
 */
function streamToPart(body: Readable, partPath: string, append: boolean, hash: Hash, remaining: number, active: ActiveTransfer, ctx: TransferContext, label: string): Promise<StreamOutcome> {
  return new Promise((resolve, reject) => {
    const ws = createWriteStream(partPath, { flags: append ? 'a' : 'w', highWaterMark: WRITE_BUFFER });
    const progress = ctx.progress;
    const stats = ctx.stats;
    let received = 0;
    let outcome: StreamOutcome | undefined;
    let failure: unknown;
    let settled = false;

    const finish = () => {
      if (settled) return;
      settled = true;
      if (failure !== undefined) reject(failure);
      else resolve(outcome ?? { kind: 'short', bytes: received });
    };
    ws.on('close', finish);
    ws.on('error', (e) => {
      failure ??= isFatalFsError(e) ? localFsError(e, `write ${partPath}`) : e;
      body.destroy();
    });
    ws.on('drain', () => body.resume());
    body.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > remaining) {
        outcome = { kind: 'oversize' };
        body.destroy();
        ws.end();
        return;
      }
      hash.update(chunk);
      active.bytesDone += chunk.length;
      progress.bytesDone += chunk.length;
      stats.bytesDownloaded += chunk.length;
      stats.bytesHashed += chunk.length;
      if (!ws.write(chunk)) body.pause();
    });
    body.on('end', () => {
      outcome ??= received === remaining ? { kind: 'complete' } : { kind: 'short', bytes: received };
      ws.end();
    });
    body.on('error', (e) => {
      if (outcome === undefined) failure ??= mapBodyError(e, label, ctx.host);
      ws.end();
    });
  });
}

/** Downloads and verifies one file; resolves with the final file's mtime. */
export async function transferFile(job: TransferJob, ctx: TransferContext): Promise<{ mtimeMs: number }> {
  const label = `file ${job.relPath}`;
  const active: ActiveTransfer = { fileId: job.fileId, path: job.relPath, sizeBytes: job.sizeBytes, bytesDone: 0 };
  ctx.progress.active.add(active);
  try {
    return await transferLoop(job, ctx, active, label);
  } finally {
    ctx.progress.active.delete(active);
  }
}

async function transferLoop(job: TransferJob, ctx: TransferContext, active: ActiveTransfer, label: string): Promise<{ mtimeMs: number }> {
  let attempt = 0;
  let mismatches = 0;
  const discardPart = () => fs.rm(job.partPath, { force: true });
  const retryLater = async (reason: string, err: unknown) => {
    attempt++;
    if (attempt >= ctx.policy.maxAttempts) throw new FileFailedError(`${reason} (gave up after ${attempt} attempts)`);
    ctx.onRetry(attempt, reason, active.bytesDone);
    await backoff(ctx.policy, attempt, err, ctx.signal);
  };

  for (;;) {
    if (ctx.signal.aborted) throw new ApiError('aborted', `${label}: cancelled`);
    let held = await sizeOf(job.partPath);
    if (held > job.sizeBytes) {
      await discardPart();
      held = 0;
    }
    let hash = createHash('sha256');
    if (held > 0) {
      held = await hashInto(job.partPath, hash);
      ctx.stats.bytesHashed += held;
    }
    ctx.progress.bytesDone += held - active.bytesDone;
    active.bytesDone = held;

    if (held === job.sizeBytes) {
      if (hash.digest('hex') === job.sha256) return finalize(job);
      mismatches = await countMismatch(mismatches, label, discardPart);
      continue;
    }

    let res;
    try {
      res = await ctx.client.openFile(job.url, { start: held, ifRange: `"${job.sha256}"`, signal: ctx.signal });
    } catch (e) {
      if (isApiError(e) && e.kind === 'not_found') throw new FileFailedError(`${label}: not served (404); its set may have left accepted`);
      if (isRetryable(e)) {
        await retryLater((e as ApiError).message, e);
        continue;
      }
      throw e;
    }

    let append = false;
    if (res.status === 416) {
      // We asked for held < size bytes, so the server disagrees on the size: start over.
      res.body.destroy();
      await discardPart();
      await retryLater(`${label}: range not satisfiable at byte ${held}; starting over`, undefined);
      continue;
    }
    if (res.status === 206) {
      const cr = parseContentRange(res.headers['content-range']);
      if (!cr || cr.start !== held || cr.total !== job.sizeBytes) {
        res.body.destroy();
        await discardPart();
        await retryLater(`${label}: unexpected Content-Range ${JSON.stringify(res.headers['content-range'] ?? null)} for a resume at ${held} of ${job.sizeBytes}; starting over`, undefined);
        continue;
      }
      append = true;
    } else if (held > 0) {
      // 200 to a range request: the server sends the whole file, so the held bytes are dropped.
      hash = createHash('sha256');
      ctx.progress.bytesDone -= held;
      active.bytesDone = 0;
      held = 0;
    }

    let outcome: StreamOutcome;
    const before = active.bytesDone;
    try {
      outcome = await streamToPart(res.body, job.partPath, append, hash, job.sizeBytes - held, active, ctx, label);
    } catch (e) {
      if (isApiError(e) && e.kind === 'network') {
        if (active.bytesDone > before) attempt = 0; // progress was made: this is a new failure, not a repeat
        await retryLater(e.message, e);
        continue;
      }
      throw e;
    }
    if (outcome.kind === 'oversize') {
      await discardPart();
      mismatches = await countMismatch(mismatches, `${label}: the server sent more than the announced ${job.sizeBytes} bytes`, discardPart);
      continue;
    }
    if (outcome.kind === 'short') {
      if (active.bytesDone > before) attempt = 0;
      await retryLater(`${label}: the transfer ended early at ${active.bytesDone} of ${job.sizeBytes} bytes`, undefined);
      continue;
    }
    if (hash.digest('hex') === job.sha256) return finalize(job);
    mismatches = await countMismatch(mismatches, `${label}: SHA-256 mismatch`, discardPart);
    ctx.onRetry(attempt, `${label}: SHA-256 mismatch, downloading again`, 0);
  }
}

async function countMismatch(mismatches: number, reason: string, discardPart: () => Promise<void>): Promise<number> {
  await discardPart();
  const n = mismatches + 1;
  if (n >= MAX_HASH_MISMATCHES) throw new FileFailedError(`${reason} (${n} times; the file was discarded)`);
  return n;
}

async function finalize(job: TransferJob): Promise<{ mtimeMs: number }> {
  try {
    await fs.mkdir(path.dirname(job.finalPath), { recursive: true });
    await fs.rename(job.partPath, job.finalPath);
    const st = await fs.stat(job.finalPath);
    return { mtimeMs: st.mtimeMs };
  } catch (e) {
    throw localFsError(e, `move ${job.relPath} into place`);
  }
}
