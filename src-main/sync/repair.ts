// `verify --repair` and the app's Repair action (docs/contracts.md §2): re-hash the dataset, then sync
// exactly the sets holding a missing or changed file, after the set records stop vouching for
// those files (repair-plan.ts, done by the sync under its lock). Extra files are listed by
// verify and never deleted.
import type { SyncEvent, SyncOptions, SyncSummary, VerifyReport } from '../../src-shared/sync-events';
import { verify } from './dataset-ops';
import { runSync, type EngineDeps } from './run-sync';

/**
 * Verifies DEST by hash (or takes `report` from a verify just made) and syncs the missing and
 * changed files again. The summary is the sync's (a lock held by another sync is its `locked`
 * fatal error; another service or collection than the folder's is `config`).
 */
export async function runRepair(options: SyncOptions, onEvent: (e: SyncEvent) => void, report?: VerifyReport, deps: EngineDeps = {}): Promise<SyncSummary> {
  // The destination injected, else the one options.dest names (any backend, read as the sync reads it).
  const verified = report ?? (await verify(deps.destination ?? options.dest, options.s3Endpoint ? { endpoint: options.s3Endpoint } : {}));
  return runSync({ ...options, repair: { files: [...verified.missing, ...verified.changed] } }, onEvent, deps);
}
