// @vitest-environment jsdom
import { describe, expect, it, beforeEach } from 'vitest';
import { useSync } from '../../src-renderer/stores/sync';
import { reduceSyncEvents } from '../../src-renderer/stores/sync-reducer';
import { emptySyncView } from '../../src-renderer/stores/sync-view';
import type { FileState, SyncEvent, SyncSummary } from '../../src-shared/sync-events';

type FileEvent = Extract<SyncEvent, { type: 'file' }>;

function fileEvent(fileId: number, state: FileState, extra: Partial<FileEvent> = {}): SyncEvent {
  return { type: 'file', setId: Math.ceil(fileId / 4), fileId, path: `sets/${Math.ceil(fileId / 4)}/set_${Math.ceil(fileId / 4)}_slot_0${fileId % 4}.mp4`, sizeBytes: 1000, state, ...extra };
}

const START: SyncEvent = { type: 'start', collectionId: 7, dest: '/tmp/d', full: false, watermark: null };

function summary(overrides: Partial<SyncSummary> = {}): SyncSummary {
  return {
    collectionId: 7, dest: '/tmp/d', sets: 1, setsComplete: 1, setsFailed: 0, setsNotServed: [], withdrawnSets: 0, filesDownloaded: 2, filesUpToDate: 0, filesFailed: 0,
    bytesDownloaded: 2000, bytesHashed: 2000, requests: 5, failures: [], watermark: null, startedAt: '2025-01-01T00:00:00Z', finishedAt: '2025-01-01T00:00:05Z',
    durationMs: 5000, exitCode: 0, cancelled: false, ...overrides,
  };
}

