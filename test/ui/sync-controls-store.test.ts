// @vitest-environment jsdom
// The sync store's part of Pause/Resume, the low-space question and verify's progress and cancel
// (what the window keeps of main's answers; the real flow is in test/e2e/pause-bwlimit and verify-space).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setRendererApi } from '../../src-renderer/api';
import { useSync } from '../../src-renderer/stores/sync';
import { reduceSyncEvents } from '../../src-renderer/stores/sync-reducer';
import { emptySyncView } from '../../src-renderer/stores/sync-view';
import type { SyncRunState, VerifyProgress } from '../../src-shared/ipc-contract';
import type { ProgressEvent } from '../../src-shared/sync-events';
import { FakeRendererApi, ok } from './fake-api';
import { estimateToDownload } from '../../src-renderer/components/LowSpaceDialog';

const STATE: SyncRunState = { accountId: 'a', collectionId: 7, running: true, startedAt: '2025-01-01T00:00:00Z', paused: false, lowSpace: null, verifying: false, lastSummary: null };
const PROGRESS: ProgressEvent = {
  type: 'progress', phase: 'downloading', paused: true, setsDone: 1, setsTotal: 2, bytesDone: 10, bytesTotal: 20, filesDone: 1, filesTotal: 2,
  fraction: 0.5, bytesPerSecond: 0, etaSeconds: null, bytesRedownloaded: 0, active: [],
};
const VERIFY: VerifyProgress = { accountId: 'a', collectionId: 7, filesChecked: 3, filesTotal: 8, bytesChecked: 300, bytesTotal: 800, bytesPerSecond: 1000 };

beforeEach(() => useSync.setState({ byCollection: {}, history: {}, verify: {}, actionError: {} }));
afterEach(() => setRendererApi(null));

describe('the estimate before a sync', () => {
  it('is the accepted sets not on disk at the average size of those on disk; none without a set on disk', () => {
    expect(estimateToDownload({ setsOnDisk: 2, bytesOnDisk: 3000 }, 10)).toEqual({ bytes: 12_000, newSets: 8 });
    expect(estimateToDownload({ setsOnDisk: 12, bytesOnDisk: 3000 }, 10)).toEqual({ bytes: 0, newSets: 0 }); // sets left "accepted"
    expect(estimateToDownload({ setsOnDisk: 0, bytesOnDisk: 0 }, 10)).toBeNull();
    expect(estimateToDownload({ setsOnDisk: null, bytesOnDisk: null }, 10)).toBeNull();
    expect(estimateToDownload({ setsOnDisk: 2, bytesOnDisk: 3000 }, undefined)).toBeNull();
  });
});

describe('sync store: pause, low space, verify', () => {
  it('keeps paused and the low-space question from sync:state, and paused from progress events', () => {
    useSync.getState().applyRunState({ ...STATE, paused: true, lowSpace: { bytesToDownload: 900, freeBytes: 500 } });
    expect(useSync.getState().byCollection[7]).toMatchObject({ running: true, paused: true, lowSpace: { bytesToDownload: 900, freeBytes: 500 } });
    useSync.getState().applyRunState({ ...STATE, running: false, startedAt: null });
    expect(useSync.getState().byCollection[7]).toMatchObject({ running: false, paused: false, lowSpace: null });
    expect(reduceSyncEvents(emptySyncView(), [PROGRESS]).progress).toMatchObject({ paused: true });
  });

  it('pause and resume ask main and show its answer', async () => {
    const api = new FakeRendererApi()
      .handle('sync:pause', () => ok({ ...STATE, paused: true }))
      .handle('sync:resume', () => ok(STATE));
    setRendererApi(api);
    await useSync.getState().pause(7);
    expect(useSync.getState().byCollection[7]?.paused).toBe(true);
    await useSync.getState().resume(7);
    expect(useSync.getState().byCollection[7]?.paused).toBe(false);
    expect(api.calls.map((c) => [c.channel, c.arg])).toEqual([
      ['sync:pause', { collectionId: 7 }],
      ['sync:resume', { collectionId: 7 }],
    ]);
  });

  it('shows verify progress while it runs; a cancelled verify leaves no report and no error', async () => {
    let answer!: (r: ReturnType<typeof ok>) => void;
    const api = new FakeRendererApi().handle('verify:run', () => new Promise((r) => (answer = r as never)));
    setRendererApi(api);
    const running = useSync.getState().runVerify(7);
    useSync.getState().applyVerifyProgress(VERIFY);
    expect(useSync.getState().verify[7]).toMatchObject({ running: true, progress: VERIFY });
    answer({ ok: false, error: { kind: 'cancelled', message: 'Verify cancelled; nothing on disk was changed.' } } as never);
    await running;
    expect(useSync.getState().verify[7]).toEqual({ running: false, report: null, error: null, cancelled: true });
    // A late push after the answer is not a verify in progress.
    useSync.getState().applyVerifyProgress(VERIFY);
    expect(useSync.getState().verify[7]?.progress).toBeUndefined();
  });
});
