// View state of syncs, one entry per collection of the active account. The engine's state of
// record is on disk in main; this store only folds the batched `sync:events` into rows and an
// aggregate to show.
import { create } from 'zustand';
import type { HistoryEntry, IpcError, IpcResult, SyncRunState, VerifyProgress } from '../../src-shared/ipc-contract';
import { fileKey, type FailureCode, type FileState, type SyncEvent, type SyncPhase, type SyncSummary, type VerifyReport } from '../../src-shared/sync-events';
import { invoke } from '../api';

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
const FINISHED_STATES: ReadonlySet<FileState> = new Set(['verified', 'up_to_date', 'failed']);

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

interface VerifyEntry {
  running: boolean;
  report: VerifyReport | null;
  error: IpcError | null;
  /** The running verify's latest progress (verify:progress). */
  progress?: VerifyProgress | null;
  /** The last verify was cancelled (no report: it would describe part of the dataset). */
  cancelled?: boolean;
}

interface SyncStore {
  byCollection: Record<number, CollectionSyncView>;
  /** Past runs of the collection's current folder; undefined until loaded (or after the folder changed). */
  history: Record<number, HistoryEntry[]>;
  historyError: Record<number, IpcError | null>;
  verify: Record<number, VerifyEntry>;
  /** Errors of start/cancel, per collection, shown next to the Sync button. */
  actionError: Record<number, IpcError | null>;
  /** What the latest run started here was: a repair touches only the damaged files' sets, so its tally says so. */
  runKind: Record<number, 'sync' | 'repair'>;
  applyEvents(collectionId: number, events: SyncEvent[]): void;
  applyRunState(state: SyncRunState): void;
  /** `spaceConfirmed`: the user already chose to sync although it would not fit (the run does not ask again). */
  start(collectionId: number, full?: boolean, spaceConfirmed?: boolean): Promise<void>;
  /** Downloads again what the last verify found missing or changed; shows like a sync. */
  repair(collectionId: number): Promise<void>;
  cancel(collectionId: number): Promise<void>;
  /** Holds the running sync; partial files and the walk's place are kept. */
  pause(collectionId: number): Promise<void>;
  /** Goes on after Pause, or after the low-space question ("download anyway"). */
  resume(collectionId: number): Promise<void>;
  cancelVerify(collectionId: number): Promise<void>;
  applyVerifyProgress(progress: VerifyProgress): void;
  refreshState(collectionId: number): Promise<void>;
  loadHistory(collectionId: number): Promise<void>;
  runVerify(collectionId: number): Promise<void>;
  /** Another folder was chosen: the old folder's runs and rows no longer describe this dataset. */
  forgetDataset(collectionId: number): void;
  /** Forgets every collection's view (another account is now active). */
  reset(): void;
}

