// `verify --repair` and the app's Repair action (DESIGN 1.2): re-hash the dataset, stop trusting
// the files that are missing or changed, then sync exactly their sets so they are downloaded
// again. A changed file may keep its size and mtime, so the sync's cheap stat check would take
// it for verified: its entry is removed from the set store first (under the lock), and the file
// is then replaced by rename once its download verified. Extra files are listed by verify and
// never deleted here.
import path from 'node:path';
import { runSync } from './engine';
import type { SyncEvent, SyncOptions, SyncSummary, VerifyReport } from '../../src-shared/sync-events';
import { acquireLock, LockHeldError } from './lock';
import { isPositiveId } from './names';
import { SetStore } from './set-store';
import { loadState, saveState } from './state';
import { verifyDataset } from './verify';

/** sets/<id>/<name> -> id; null for anything else (a hand-edited manifest line). */
function setIdOf(rel: string): number | null {
  const m = /^sets\/(\d+)\/[^/]+$/.exec(rel);
  const id = m ? Number(m[1]) : NaN;
  return isPositiveId(id) ? id : null;
}

/** The sets to sync again: those holding a missing or changed file. */
export function setsToRepair(report: Pick<VerifyReport, 'missing' | 'changed'>): number[] {
  const ids = new Set<number>();
  for (const rel of [...report.missing, ...report.changed]) {
    const id = setIdOf(rel);
    if (id !== null) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}

/**
 * Removes the entries of the bad files from the set store and queues their sets, so the next
 * sync neither trusts nor lists them. Throws RepairConfigError when DEST holds another collection.
 */
async function invalidate(dest: string, collectionId: number, bad: string[]): Promise<void> {
  const lock = await acquireLock(dest);
  try {
    const { state } = await loadState(dest);
    if (state.collectionId !== null && state.collectionId !== collectionId) {
      throw new RepairConfigError(`${dest} holds collection ${state.collectionId}, not ${collectionId}.`);
    }
    const store = SetStore.open(dest);
    try {
      for (const rel of bad) {
        const id = setIdOf(rel);
        const local = id === null ? undefined : store.get(id);
        if (id === null || !local) continue;
        if (local.files[rel]) delete local.files[rel];
        local.complete = false;
        store.put(local);
        if (!state.pendingSets.includes(id)) state.pendingSets.push(id);
      }
      store.flush();
    } finally {
      store.close();
    }
    state.index = undefined; // manifest.csv and SHA256SUMS no longer tell the truth
    await saveState(dest, state);
  } finally {
    await lock.release();
  }
}

class RepairConfigError extends Error {}

/**
 * Verifies DEST by hash (or takes `report` from a verify just done), invalidates the missing
 * and changed files, and syncs their sets. The summary is the sync's; a lock held by another
 * sync is its `locked` fatal error.
 */
export async function runRepair(options: SyncOptions, onEvent: (e: SyncEvent) => void, report?: VerifyReport): Promise<SyncSummary> {
  const dest = path.resolve(options.dest);
  const verified = report ?? (await verifyDataset(dest));
  const bad = [...verified.missing, ...verified.changed];
  const sets = setsToRepair(verified);
  try {
    await invalidate(dest, options.collectionId, bad);
  } catch (e) {
    if (e instanceof LockHeldError) return stoppedSummary(options, dest, { kind: 'locked', message: e.message });
    if (e instanceof RepairConfigError) return stoppedSummary(options, dest, { kind: 'config', message: e.message });
    return stoppedSummary(options, dest, { kind: 'local_fs', message: `Could not prepare the repair of ${dest}: ${(e as Error).message}` });
  }
  return runSync({ ...options, onlySets: sets }, onEvent);
}

/** The summary of a repair that stopped before its sync started (exit 2). */
function stoppedSummary(options: SyncOptions, dest: string, fatal: { kind: string; message: string }): SyncSummary {
  const now = new Date().toISOString();
  return {
    collectionId: options.collectionId,
    dest,
    sets: 0,
    setsComplete: 0,
    setsFailed: 0,
    setsNotServed: [],
    filesDownloaded: 0,
    filesUpToDate: 0,
    filesFailed: 0,
    bytesDownloaded: 0,
    bytesHashed: 0,
    requests: 0,
    failures: [],
    watermark: null,
    startedAt: now,
    finishedAt: now,
    durationMs: 0,
    exitCode: 2,
    cancelled: false,
    fatal,
  };
}
