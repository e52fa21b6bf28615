// Folds the batched `sync:events` main pushes into a collection's view (sync-view.ts). Pure and
// apart from the store so it is tested on its own (the UI tests, the engine's media check) with
// no zustand or IPC bridge, and so the store (sync.ts) stays about actions and per-collection state.
import type { FileState, SyncEvent } from '../../src-shared/sync-events';
import { emptyCounts, emptySyncView, rowKey, type AggregateProgress, type CollectionSyncView, type FileRow } from './sync-view';

// The states a file ends a run in, failed included: the final tally counts them as done.
const FINISHED_STATES: ReadonlySet<FileState> = new Set(['verified', 'up_to_date', 'failed']);

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
