// View state of syncs, one entry per collection of the active account. The engine's state of
// record is on disk in main; this store keeps each collection's view, asks main (through the
// bridge) to start, pause, cancel or verify, and hands the batched `sync:events` to the reducer
// (sync-reducer.ts) that folds them into rows and an aggregate to show.
import { create } from 'zustand';
import type { HistoryEntry, IpcError, IpcResult, SyncRunState, VerifyProgress } from '../../src-shared/ipc-contract';
import type { SyncEvent, VerifyReport } from '../../src-shared/sync-events';
import { invoke } from '../api';
import { reduceSyncEvents } from './sync-reducer';
import { emptyCounts, emptySyncView, type CollectionSyncView } from './sync-view';

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
