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
//
// This file is the entry (transferFile) and the face file-download.ts imports. The jobs are in transfer/,
// one a module (issue 69), each saying why its shapes are what they are:
//   transfer/contract.ts     what a transfer is given and answers: TransferJob, TransferContext, the errors
//   transfer/file-tries.ts   FileTries: the rules every attempt answers to, its hash and taps, the receiver choice
//   transfer/attempts.ts     the attempts: transferLoop, firstWholeAttempt, attemptOnce, judgeReply, the commit
//   transfer/body-sinks.ts   what every body receiver shares (CountedBody), and WholeBodySink for small bodies
//   transfer/part-sink.ts    PartSink: coalesced writes, back-pressure and the stall watchdog of large bodies
//   transfer/tapped-hash.ts  the hash that also feeds the stages' taps
// They were one file (780 lines) and were split without a change of behaviour: a call across them is
// a plain call of an imported function, as it was within one file; no wrapper, object or promise was
// added per file or per chunk.
import { newActiveTransfer } from './accounting';
import type { TransferContext, TransferJob, Transferred } from './transfer/contract';
import { WHOLE_BODY_MAX_BYTES } from './transfer/body-sinks';
import { FileTries } from './transfer/file-tries';
import { expectedBodyOf, firstWholeAttempt, transferLoop } from './transfer/attempts';

export type { TransferContext, TransferJob, Transferred } from './transfer/contract';
export { FileFailedError, FolderEscapeError } from './transfer/contract';
export { parseContentRange } from './transfer/file-tries';

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
