// The plan of one set: which of its files are up to date (known from the set record: same
// sha256, same size and mtime on disk, nothing hashed), which to adopt or download
// (file-download.ts), and its consents (set-consents.ts), each queued as a step of the set whose
// last one decides the set's outcome (set-outcome.ts: complete, or failed and pending).
import type { SetRecord } from '../../src-shared/delivery-api';
import { filePresence } from './disk-check';
import { participantRefs, writeSetJson } from './dataset';
import { findCollisions } from './collisions';
import { recordParticipants } from './participants-file';
import { relFilePath } from './layout';
import { localFsError } from './local-errors';
import { checkFilename, isPositiveId } from './names';
import { failureCode } from './failure-code';
import type { RunContext } from './run-context';
import { EscapeError } from './destination/destination';
import { emptyLocalSet } from './state/records';
import { transferCost, type SyncPools } from './sync-pools';
import { fileInSubset, setInSubset } from './subset';
import { withdrawFile, withdrawSet } from './withdraw';
import { downloadTask, entryMeta, stageFileOf } from './file-download';
import { consentTask } from './set-consents';
import { failSet, fileFailed, reportNotServed, stepDone, type SetProgress } from './set-outcome';

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

