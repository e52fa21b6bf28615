// One file's download as a step of its set: it waits for the set's folder (set.json), adopts a
// verified copy the destination already holds, else transfers it (transfer.ts), then records the
// verified entry and tells the stages. Apart from the plan (set-plan.ts) because this is the path
// every fetched file takes, kept lean on purpose: FileDownload is one object per file and isoTime
// keeps the last millisecond's text (the measured reasons are in the comments below). A file's
// listing fields (entryMeta) and the stages' view of it (stageFileOf) are here too; the plan uses
// them for the files already up to date.
import { isApiError } from '../api/errors';
import type { FileRecord, SetRecord } from '../../src-shared/delivery-api';
import { failureCode } from './failure-code';
import type { FailureCode } from '../../src-shared/sync-events';
import type { RunContext } from './run-context';
import type { StageTaps } from './stages/pipeline';
import type { StageFile } from './stages/stage';
import { stampFields, type FileEntry } from './state/records';
import type { ListingFields } from './state/engine-store';
import { COMMITTING_BYTES_MAX } from './sync-pools';
import { FileFailedError, FolderEscapeError, transferFile, type TransferJob } from './transfer';
import { fileFailed, stepDone, type SetProgress } from './set-outcome';

type EntryMeta = ListingFields;

/** What the store keeps of a file as listed (the same for a file up to date and one just verified). */
export function entryMeta(set: SetRecord, file: FileRecord, refs: string): EntryMeta {
  return {
    setId: set.id,
    fileId: file.id,
    slotIndex: file.slot_index,
    slotKey: file.slot_key,
    sizeBytes: file.size_bytes,
    sha256: file.sha256,
    participantRefs: refs,
    isGold: set.is_gold,
    acceptedAt: set.accepted_at,
    updatedAt: set.updated_at,
  };
}

/**
 * The record of a file just verified: entryMeta's fresh object with the stamp and the time added
 * to it, not both spread into a new one (6 us a file against 0.5 us in a micro-benchmark; the
 * spreads' line was the hottest of the engine's thread in a profile of a first sync).
 */
function downloadedEntry(set: SetRecord, file: FileRecord, refs: string, stamp: string, downloadedAt: string): FileEntry {
  const { mtimeMs, stamp: stampText } = stampFields(stamp);
  const entry: EntryMeta & Partial<FileEntry> = entryMeta(set, file, refs);
  entry.mtimeMs = mtimeMs;
  if (stampText !== undefined) entry.stamp = stampText;
  entry.downloadedAt = downloadedAt;
  return entry as FileEntry;
}

let lastIsoMs = Number.NaN;
let lastIso = '';

/** `new Date(ms).toISOString()`, remembered for the last millisecond asked: files verified in the same turn share one. */
function isoTime(ms: number): string {
  if (ms !== lastIsoMs) {
    lastIso = new Date(ms).toISOString();
    lastIsoMs = ms;
  }
  return lastIso;
}

/**
 * A final file present with the right bytes but unknown to the state (e.g. a crash before the
 * state was saved) is adopted: the destination vouches for it (a folder hashes a regular file
 * of the right size, never a link or FIFO; a bucket trusts its sha256 metadata). Its stamp, or
 * null (the download then replaces whatever is there).
 */
async function adoptExisting(ctx: RunContext, rel: string, file: FileRecord): Promise<string | null> {
  let found;
  try {
    found = await ctx.dest.verifiedCopy(rel, { size: file.size_bytes, sha256: file.sha256 });
  } catch {
    return null;
  }
  if (found === null) return null;
  // Without a vouched hash the destination read the bytes to know them.
  if (found.sha256 === undefined) ctx.accounting.bytesHashed += file.size_bytes;
  return found.stamp;
}

/** A file of the listing as the stages see it (stages/stage.ts). */
export function stageFileOf(setId: number, rel: string, file: FileRecord): StageFile {
  return { setId, fileId: file.id, path: rel, sha256: file.sha256, sizeBytes: file.size_bytes, listedMedia: file.media };
}

/**
 * A partial download is keyed by set id, file id and expected hash: an edited file never resumes
 * on old bytes, and two transfers never share held bytes (a file id listed in two sets gets two;
 * the same id twice in one set fails the set, collisions.ts). A folder names its part file so.
 */
function resumeKeyOf(setId: number, fileId: number, sha256: string): string {
  return `${setId}-${fileId}-${sha256}`;
}

/** The transfer slot of a download: given back once its bytes only wait for a commit to the local disk, within the committing budget. */
interface TransferSlot {
  release(): void;
  committing: { bytes: number };
}

