// The attempts at one file: transferLoop's rounds (open the upload, attemptOnce, commit, close),
// the lean first attempt of a small file (firstWholeAttempt), one request's body streamed into the
// upload (streamToPart), what an answer makes of the file (judgeReply) and the commit that makes
// the verified bytes visible. The rules they answer to are FileTries' (file-tries.ts); the bodies go
// to its receivers (body-sinks.ts, part-sink.ts). Every promise here is made once or more per
// file, so their number is kept down where it was measured: a small file's first attempt is one
// function instead of transferLoop's round (issue 21), a small file's digest is read without a
// promise, and a reply is built field by field (an object spread cost several us per file).
import type { FileResponseHead } from '../../api/delivery-client';
import { ApiError } from '../../api/errors';
import { isFatalFsError, localFsError } from '../local-errors';
import { EscapeError, type ExpectedBody, type Upload } from '../destination/destination';
import type { Sha256Stream } from '../sha256-stream';
import { FolderEscapeError, type TransferJob, type Transferred } from './contract';
import type { BodyReceiver, StreamOutcome } from './body-sinks';
import { rangeAppends, type FileTries } from './file-tries';

export async function transferLoop(tries: FileTries): Promise<Transferred> {
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
export function expectedBodyOf(job: TransferJob): ExpectedBody {
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
export async function firstWholeAttempt(upload: Upload, tries: FileTries): Promise<Transferred | undefined> {
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