describe('sync store', () => {
  beforeEach(() => useSync.setState({ byCollection: {}, history: {}, verify: {}, actionError: {} }));

  it('keys rows by set and file and follows each file through its states', () => {
    let view = reduceSyncEvents(emptySyncView(), [START, fileEvent(1, 'queued'), fileEvent(2, 'queued')]);
    expect(view.rows.map((r) => r.state)).toEqual(['queued', 'queued']);
    view = reduceSyncEvents(view, [fileEvent(1, 'downloading', { bytesDone: 250 }), fileEvent(2, 'retrying', { attempt: 2, reason: 'HTTP 503' })]);
    expect(view.rows[0]).toMatchObject({ fileId: 1, state: 'downloading', bytesDone: 250 });
    expect(view.rows[1]).toMatchObject({ fileId: 2, state: 'retrying', attempt: 2, reason: 'HTTP 503' });
    view = reduceSyncEvents(view, [fileEvent(1, 'verified'), fileEvent(2, 'failed', { reason: 'sha256 mismatch' })]);
    expect(view.rows).toHaveLength(2);
    expect(view.rows[0]).toMatchObject({ state: 'verified', bytesDone: 1000 });
    expect(view.rows[0]?.reason).toBeUndefined();
    expect(view.rows[1]).toMatchObject({ state: 'failed', reason: 'sha256 mismatch' });
    expect(view.stateCounts).toMatchObject({ verified: 1, failed: 1, queued: 0 });
  });

  it('keeps two sets sharing a file id as two rows, each with its own bytes', () => {
    const inSet = (setId: number, extra: Partial<FileEvent> = {}): SyncEvent => ({ type: 'file', setId, fileId: 9, path: `sets/${setId}/set_${setId}_slot_01.mp4`, sizeBytes: 1000, state: 'downloading', bytesDone: 0, ...extra });
    let view = reduceSyncEvents(emptySyncView(), [START, inSet(3), inSet(4)]);
    expect(view.rows.map((r) => [r.setId, r.fileId])).toEqual([[3, 9], [4, 9]]);
    view = reduceSyncEvents(view, [
      { type: 'progress', phase: 'downloading', paused: false, setsDone: 0, setsTotal: 2, fraction: 0, bytesRedownloaded: 0, bytesDone: 700, bytesTotal: 2000, filesDone: 0, filesTotal: 2, bytesPerSecond: 0, etaSeconds: null,
        active: [{ fileId: 9, path: 'sets/4/set_4_slot_01.mp4', bytesDone: 700, sizeBytes: 1000, bytesPerSecond: 10 }] },
      inSet(3, { state: 'verified', bytesDone: 1000 }),
    ]);
    expect(view.rows.map((r) => [r.setId, r.state, r.bytesDone])).toEqual([[3, 'verified', 1000], [4, 'downloading', 700]]);
    expect(view.stateCounts).toMatchObject({ verified: 1, downloading: 1 });
  });

  it('takes the aggregate from progress events and per-file bytes from their active list', () => {
    let view = reduceSyncEvents(emptySyncView(), [START, fileEvent(1, 'downloading', { bytesDone: 0 })]);
    view = reduceSyncEvents(view, [
      { type: 'progress', phase: 'downloading', paused: false, setsDone: 0, setsTotal: 1, fraction: 0, bytesRedownloaded: 0, bytesDone: 600, bytesTotal: 4000, filesDone: 0, filesTotal: 4, bytesPerSecond: 1200, etaSeconds: 3, active: [{ fileId: 1, path: 'sets/1/set_1_slot_01.mp4', bytesDone: 600, sizeBytes: 1000, bytesPerSecond: 0 }] },
    ]);
    expect(view.progress).toEqual({ bytesDone: 600, bytesTotal: 4000, filesDone: 0, filesTotal: 4, bytesPerSecond: 1200, etaSeconds: 3, fraction: 0, setsDone: 0, setsTotal: 1, phase: 'downloading', paused: false });
    expect(view.rows[0]?.bytesDone).toBe(600);
  });

  it('keeps each file\'s own speed, the walk\'s retry, and turns a retried file back to downloading once its bytes flow', () => {
    const progress = (bytesDone: number, extra: Partial<Extract<SyncEvent, { type: 'progress' }>> = {}): SyncEvent => ({
      type: 'progress', phase: 'downloading', paused: false, setsDone: 0, setsTotal: 1, fraction: 0, bytesRedownloaded: 0, bytesDone, bytesTotal: 4000, filesDone: 0, filesTotal: 4, bytesPerSecond: 0, etaSeconds: null,
      active: [{ fileId: 2, path: 'sets/1/set_1_slot_02.mp4', bytesDone, sizeBytes: 1000, bytesPerSecond: 321 }], ...extra,
    });
    let view = reduceSyncEvents(emptySyncView(), [START, fileEvent(2, 'retrying', { attempt: 2, reason: 'HTTP 503', bytesDone: 100 })]);
    view = reduceSyncEvents(view, [progress(100, { phase: 'retrying', retry: { attempt: 2, of: 6, inSeconds: 4 } })]);
    expect(view.progress?.retry).toEqual({ attempt: 2, of: 6, inSeconds: 4 });
    expect(view.rows[0]).toMatchObject({ state: 'retrying', attempt: 2, bytesPerSecond: 321 });
    view = reduceSyncEvents(view, [progress(300)]);
    expect(view.progress?.retry).toBeUndefined();
    expect(view.rows[0]).toMatchObject({ state: 'downloading', bytesDone: 300, bytesPerSecond: 321 });
    expect(view.rows[0]?.reason).toBeUndefined();
    expect(view.stateCounts).toMatchObject({ downloading: 1, retrying: 0 });
  });

  it('completes the aggregate at the summary when every file verified, even if the last progress event was throttled away', () => {
    let view = reduceSyncEvents(emptySyncView(), [START, fileEvent(1, 'queued'), fileEvent(2, 'queued')]);
    view = reduceSyncEvents(view, [{ type: 'progress', phase: 'downloading', paused: false, setsDone: 0, setsTotal: 1, fraction: 0, bytesRedownloaded: 0, bytesDone: 1000, bytesTotal: 2000, filesDone: 1, filesTotal: 2, bytesPerSecond: 10, etaSeconds: 100, active: [] }]);
    view = reduceSyncEvents(view, [fileEvent(1, 'verified'), fileEvent(2, 'verified'), { type: 'summary', summary: summary() }]);
    expect(view.progress).toMatchObject({ bytesDone: 2000, bytesTotal: 2000, filesDone: 2, filesTotal: 2, etaSeconds: null });
    expect(view.lastSummary?.filesDownloaded).toBe(2);
  });

  it('does not claim completion when a file failed', () => {
    let view = reduceSyncEvents(emptySyncView(), [START, fileEvent(1, 'queued'), fileEvent(2, 'queued')]);
    view = reduceSyncEvents(view, [{ type: 'progress', phase: 'downloading', paused: false, setsDone: 0, setsTotal: 1, fraction: 0, bytesRedownloaded: 0, bytesDone: 1000, bytesTotal: 2000, filesDone: 1, filesTotal: 2, bytesPerSecond: 10, etaSeconds: 100, active: [] }]);
    view = reduceSyncEvents(view, [fileEvent(1, 'verified'), fileEvent(2, 'failed', { reason: 'HTTP 404' }), { type: 'summary', summary: summary({ exitCode: 1, filesFailed: 1 }) }]);
    expect(view.progress?.bytesDone).toBe(1000);
    expect(view.progress?.filesDone).toBe(2);
  });

  it('counts sets by outcome and starts afresh on a new run', () => {
    let view = reduceSyncEvents(emptySyncView(), [
      START,
      { type: 'set', setId: 1, state: 'discovered', files: 4, isGold: false },
      { type: 'set', setId: 1, state: 'complete', files: 4, isGold: false },
      { type: 'set', setId: 2, state: 'skipped_gold', files: 4, isGold: true },
      fileEvent(1, 'verified'),
      { type: 'warning', message: 'set 9 is no longer served' },
    ]);
    expect(view.sets).toMatchObject({ discovered: 1, complete: 1, skippedGold: 1 });
    expect(view.warnings).toEqual(['set 9 is no longer served']);
    view = reduceSyncEvents(view, [{ ...START, full: true } as SyncEvent]);
    expect(view.rows).toHaveLength(0);
    expect(view.full).toBe(true);
    expect(view.sets.discovered).toBe(0);
    expect(view.running).toBe(true);
  });

  it('applies batches of thousands of rows through the store, per collection', () => {
    const batch: SyncEvent[] = [START];
    for (let id = 1; id <= 5000; id++) batch.push(fileEvent(id, 'queued'));
    useSync.getState().applyEvents(7, batch);
    const updates: SyncEvent[] = [];
    for (let id = 1; id <= 5000; id += 2) updates.push(fileEvent(id, 'verified'));
    updates.push(fileEvent(5000, 'downloading', { bytesDone: 500 }));
    useSync.getState().applyEvents(7, updates);
    const view = useSync.getState().byCollection[7]!;
    expect(view.rows).toHaveLength(5000);
    expect(view.stateCounts.verified).toBe(2500);
    expect(view.stateCounts.queued).toBe(2499);
    expect(view.stateCounts.downloading).toBe(1);
    expect(view.rows[4999]).toMatchObject({ fileId: 5000, bytesDone: 500 });
    expect(useSync.getState().byCollection[8]).toBeUndefined();
  });

  it('leaves rows untouched by a batch as the same objects, so a batch costs little', () => {
    const before = reduceSyncEvents(emptySyncView(), [START, fileEvent(1, 'queued'), fileEvent(2, 'queued')]);
    const after = reduceSyncEvents(before, [fileEvent(2, 'downloading', { bytesDone: 10 })]);
    expect(after.rows).not.toBe(before.rows);
    expect(after.rows[0]).toBe(before.rows[0]);
    expect(before.rows[1]?.state).toBe('queued');
  });

  it('takes the running state from sync:state', () => {
    useSync.getState().applyRunState({ accountId: 'acct1', collectionId: 7, running: true, startedAt: '2025-01-01T00:00:00Z', paused: false, lowSpace: null, verifying: false, lastSummary: null });
    expect(useSync.getState().byCollection[7]?.running).toBe(true);
    useSync.getState().applyRunState({ accountId: 'acct1', collectionId: 7, running: false, startedAt: null, paused: false, lowSpace: null, verifying: false, lastSummary: summary() });
    expect(useSync.getState().byCollection[7]).toMatchObject({ running: false, lastSummary: { filesDownloaded: 2 } });
  });
});