/**
 * One download's TransferJob: the file's facts and its two hooks as methods, one object per file
 * instead of two closures and a TransferContext literal per file (the run's context is the
 * TransferContext).
 */
class FileDownload implements TransferJob {
  readonly fileId: number;
  readonly url: string;
  readonly sizeBytes: number;
  readonly sha256: string;
  readonly resumeKey: string;
  /** The file as the stages see it (their taps are asked for it at every attempt). */
  readonly stageFile: StageFile;
  /** Bytes counted in slot.committing while this download commits without its slot. */
  committing = 0;

  constructor(
    private readonly ctx: RunContext,
    private readonly setId: number,
    file: FileRecord,
    readonly relPath: string,
    private readonly slot: TransferSlot,
  ) {
    this.fileId = file.id;
    this.url = file.url;
    this.sizeBytes = file.size_bytes;
    this.sha256 = file.sha256;
    this.resumeKey = resumeKeyOf(setId, file.id, file.sha256);
    this.stageFile = stageFileOf(setId, relPath, file);
  }

  taps(): StageTaps | undefined {
    return this.ctx.stages.taps(this.stageFile);
  }

  /**
   * The next request goes out while this file is written (the service works while we write), instead
   * of after the file writer's answer: a slot held through the commit made requests leave in bursts.
   */
  committingLocally(): void {
    const slot = this.slot;
    if (slot.committing.bytes + this.sizeBytes > COMMITTING_BYTES_MAX) return;
    this.committing = this.sizeBytes;
    slot.committing.bytes += this.committing;
    slot.release();
  }

  onRetry(attempt: number, reason: string, bytesDone: number, code: FailureCode): void {
    this.ctx.emit({ type: 'file', setId: this.setId, fileId: this.fileId, path: this.relPath, sizeBytes: this.sizeBytes, state: 'retrying', attempt, reason, code, bytesDone });
  }

  /** Gives back what committingLocally counted. */
  committed(): void {
    this.slot.committing.bytes -= this.committing;
    this.committing = 0;
  }
}

export async function downloadTask(
  ctx: RunContext,
  sp: SetProgress,
  file: FileRecord,
  rel: string,
  refs: string,
  folderReady: Promise<boolean>,
  slot: TransferSlot,
): Promise<void> {
  const set = sp.set;
  const acc = ctx.accounting;
  let download: FileDownload | undefined;
  try {
    if (ctx.signal.aborted) return;
    if (!(sp.folderMade ?? (await folderReady))) {
      // set.json could not be written (its failure is the set's): nothing of the set is fetched.
      if (ctx.signal.aborted) return;
      acc.filesDone++;
      fileFailed(ctx, sp, file, rel, `not downloaded: set.json of set ${set.id} could not be written`, sp.failures[0]?.code ?? 'storage');
      return;
    }
    const known = sp.local.files[rel];
    const adopted = known?.sha256 === file.sha256 || !known ? await adoptExisting(ctx, rel, file) : null;
    let stamp: string;
    let taps: StageTaps | undefined;
    if (adopted !== null) {
      stamp = adopted;
      acc.bytesDone += file.size_bytes;
    } else {
      ctx.emit({ type: 'file', setId: set.id, fileId: file.id, path: rel, sizeBytes: file.size_bytes, state: 'downloading', bytesDone: 0 });
      download = new FileDownload(ctx, set.id, file, rel, slot);
      ({ stamp, taps } = await transferFile(download, ctx));
      acc.filesDownloaded++;
    }
    ctx.state.store.recordVerified(set.id, rel, downloadedEntry(set, file, refs, stamp, isoTime(ctx.clock.now())));
    acc.filesDone++;
    ctx.emit({ type: 'file', setId: set.id, fileId: file.id, path: rel, sizeBytes: file.size_bytes, state: 'verified', bytesDone: file.size_bytes });
    ctx.stages.verified(download?.stageFile ?? stageFileOf(set.id, rel, file), adopted !== null ? 'adopted' : 'downloaded', taps);
    ctx.state.saveSoon();
  } catch (e) {
    if (ctx.endsSync(e)) return;
    if (e instanceof FolderEscapeError) ctx.escaped.add(set.id);
    acc.filesDone++;
    const reason = e instanceof FileFailedError || isApiError(e) ? (e as Error).message : `unexpected error: ${(e as Error)?.message ?? String(e)}`;
    fileFailed(ctx, sp, file, rel, reason, failureCode(e));
  } finally {
    download?.committed();
    stepDone(ctx, sp);
  }
}
