// The plan of one set: which of its files are up to date (known from the set record: same
// sha256, same size and mtime on disk, nothing hashed), which to adopt or download, its consents,
// and the set's outcome once every step is done (complete, or failed and pending).
import { ApiError, isApiError } from '../api/errors';
import type { ConsentRef, FileRecord, SetRecord } from '../../src-shared/delivery-api';
import { consentStored, writeConsent } from './consents';
import { filePresence } from './disk-check';
import { participantRefs, writeSetJson } from './dataset';
import { findCollisions } from './collisions';
import { recordParticipants } from './participants-file';
import { relFilePath } from './layout';
import { localFsError } from './local-errors';
import { checkFilename, isPositiveId } from './names';
import { failureCode } from './failure-code';
import { withRetry } from './retry';
import type { FailureCode } from '../../src-shared/sync-events';
import type { RunContext } from './run-context';
import { EscapeError } from './destination/destination';
import type { StageTaps } from './stages/pipeline';
import type { StageFile } from './stages/stage';
import { emptyLocalSet, stampFields, type FileEntry } from './state/records';
import type { ListingFields, SetView } from './state/engine-store';
import { COMMITTING_BYTES_MAX, transferCost, type SyncPools } from './sync-pools';
import { FileFailedError, FolderEscapeError, transferFile, type TransferJob } from './transfer';
import { fileInSubset, setInSubset } from './subset';
import { withdrawFile, withdrawSet } from './withdraw';

interface SetProgress {
  set: SetRecord;
  /** The set's record as the plan found it (read-only: what happens to it goes to the store as intents). */
  local: SetView;
  outstanding: number;
  /** Why steps of the set failed, in order; the first one's code is the set's. */
  failures: Array<{ reason: string; code: FailureCode }>;
  /** Sizes of the files queued for download (progress: the bytes of a set that ended). */
  queuedBytes: number;
  /** Whether set.json was written (its folder made), once known: a download then need not wait on folderReady. */
  folderMade?: boolean;
}

type EntryMeta = ListingFields;

