// What the window shows of one collection's sync: a row per transfer, counts per file state, the
// aggregate progress and the set tally. Apart from the store (sync.ts) and the reducer
// (sync-reducer.ts) so the components, the reducer and the tests share these shapes without
// pulling in zustand or the IPC bridge.
import type { SyncRunState } from '../../src-shared/ipc-contract';
import { fileKey, type FailureCode, type FileState, type SyncPhase, type SyncSummary } from '../../src-shared/sync-events';

export interface FileRow {
  fileId: number;
  setId: number;
  path: string;
  sizeBytes: number;
  state: FileState;
  bytesDone: number;
  attempt?: number;
  reason?: string;
  /** Why it failed or is retried (the engine's FailureCode); the window's words come from it. */
  code?: FailureCode;
  /** Set on the card's rows of what the last Verify found missing or changed on disk: its words, not a download's. */
  damage?: 'missing' | 'changed';
  /** While the file is in flight: its own received rate over the last seconds (ProgressEvent.active). */
  bytesPerSecond?: number;
}

export interface AggregateProgress {
  bytesDone: number;
  bytesTotal: number;
  filesDone: number;
  filesTotal: number;
  bytesPerSecond: number;
  etaSeconds: number | null;
  /** The engine's own share done (0..1, never going back), of the best known total (ProgressEvent.fraction). */
  fraction?: number;
  setsDone?: number;
  setsTotal?: number;
  phase?: SyncPhase;
  /** Everything the sync is doing now, `phase` first (listing and downloading overlap). */
  phases?: SyncPhase[];
  /** Sets are still being listed: the totals below are estimates (ProgressEvent.estimated). */
  estimated?: boolean;
  /** The best known totals: exact once `estimated` is false; null until a set is listed. */
  bytesTotalEstimate?: number | null;
  filesTotalEstimate?: number | null;
  /** While the set list waits to be fetched again: the next attempt and whole seconds until it starts. */
  retry?: { attempt: number; of: number; inSeconds: number };
  /** The engine says nothing is received now (ProgressEvent.paused). */
  paused?: boolean;
  /** While phase is `checking_media`: the files whose media check has not ended (ProgressEvent.mediaLeft). */
  mediaLeft?: number;
}

export interface SetTally {
  discovered: number;
  complete: number;
  failed: number;
  skippedGold: number;
  notServed: number;
}

export const FILE_STATES: readonly FileState[] = ['queued', 'downloading', 'retrying', 'verified', 'up_to_date', 'failed'];

export interface CollectionSyncView {
  running: boolean;
  startedAt: string | null;
  /** Held by Pause (or by the low-space question): main's word, from sync:state. */
  paused: boolean;
  /** The bytes still to download outgrew the free space: the sync waits for "download anyway" or Cancel. */
  lowSpace: SyncRunState['lowSpace'];
  /** A verify runs in main (from whichever window started it): no sync may start. */
  verifying: boolean;
  full: boolean;
  /**
   * In the order files were first reported; `indexById` finds a row in O(1) by `rowKey` (set and
   * file: the engine allows one file id in two sets, and each is its own transfer).
   */
  rows: FileRow[];
  indexById: Map<string, number>;
  stateCounts: Record<FileState, number>;
  progress: AggregateProgress | null;
  sets: SetTally;
  warnings: string[];
  lastSummary: SyncSummary | null;
  /** Files whose media check found a problem (`media` events), by path: kept across runs until a check finds the file ok. */
  mediaProblems: Record<string, MediaProblem>;
}

/** A file's media check that is not ok (media.csv's `rules`/`listing` and the findings in plain words). */
export interface MediaProblem {
  setId: number;
  rules: string;
  listing: string;
  problems: string[];
}

// Exported for the store too: a verify clears the rows, and their counts with them.
export function emptyCounts(): Record<FileState, number> {
  return { queued: 0, downloading: 0, retrying: 0, verified: 0, up_to_date: 0, failed: 0 };
}

/** A transfer row's identity: its file's in the event stream (set and file; one file id may be in two sets). */
export const rowKey = fileKey;

export function emptySyncView(): CollectionSyncView {
  return {
    running: false,
    startedAt: null,
    paused: false,
    lowSpace: null,
    verifying: false,
    full: false,
    rows: [],
    indexById: new Map(),
    stateCounts: emptyCounts(),
    progress: null,
    sets: { discovered: 0, complete: 0, failed: 0, skippedGold: 0, notServed: 0 },
    warnings: [],
    lastSummary: null,
    mediaProblems: {},
  };
}
