// One sync per bucket destination: the object PREFIX/.dataset-sync/lock, holding the owner's
// host, pid, start time and a random nonce.
//
// What the store guarantees, and what it does not:
// - Creating the lock is exclusive where the store honours a conditional PUT `If-None-Match: *`
//   (AWS S3 since 2024, Ceph RGW — measured on Ceph 16: 412 PreconditionFailed when the lock
//   exists — MinIO). A store that ignores the header would let a second sync overwrite the
//   lock; the lock is read back after it is written, which catches an overwrite that already
//   happened, not one that happens later.
// - A lock is refreshed every REFRESH_MS while the sync runs (a conditional PUT `If-Match` on
//   our own ETag, so a refresh never overwrites a lock someone else took over). A lock not
//   refreshed for STALE_MS is stale: its sync died on some machine. A stale lock is taken over
//   with `If-Match` on the ETag judged stale, so of several syncs finding it only one wins. A
//   lock of this host whose pid is gone is stale at once (a killed sync never blocks the next).
//   Staleness compares the store's Last-Modified with this machine's clock: SigV4 refuses
//   requests from clocks more than 15 minutes off, so STALE_MS is longer than that.
// - Release deletes the lock only if it is still ours (HEAD, then DELETE: S3 has no conditional
//   delete everywhere, so a takeover between the two would lose its lock; it can happen only to
//   a lock that went stale, i.e. a sync stalled for STALE_MS).
// - A sync paused longer than STALE_MS (a laptop asleep) may find its lock taken over: the
//   refresh then fails and is reported through onLost; two syncs may then overlap. The store
//   cannot fence writes by a lock holder.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { DestinationError, type DestinationLock } from '../destination';
import { isCode, s3Error, statusOf, type Where } from './errors';

export const REFRESH_MS = 60_000;
export const STALE_MS = 20 * 60_000;

interface LockInfo {
  host: string;
  pid: number;
  startedAt: string;
  nonce: string;
}

export interface LockContext {
  client: S3Client;
  bucket: string;
  where: Where;
  /** The lock object's full name in the bucket. */
  objectKey: string;
  /** What the user sees of the destination (for messages). */
  label: string;
  /** Called when a refresh finds the lock no longer ours. */
  onLost?: (message: string) => void;
  /** How often the lock is refreshed (default REFRESH_MS; tests make it short). */
  refreshMs?: number;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isPreconditionFailed(e: unknown): boolean {
  return isCode(e, 'PreconditionFailed') || statusOf(e) === 412;
}

async function readLock(ctx: LockContext): Promise<{ info: Partial<LockInfo> | null; etag: string; lastModified: Date } | null> {
  try {
    const res = await ctx.client.send(new GetObjectCommand({ Bucket: ctx.bucket, Key: ctx.objectKey }));
    const text = (await res.Body?.transformToString()) ?? '';
    let info: Partial<LockInfo> | null = null;
    try {
      info = JSON.parse(text) as Partial<LockInfo>;
    } catch {
      info = null;
    }
    return { info, etag: res.ETag ?? '', lastModified: res.LastModified ?? new Date(0) };
  } catch (e) {
    if (isCode(e, 'NoSuchKey') || statusOf(e) === 404) return null;
    throw s3Error(e, ctx.where, 'read the lock');
  }
}

function isStale(seen: { info: Partial<LockInfo> | null; lastModified: Date }): boolean {
  const { info } = seen;
  if (info && info.host === os.hostname() && typeof info.pid === 'number' && info.pid !== process.pid && !processAlive(info.pid)) return true;
  return Date.now() - seen.lastModified.getTime() > STALE_MS;
}

function heldError(ctx: LockContext, info: Partial<LockInfo> | null): DestinationError {
  return new DestinationError(
    'locked',
    `Another sync is already running for ${ctx.label}: pid ${info?.pid ?? '?'} on host ${info?.host ?? '?'} since ${info?.startedAt ?? '?'}. ` +
      `If that sync is gone, its lock (${ctx.objectKey}) goes stale ${STALE_MS / 60_000} minutes after it last ran, or delete that object.`,
  );
}

export async function acquireBucketLock(ctx: LockContext): Promise<DestinationLock> {
  const mine: LockInfo = { host: os.hostname(), pid: process.pid, startedAt: new Date().toISOString(), nonce: randomBytes(8).toString('hex') };
  const body = JSON.stringify(mine) + '\n';
  const put = async (condition: { IfNoneMatch?: string; IfMatch?: string }): Promise<string | null> => {
    try {
      const res = await ctx.client.send(
        new PutObjectCommand({ Bucket: ctx.bucket, Key: ctx.objectKey, Body: body, ContentType: 'application/json', ...condition }),
      );
      return res.ETag ?? '';
    } catch (e) {
      if (!isPreconditionFailed(e)) throw s3Error(e, ctx.where, 'take the lock');
      // Ceph 16 compares If-Match on a PUT with the bare ETag (measured: the quoted form that
      // HTTP and AWS use always fails with 412, the bare one works); a real mismatch fails both.
      if (condition.IfMatch?.startsWith('"')) return put({ IfMatch: condition.IfMatch.replace(/^"|"$/g, '') });
      return null;
    }
  };
  let etag: string | null = null;
  for (let round = 0; round < 3 && etag === null; round++) {
    etag = await put({ IfNoneMatch: '*' });
    if (etag !== null) break;
    const seen = await readLock(ctx);
    if (seen === null) continue; // released meanwhile
    if (!isStale(seen)) throw heldError(ctx, seen.info);
    etag = await put({ IfMatch: seen.etag });
    if (etag === null) {
      const now = await readLock(ctx);
      if (now !== null) throw heldError(ctx, now.info);
    }
  }
  if (etag === null) throw new DestinationError('locked', `Could not take the lock ${ctx.objectKey} of ${ctx.label}.`);
  // A store that ignored the condition: the lock read back is someone else's.
  const check = await readLock(ctx);
  if (check?.info?.nonce !== mine.nonce) throw heldError(ctx, check?.info ?? null);
  etag = check.etag;

  let released = false;
  let lost = false;
  const timer = setInterval(() => {
    void (async () => {
      if (released || lost) return;
      try {
        const next = await put({ IfMatch: etag! });
        if (next !== null) {
          etag = next || etag;
          return;
        }
        if (!released) {
          lost = true;
          ctx.onLost?.(`The lock of ${ctx.label} was taken over by another sync (this one did not refresh it for ${STALE_MS / 60_000} minutes).`);
        }
      } catch {
        // Other failures (the store unreachable for a moment): the next refresh tries again.
      }
    })();
  }, ctx.refreshMs ?? REFRESH_MS);
  timer.unref();

  return {
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      try {
        const head = await ctx.client.send(new HeadObjectCommand({ Bucket: ctx.bucket, Key: ctx.objectKey }));
        if (head.ETag !== etag) return; // not ours any more
        await ctx.client.send(new DeleteObjectCommand({ Bucket: ctx.bucket, Key: ctx.objectKey }));
      } catch (e) {
        if (isCode(e, 'NoSuchKey', 'NotFound') || statusOf(e) === 404) return;
        throw s3Error(e, ctx.where, 'release the lock');
      }
    },
  };
}