function entryMeta(set: SetRecord, file: FileRecord, refs: string): EntryMeta {
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

/** A set that failed as a whole before any of its files was looked at (reported, counted). */
export function failSet(ctx: RunContext, setId: number, reason: string, code: FailureCode, event = true): void {
  ctx.accounting.recordFailure({ setId, reason, code });
  ctx.accounting.setsFailed++;
  if (event) ctx.emit({ type: 'set', setId, state: 'failed', files: 0, isGold: false, reason, code });
}

/** A set the service no longer serves as accepted: reported, its local files kept. */
export function reportNotServed(ctx: RunContext, id: number, reason: string): void {
  ctx.accounting.notServed(id);
  const local = ctx.state.store.get(id);
  ctx.emit({ type: 'set', setId: id, state: 'not_served', files: local ? Object.keys(local.files).length : 0, isGold: local?.isGold ?? false, reason });
}

/**
 * Plans one set handed over by the walk or fetched again: writes set.json, queues what must be
 * downloaded and its consents. Resolves once everything is queued (the pool runs it);
 * `accepted` tells whether the set counts for the watermark.
 */
export async function syncSet(ctx: RunContext, set: SetRecord, pools: SyncPools): Promise<{ accepted: boolean }> {
  if (!isPositiveId(set.id)) {
    failSet(ctx, set.id, `set id ${set.id} is not a positive integer`, 'bad_listing', false);
    return { accepted: false };
  }
  const state = ctx.state;
  if (set.status !== 'accepted') {
    // A set that left accepted leaves the dataset: moved to DEST.withdrawn/<id>/ (withdraw.ts).
    state.store.dropPending(set.id);
    const moved = await withdrawSet(ctx, set.id, set, `the set is now "${set.status}": moved to ${ctx.withdrawn.label}`).catch((e) => {
      throw localFsError(e, `move set ${set.id} to ${ctx.withdrawn.label}`);
    });
    if (!moved) reportNotServed(ctx, set.id, `the set is now "${set.status}"`);
    return { accepted: false };
  }
  ctx.accounting.sets++;
  if (set.is_gold && ctx.excludeGold) {
    state.store.dropPending(set.id);
    ctx.accounting.setsSkipped++;
    ctx.emit({ type: 'set', setId: set.id, state: 'skipped_gold', files: set.files.length, isGold: true });
    return { accepted: true };
  }
  if (!setInSubset(set, ctx.subset)) {
    // Outside the chosen quota groups: never downloaded; what the dataset held of it moves out.
    state.store.dropPending(set.id);
    ctx.accounting.setsSkipped++;
    const moved = await withdrawSet(ctx, set.id, set, `no participant in the chosen quota groups: moved to ${ctx.withdrawn.label}`).catch((e) => {
      throw localFsError(e, `move set ${set.id} to ${ctx.withdrawn.label}`);
    });
    if (!moved) ctx.emit({ type: 'set', setId: set.id, state: 'skipped_subset', files: set.files.length, isGold: set.is_gold });
    return { accepted: true };
  }
  const collision = findCollisions(set);
  if (collision !== null) {
    // Nothing of the set is written or downloaded; its verified files stay as they are.
    state.store.addPending(set.id);
    failSet(ctx, set.id, collision, 'bad_listing');
    return { accepted: true };
  }
  const damage = ctx.damaged.get(set.id);
  ctx.emit({ type: 'set', setId: set.id, state: 'discovered', files: set.files.length, isGold: set.is_gold, ...(damage ? { reason: damage } : {}) });
  // Counted in `sets` above, the set is "queuing" until its last file is queued, the await of its
  // set.json included: a set with nothing queued yet must not lower the progress estimate's
  // per-set average (a loaded machine held several sets there, and the bar said 37 % with 29 %
  // of the bytes on disk).
  ctx.accounting.setsQueuing++;
  try {
    await planFiles(ctx, set, pools);
  } finally {
    ctx.accounting.setsQueuing--;
  }
  return { accepted: true };
}

/**
 * Writes set.json as a step of the set: the walk does not wait for it (a round trip to the file
 * writer per set would pace the walk, issue 21), the set's files do (its folder is where they are
 * committed). Resolves true once written; false when it failed (recorded as the set's failure, or
 * the end of the sync when the disk failed). Tracked with the step it ends (in-flight.ts): for a
 * set with no file to fetch that step is the set's last, and may come after the pools are idle.
 */
function startSetJson(ctx: RunContext, sp: SetProgress): Promise<boolean> {
  sp.outstanding++;
  const written = writeSetJson(ctx.dest, sp.set).then(
    () => {
      sp.folderMade = true;
      stepDone(ctx, sp);
      return true;
    },
    (e: unknown) => {
      const err = localFsError(e, `write set.json of set ${sp.set.id}`);
      if (!ctx.endsSync(err)) {
        // A set folder leading out of DEST fails this set only (its entries are checked again at the end).
        if (err instanceof EscapeError) ctx.escaped.add(sp.set.id);
        sp.failures.push({ reason: `set.json of set ${sp.set.id}: ${err.message}`, code: failureCode(err) });
      }
      sp.folderMade = false;
      stepDone(ctx, sp);
      return false;
    },
  );
  return ctx.inFlight.track(written);
}

async function planFiles(ctx: RunContext, set: SetRecord, pools: SyncPools): Promise<void> {
  const sp: SetProgress = { set, local: ctx.state.store.get(set.id) ?? emptyLocalSet(set.id), outstanding: 1, failures: [], queuedBytes: 0 };
  const folderReady = startSetJson(ctx, sp);
  recordParticipants(ctx.state, set); // participants.csv is written from the records
  const refs = participantRefs(set);
  const names = new Set<string>();
  const acc = ctx.accounting;
  let queuedFiles = 0;
  try {
    for (const file of set.files) {
      const problem = checkFilename(file.filename, set.id, file.slot_index) ?? (names.has(file.filename) ? `file name ${file.filename} appears twice in set ${set.id}` : null);
      if (problem || !isPositiveId(file.id)) {
        const reason = problem ?? `file id ${file.id} is not a positive integer`;
        fileFailed(ctx, sp, file, `set ${set.id}, file ${file.id}`, reason, 'bad_listing');
        continue;
      }
      names.add(file.filename);
      const rel = relFilePath(set.id, file.filename);
      const entry = sp.local.files[rel];
      if (!fileInSubset(file, ctx.subset)) {
        // A slot outside the chosen ones: never downloaded; a copy the dataset held moves out.
        if (entry) {
          await withdrawFile(ctx, set.id, rel).catch((e) => {
            throw localFsError(e, `move ${rel} to ${ctx.withdrawn.label}`);
          });
        }
        continue;
      }
      const sameFile = entry !== undefined && entry.sha256 === file.sha256 && entry.sizeBytes === file.size_bytes;
      const onDisk = sameFile ? await filePresence(ctx.dest, rel, entry) : null;
      if (sameFile && onDisk === null) {
        // Same bytes; the listing around them may have changed (the store writes only a change).
        ctx.state.store.updateListing(set.id, rel, entryMeta(set, file, refs));
        acc.filesUpToDate++;
        ctx.emit({ type: 'file', setId: set.id, fileId: file.id, path: rel, sizeBytes: file.size_bytes, state: 'up_to_date' });
        ctx.stages.verified(stageFileOf(set.id, rel, file), 'up_to_date', undefined);
        continue;
      }
      sp.outstanding++;
      sp.queuedBytes += file.size_bytes;
      acc.fileQueued(file.size_bytes);
      queuedFiles++;
      acc.bytesQueuing += file.size_bytes;
      acc.filesQueuing++;
      // A verified copy that is gone or differs is fetched again (resuming a part file if one is held).
      ctx.emit({ type: 'file', setId: set.id, fileId: file.id, path: rel, sizeBytes: file.size_bytes, state: 'queued', ...(onDisk ? { reason: onDisk } : {}) });
      await pools.transfers.push((release) => downloadTask(ctx, sp, file, rel, refs, folderReady, { release, committing: pools.committing }), transferCost(file.size_bytes, pools.perSlot));
    }
  } finally {
    acc.bytesQueuing -= sp.queuedBytes;
    acc.filesQueuing -= queuedFiles;
  }
  // Consents go out before the files queue drains, each request on its own (a set's in parallel).
  for (const p of set.participants) {
    const ref = p.consent;
    if (ref === null) continue;
    if (!isPositiveId(ref.id)) {
      sp.failures.push({ reason: `consent id ${ref.id} is not a positive integer`, code: 'bad_listing' });
      continue;
    }
    sp.outstanding++;
    await pools.consents.push(() => consentTask(ctx, sp, ref));
  }
  stepDone(ctx, sp); // the planning step itself
}

function fileFailed(ctx: RunContext, sp: SetProgress, file: FileRecord, rel: string, reason: string, code: FailureCode): void {
  sp.failures.push({ reason, code });
  ctx.accounting.filesFailed++;
  ctx.accounting.recordFailure({ setId: sp.set.id, fileId: file.id, path: rel, reason, code });
  ctx.emit({ type: 'file', setId: sp.set.id, fileId: file.id, path: rel, sizeBytes: file.size_bytes, state: 'failed', reason, code });
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
function stageFileOf(setId: number, rel: string, file: FileRecord): StageFile {
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

async function downloadTask(
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

async function consentTask(ctx: RunContext, sp: SetProgress, ref: ConsentRef): Promise<void> {
  try {
    if (ctx.signal.aborted) return;
    // A record under its final name was written whole (temp file + rename): nothing to fetch.
    // Asked here, in the consents' own pool, so the walk never waits on the consents folder.
    if (await consentStored(ctx.consents, ref.id)) return;
    const record = await withRetry(ctx.policy, () => ctx.client.getConsent(ref.url, ctx.signal), { signal: ctx.signal });
    if (record.id !== ref.id) throw new ApiError('malformed', `consent ${ref.id}: the service returned consent ${record.id}`);
    await writeConsent(ctx.consents, ref.id, record).catch((e) => {
      throw localFsError(e, `write consent ${ref.id}`);
    });
  } catch (e) {
    if (ctx.endsSync(e)) return;
    const reason = `consent ${ref.id}: ${(e as Error).message}`;
    const code = failureCode(e);
    sp.failures.push({ reason, code });
    ctx.accounting.recordFailure({ setId: sp.set.id, reason, code });
  } finally {
    stepDone(ctx, sp);
  }
}

/** One step of the set finished; the last one decides the set's outcome. */
function stepDone(ctx: RunContext, sp: SetProgress): void {
  if (--sp.outstanding > 0) return;
  const set = sp.set;
  const state = ctx.state;
  if (ctx.signal.aborted && sp.failures.length === 0) {
    state.store.addPending(set.id); // unfinished: the next sync picks it up whatever the watermark
    return;
  }
  ctx.accounting.bytesOfEndedSets += sp.queuedBytes;
  if (sp.failures.length === 0) {
    removeReplacedFiles(ctx, sp);
    state.store.setOutcome(set.id, { updatedAt: set.updated_at, isGold: set.is_gold, complete: true });
    state.store.dropPending(set.id);
    ctx.accounting.setsComplete++;
    ctx.emit({ type: 'set', setId: set.id, state: 'complete', files: set.files.length, isGold: set.is_gold });
  } else {
    state.store.setOutcome(set.id, { updatedAt: set.updated_at, isGold: set.is_gold, complete: false });
    state.store.addPending(set.id);
    ctx.accounting.setsFailed++;
    const reason = sp.failures
      .slice(0, 3)
      .map((f) => f.reason)
      .join('; ');
    ctx.emit({ type: 'set', setId: set.id, state: 'failed', files: set.files.length, isGold: set.is_gold, reason, code: sp.failures[0]!.code });
  }
}

/** An edit that renamed a slot's file (e.g. a new extension) replaces the old file of that slot. */
function removeReplacedFiles(ctx: RunContext, sp: SetProgress): void {
  const { set, local } = sp;
  const current = new Map(set.files.map((f) => [f.slot_index, relFilePath(set.id, f.filename)]));
  for (const [rel, entry] of Object.entries(local.files)) {
    const now = current.get(entry.slotIndex);
    if (now !== undefined && now !== rel) {
      ctx.state.store.dropFiles(set.id, [rel], 'replaced');
      void ctx.inFlight.track(ctx.dest.remove(rel).catch(() => undefined));
    }
  }
}