function emptyCounts(): Record<FileState, number> {
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

// Bounded so a sync that warns on every file cannot grow the view without limit.
const MAX_WARNINGS = 50;

/**
 * Folds one batch into a new view. Pure: copies the rows array once per batch (not per event),
 * so a batch touching a few of thousands of rows stays cheap and React sees a new reference.
 */
export function reduceSyncEvents(view: CollectionSyncView, events: readonly SyncEvent[]): CollectionSyncView {
  let next: CollectionSyncView = { ...view };
  let rows = view.rows;
  let indexById = view.indexById;
  let rowsCopied = false;
  let indexCopied = false;
  const touchRows = () => {
    if (!rowsCopied) {
      rows = rows.slice();
      rowsCopied = true;
    }
  };

  const upsert = (key: string, build: (existing: FileRow | undefined) => FileRow) => {
    touchRows();
    const at = indexById.get(key);
    if (at === undefined) {
      if (!indexCopied) {
        indexById = new Map(indexById);
        indexCopied = true;
      }
      indexById.set(key, rows.length);
      rows.push(build(undefined));
    } else {
      rows[at] = build(rows[at]);
    }
  };

  for (const event of events) {
    switch (event.type) {
      case 'start':
        // A new run replaces the previous run's rows; the previous summary stays until this one ends.
        next = { ...emptySyncView(), running: true, startedAt: next.startedAt ?? new Date().toISOString(), paused: next.paused, lowSpace: next.lowSpace, full: event.full, lastSummary: next.lastSummary, mediaProblems: next.mediaProblems };
        rows = [];
        indexById = new Map();
        rowsCopied = true;
        indexCopied = true;
        break;
      case 'collection':
        break;
      case 'set': {
        const sets = { ...next.sets };
        if (event.state === 'discovered') sets.discovered++;
        else if (event.state === 'complete') sets.complete++;
        else if (event.state === 'failed') sets.failed++;
        else if (event.state === 'skipped_gold') sets.skippedGold++;
        else if (event.state === 'not_served') sets.notServed++;
        next.sets = sets;
        break;
      }
      case 'file':
        upsert(rowKey(event), (existing) => {
          const bytesDone =
            event.bytesDone ?? (event.state === 'verified' || event.state === 'up_to_date' ? event.sizeBytes : event.state === 'queued' ? 0 : (existing?.bytesDone ?? 0));
          const row: FileRow = { fileId: event.fileId, setId: event.setId, path: event.path, sizeBytes: event.sizeBytes, state: event.state, bytesDone };
          // Attempt and reason belong to retrying/failed; a later state clears them.
          if (event.state === 'retrying' || event.state === 'failed') {
            if (event.attempt !== undefined) row.attempt = event.attempt;
            if (event.reason !== undefined) row.reason = event.reason;
            if (event.code !== undefined) row.code = event.code;
          }
          return row;
        });
        break;
      case 'progress':
        next.progress = {
          bytesDone: event.bytesDone,
          bytesTotal: event.bytesTotal,
          filesDone: event.filesDone,
          filesTotal: event.filesTotal,
          bytesPerSecond: event.bytesPerSecond,
          etaSeconds: event.etaSeconds,
          fraction: event.fraction,
          setsDone: event.setsDone,
          setsTotal: event.setsTotal,
          phase: event.phase,
          phases: event.phases,
          estimated: event.estimated,
          bytesTotalEstimate: event.bytesTotalEstimate,
          filesTotalEstimate: event.filesTotalEstimate,
          ...(event.retry ? { retry: event.retry } : {}),
          ...(event.mediaLeft !== undefined ? { mediaLeft: event.mediaLeft } : {}),
          paused: event.paused,
        };
        // Per-file byte counts between state changes arrive only here. An active transfer names
        // its file id and path, not its set: the path (sets/<set>/…) tells which set it is.
        for (const active of event.active) {
          const setId = Number(/^sets\/(\d+)\//.exec(active.path)?.[1]);
          const at = indexById.get(rowKey({ setId, fileId: active.fileId }));
          const row = at === undefined ? undefined : rows[at];
          if (at !== undefined && row && (row.state === 'downloading' || row.state === 'queued' || row.state === 'retrying')) {
            touchRows();
            // A retried file whose bytes flow again is downloading again (its retry reason no longer applies).
            const flowing = row.state === 'queued' || (row.state === 'retrying' && active.bytesDone > row.bytesDone);
            const next: FileRow = { ...row, bytesDone: active.bytesDone, bytesPerSecond: active.bytesPerSecond };
            if (flowing) {
              next.state = 'downloading';
              delete next.attempt;
              delete next.reason;
              delete next.code;
            }
            rows[at] = next;
          }
        }
        break;
      case 'media': {
        const media = { ...next.mediaProblems };
        if (event.rules === 'ok' && event.listing === 'ok') delete media[event.path];
        else media[event.path] = { setId: event.setId, rules: event.rules, listing: event.listing, problems: event.problems };
        next.mediaProblems = media;
        break;
      }
      case 'warning':
        next.warnings = [...next.warnings, event.message].slice(-MAX_WARNINGS);
        break;
      case 'summary':
        next.lastSummary = event.summary;
        // Nothing is in flight any more: no row keeps a speed (a cancelled run leaves rows "downloading").
        for (let i = 0; i < rows.length; i++) {
          const row = rows[i]!;
          if (row.bytesPerSecond === undefined) continue;
          touchRows();
          const { bytesPerSecond: _speed, ...rest } = row;
          rows[i] = rest;
        }
        next.progress = finalProgress(next.progress, rows);
        break;
    }
  }

  next.rows = rows;
  next.indexById = indexById;
  if (rowsCopied) next.stateCounts = countStates(rows);
  return next;
}

function countStates(rows: readonly FileRow[]): Record<FileState, number> {
  const counts = emptyCounts();
  for (const row of rows) counts[row.state]++;
  return counts;
}

/**
 * At the end of a run the rows are the truth: progress events are throttled, so the last one
 * may predate the last files finishing. When every row finished without failure, the run is 100%.
 */
function finalProgress(progress: AggregateProgress | null, rows: readonly FileRow[]): AggregateProgress | null {
  const finished = rows.filter((r) => FINISHED_STATES.has(r.state)).length;
  const base = progress ?? { bytesDone: 0, bytesTotal: 0, filesDone: 0, filesTotal: rows.length, bytesPerSecond: 0, etaSeconds: null };
  const allGood = rows.length > 0 && rows.every((r) => r.state === 'verified' || r.state === 'up_to_date');
  return {
    ...base,
    filesDone: Math.max(base.filesDone, finished),
    filesTotal: Math.max(base.filesTotal, rows.length),
    bytesDone: allGood ? Math.max(base.bytesDone, base.bytesTotal) : base.bytesDone,
    ...(allGood && base.fraction !== undefined ? { fraction: 1 } : {}),
    bytesPerSecond: 0,
    etaSeconds: null,
  };
}

export const useSync = create<SyncStore>((set, get) => {
  const view = (collectionId: number) => get().byCollection[collectionId] ?? emptySyncView();
  const setView = (collectionId: number, next: CollectionSyncView) => set((s) => ({ byCollection: { ...s.byCollection, [collectionId]: next } }));
  const setActionError = (collectionId: number, error: IpcError | null) => set((s) => ({ actionError: { ...s.actionError, [collectionId]: error } }));

  /** Starts a run (sync or repair) and shows its state. */
  const begin = async (collectionId: number, kind: 'sync' | 'repair', run: () => Promise<IpcResult<SyncRunState>>) => {
    setActionError(collectionId, null);
    set((s) => ({ runKind: { ...s.runKind, [collectionId]: kind } }));
    // A verify report describes the dataset before this run; it would mislead once files change.
    set((s) => ({ verify: { ...s.verify, [collectionId]: { running: false, report: null, error: null } } }));
    const result = await run();
    if (result.ok) get().applyRunState(result.value);
    else setActionError(collectionId, result.error);
  };

  /** Cancel, pause, resume, cancel verify: main answers the run state, shown as is; a failure next to the buttons. */
  const control = async (collectionId: number, channel: 'sync:cancel' | 'sync:pause' | 'sync:resume' | 'verify:cancel') => {
    const result = await invoke(channel, { collectionId });
    if (result.ok) get().applyRunState(result.value);
    else setActionError(collectionId, result.error);
  };

  return {
    byCollection: {},
    history: {},
    historyError: {},
    verify: {},
    actionError: {},
    runKind: {},

    applyEvents(collectionId, events) {
      const next = reduceSyncEvents(view(collectionId), events);
      // Main pushes events of running syncs only: a window opened mid-run (no 'start' seen) shows it running too.
      if (!next.running && !events.some((e) => e.type === 'summary')) next.running = true;
      setView(collectionId, next);
      const summary = events.findLast((e) => e.type === 'summary');
      if (summary && summary.type === 'summary') {
        const known = get().history[collectionId];
        // Prepend so the history shows a finished run without another round trip.
        if (known && !known.some((h) => h.startedAt === summary.summary.startedAt)) {
          const entry: HistoryEntry = { ...summary.summary, kind: get().runKind[collectionId] ?? 'sync' };
          set((s) => ({ history: { ...s.history, [collectionId]: [entry, ...known] } }));
        }
      }
    },

    applyRunState(state) {
      const current = view(state.collectionId);
      setView(state.collectionId, {
        ...current,
        running: state.running,
        startedAt: state.startedAt,
        paused: state.paused,
        lowSpace: state.lowSpace,
        verifying: state.verifying,
        lastSummary: state.lastSummary ?? current.lastSummary,
      });
    },

    async start(collectionId, full = false, spaceConfirmed = false) {
      await begin(collectionId, 'sync', () => invoke('sync:start', { collectionId, full, ...(spaceConfirmed ? { spaceConfirmed } : {}) }));
    },

    async repair(collectionId) {
      await begin(collectionId, 'repair', () => invoke('sync:repair', { collectionId }));
    },

    cancel: (collectionId) => control(collectionId, 'sync:cancel'),
    pause: (collectionId) => control(collectionId, 'sync:pause'),
    resume: (collectionId) => control(collectionId, 'sync:resume'),
    cancelVerify: (collectionId) => control(collectionId, 'verify:cancel'),

    applyVerifyProgress(progress) {
      set((s) => {
        const entry = s.verify[progress.collectionId];
        // Late pushes after the verify answered are not a verify in progress.
        if (!entry?.running) return {};
        return { verify: { ...s.verify, [progress.collectionId]: { ...entry, progress } } };
      });
    },

    async refreshState(collectionId) {
      const result = await invoke('sync:state', { collectionId });
      if (result.ok) get().applyRunState(result.value);
    },

    async loadHistory(collectionId) {
      const result = await invoke('sync:history', { collectionId });
      // No folder yet means no runs yet; any other failure is shown instead of "Loading…" forever.
      const runs = result.ok ? result.value : result.error.kind === 'no_folder' ? [] : undefined;
      const error = result.ok || result.error.kind === 'no_folder' ? null : result.error;
      // Newest first whatever order main keeps them in.
      const sorted = runs && [...runs].sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt));
      set((s) => {
        const history = { ...s.history };
        if (sorted) history[collectionId] = sorted;
        else delete history[collectionId];
        return { history, historyError: { ...s.historyError, [collectionId]: error } };
      });
    },

    forgetDataset(collectionId) {
      set((s) => {
        const history = { ...s.history };
        delete history[collectionId];
        const runKind = { ...s.runKind };
        delete runKind[collectionId];
        return { history, runKind, byCollection: { ...s.byCollection, [collectionId]: emptySyncView() }, verify: { ...s.verify, [collectionId]: { running: false, report: null, error: null } } };
      });
    },

    reset() {
      set({ byCollection: {}, history: {}, historyError: {}, verify: {}, actionError: {}, runKind: {} });
    },

    async runVerify(collectionId) {
      set((s) => ({ verify: { ...s.verify, [collectionId]: { running: true, report: s.verify[collectionId]?.report ?? null, error: null, progress: null } } }));
      const result = await invoke('verify:run', { collectionId });
      const cancelled = !result.ok && result.error.kind === 'cancelled';
      set((s) => ({
        // The verify is now what is known of the files: the Files table shows them from the card
        // (damaged ones marked), not the last run's rows that called them verified.
        ...(result.ok && s.byCollection[collectionId] ? { byCollection: { ...s.byCollection, [collectionId]: { ...s.byCollection[collectionId], rows: [], indexById: new Map(), stateCounts: emptyCounts() } } } : {}),
        verify: {
          ...s.verify,
          [collectionId]: result.ok
            ? { running: false, report: result.value, error: null }
            : cancelled
              ? { running: false, report: null, error: null, cancelled: true }
              : { running: false, report: s.verify[collectionId]?.report ?? null, error: result.error },
        },
      }));
      // The verify is a row of the history too.
      if (result.ok) void get().loadHistory(collectionId);
    },
  };
});
