// The engine's one face (DESIGN §2, "Where the engine is going"): everything the app (src-main/app/,
// ipc/, index.ts), the CLI (src-main/cli/) and the engine thread (engine-worker.ts) use of
// src-main/sync/ is exported here, types included, and a lint layer ("engine face",
// eslint.config.js; test/app/layers.test.ts proves it fires) refuses their imports of any other
// engine file. The engine's files can then be split, renamed and rewritten behind it without
// touching a caller. Tests may still reach the internals.
//
// What it offers, by job:
// - runs: `sync` (one incremental sync; `runSync` is the same function under its older name),
//   `repair` (re-hash, then sync exactly what is missing or changed), `createPauseGate` for both;
// - the dataset as it is: `verify`, `listWithdrawn`/`purgeWithdrawn` (the quarantine of what left
//   the dataset), `query` (the app's questions to the set records), `readHistory` (past syncs);
// - where it lives: `parseDestination`/`openDestination` (a text such as `s3://B/P` or a folder
//   path, or a spec, with credentials held in memory), `siblingSpec` (its `.consents` and
//   `.withdrawn`), the folder layout (`stateDir`, `defaultConsentsDir`, `relFilePath`), and whom it
//   belongs to (`readOwner`, `peekOwner`, `bindingConflict`);
// - the CLI's shared rules: `exitCodeFor`, `parseBwlimit`, `MAX_HASH_WORKERS`.
// Next (DESIGN §1.4-1.5), each as one more member here, named in EngineFace below: `watch`
// (rounds of `sync` with a kept interval), `snapshot` (an immutable version of the dataset files),
// `diff` (two snapshots, or one and now) and `export` (folder, BagIt, hf-videofolder).
import { listWithdrawn, purgeWithdrawn } from './withdraw';
import { openDestination, parseDestination, peekOwner, readHistory, readOwner, verify } from './dataset-ops';
import { runRepair } from './repair';
import { runSync } from './run-sync';
import { queryState } from './state/queries';

export { runSync, runSync as sync, type EngineDeps } from './run-sync';
export { runRepair, runRepair as repair } from './repair';
export { verify, openDestination, parseDestination, readOwner, peekOwner, readHistory, stateHome, type DestinationTarget, type OpenOptions, type RecordedOwner, type VerifyOptions } from './dataset-ops';
export type { VerifyStep } from './verify';
export { listWithdrawn, purgeWithdrawn, type WithdrawnSummary } from './withdraw';
// The app's questions about a destination's records (counts, the last run's changes, files of a set, a page of sets).
export { queryState, queryState as query, StateQueries, type DatasetSetsFilter, type RunChanges, type SetStatus, type StateCounts } from './state/queries';
export { rulesOfCollectionJson } from './media/media-check';
export { mediaVerdict } from './media/media-verdict';
export { MEDIA_STAGE } from './media/media-result';
export { bindingConflict, type FolderOwner } from './folder-binding';
export { defaultConsentsDir, relFilePath, stateDir } from './layout';
export { normaliseEndpoint } from './destination/all';
export { siblingSpec } from './destination/open';
export { DestinationError, type BucketCredentials, type Destination, type DestinationSpec } from './destination/destination';
export { createPauseGate } from './task-pool';
export type { PauseGate, ControllablePauseGate } from './task-pool';
export type { RateLimiter } from './accounting';
export type { Clock } from './clock';
export { exitCodeFor } from './outcome';
export { parseBwlimit } from './rate-limit';
export { MAX_HASH_WORKERS } from './sha256-stream';

/**
 * The face as one object type: what a caller may hold instead of importing names one by one
 * (a test double of the whole engine implements this). The members to come are written here
 * as their intended shape, so adding one is adding its line and its module:
 *   watch(options: SyncOptions & { intervalMs: number }, onEvent, deps?): Promise<SyncSummary>;
 *   snapshot(target: DestinationTarget, tag: string, message?: string): Promise<SnapshotRecord>;
 *   diff(target: DestinationTarget, from: string, to?: string): AsyncIterable<DiffLine>;
 *   export(target: DestinationTarget, options: { snapshot?: string; format: 'folder' | 'bagit' | 'hf-videofolder'; out: string }): Promise<ExportSummary>;
 */
export interface EngineFace {
  sync: typeof runSync;
  repair: typeof runRepair;
  verify: typeof verify;
  purgeWithdrawn: typeof purgeWithdrawn;
  listWithdrawn: typeof listWithdrawn;
  query: typeof queryState;
  readHistory: typeof readHistory;
  openDestination: typeof openDestination;
  parseDestination: typeof parseDestination;
  readOwner: typeof readOwner;
  peekOwner: typeof peekOwner;
}

/** The face as one object (see EngineFace). */
export const engine: EngineFace = { sync: runSync, repair: runRepair, verify, purgeWithdrawn, listWithdrawn, query: queryState, readHistory, openDestination, parseDestination, readOwner, peekOwner };
