// The app's sync controls through the IPC handlers, against the reference service over loopback
// and real files: pause and resume (one walk of the sets; the cap's rate is checked end to end in
// test/e2e/pause-bwlimit.test.ts), the low-space hold (free space read through the readFreeBytes seam, so this runs
// without a small disk; test/e2e/verify-space.test.ts does it on a real tmpfs), and verify's
// progress and cancel.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceService, type RunningService } from '../../src-service/index';
import { createMainServices, type MainServices } from '../../src-main/ipc/services';
import type { EventChannel, EventChannels, IpcResult, SyncRunState, VerifyProgress } from '../../src-shared/ipc-contract';
import type { SyncEvent, VerifyReport } from '../../src-shared/sync-events';
import { createMemoryStore } from '../../src-main/secrets/memory-store';
import { createConfSettingsStore } from '../../src-main/settings/conf-settings';
import { until } from '../support/until';
import { setPageRequests } from '../support/walk-requests';

const KiB = 1024;
const FILES = 8; // 4 sets x 2 slots x 128 KiB = 1 MiB
const TOTAL = FILES * 128 * KiB;

let service: RunningService;
let root: string;
let collectionId: number;
let services: MainServices;
let emitted: Array<{ channel: EventChannel; payload: unknown }>;
/** What the seam says is free on the dataset's disk; null: the real statfs. */
let freeBytes: number | null = null;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ds-controls-'));
  service = await startReferenceService({ sets: 4, fileSize: 128 * KiB, slots: 2, dataDir: join(root, 'media'), seed: 17 });
  collectionId = service.clients[0]!.collections[0]!;
  emitted = [];
  services = createMainServices({
    secrets: createMemoryStore(),
    settings: createConfSettingsStore({ cwd: join(root, 'settings') }),
    pickFolder: async () => null,
    showItemInFolder: () => undefined,
    openExternal: async () => undefined,
    notify: () => undefined,
    emit: <C extends EventChannel>(channel: C, payload: EventChannels[C]) => void emitted.push({ channel, payload }),
    batchIntervalMs: 50,
    readFreeBytes: async () => freeBytes ?? 50 * 1024 ** 3,
  });
  const connected = await services.handlers['connection:connect']({ baseUrl: service.deliveryBaseUrl, apiKey: service.clients[0]!.apiKey });
  if (!connected.ok) throw new Error(connected.error.message);
});

afterAll(async () => {
  await services?.shutdown();
  await service?.close();
  await rm(root, { recursive: true, force: true });
});

async function value<T>(channel: keyof MainServices['handlers'], arg?: unknown): Promise<T> {
  const result = (await services.handlers[channel](arg)) as IpcResult<T>;
  if (!result.ok) throw new Error(`${String(channel)}: ${result.error.kind}: ${result.error.message}`);
  return result.value;
}

function newFolder(name: string): string {
  const dest = join(root, name);
  services.settings.setCollectionDataset(services.connection.activeAccountId(), collectionId, { dest });
  return dest;
}

const events = (from: number): SyncEvent[] =>
  emitted.slice(from).flatMap((e) => (e.channel === 'sync:events' ? (e.payload as EventChannels['sync:events']).events : []));
const states = (from: number): SyncRunState[] => emitted.slice(from).flatMap((e) => (e.channel === 'sync:state' ? [e.payload as SyncRunState] : []));
const ended = (from: number) => states(from).some((s) => !s.running && s.lastSummary !== null && !s.verifying);


describe('pause, resume and the bandwidth limit', () => {
  it('pause holds the sync (slowed by the limit setting), resume finishes it with one walk', async () => {
    newFolder('paused');
    await value('settings:update', { bwlimitBytesPerSecond: 400_000 }); // 1 MiB in about 2.6 s
    await service.admin.resetStats();
    const from = emitted.length;
    await value('sync:start', { collectionId });
    await until('bytes to arrive', () => events(from).some((e) => e.type === 'progress' && e.bytesDone > 0));
    const paused = await value<SyncRunState>('sync:pause', { collectionId });
    expect(paused).toMatchObject({ running: true, paused: true, lowSpace: null });
    expect(states(from).at(-1)).toMatchObject({ paused: true });
    const heldFrom = emitted.length;
    await until('a progress event that says paused', () => events(heldFrom).some((e) => e.type === 'progress' && e.paused));
    expect(await value<SyncRunState>('sync:pause', { collectionId })).toMatchObject({ paused: true }); // twice is harmless
    expect(await value<SyncRunState>('sync:resume', { collectionId })).toMatchObject({ running: true, paused: false });
    await until('the sync to end', () => ended(from));
    const summary = states(from).at(-1)!.lastSummary!;
    expect(summary).toMatchObject({ exitCode: 0, filesDownloaded: FILES, bytesDownloaded: TOTAL });
    expect(await setPageRequests(service.admin)).toBe(1);
    await value('settings:update', { bwlimitBytesPerSecond: null });
  });
});

describe('a sync that would not fit', () => {
  it('is held before the file that does not fit starts; cancel stops it, resume ("download anyway") goes on and is not asked again', async () => {
    newFolder('small');
    freeBytes = 300 * KiB; // two files of 128 KiB fit, the third does not
    try {
      let from = emitted.length;
      await value('sync:start', { collectionId });
      await until('the low-space hold', () => states(from).some((s) => s.lowSpace !== null));
      const held = states(from).find((s) => s.lowSpace !== null)!;
      expect(held).toMatchObject({ running: true, paused: true, lowSpace: { freeBytes: 300 * KiB } });
      expect(held.lowSpace!.bytesToDownload).toBeGreaterThan(300 * KiB);
      await new Promise((r) => setTimeout(r, 300));
      // Held before the file that would not fit: at most the two that fit have started.
      const started = new Set(events(from).flatMap((e) => (e.type === 'file' && e.state === 'downloading' ? [e.fileId] : [])));
      expect(started.size).toBeLessThanOrEqual(2);
      const cancelled = await value<SyncRunState>('sync:cancel', { collectionId });
      expect(cancelled).toMatchObject({ running: false, paused: false, lowSpace: null, lastSummary: { cancelled: true } });

      from = emitted.length;
      await value('sync:start', { collectionId });
      await until('the low-space hold again', () => states(from).some((s) => s.lowSpace !== null));
      expect(await value<SyncRunState>('sync:resume', { collectionId })).toMatchObject({ running: true, paused: false, lowSpace: null });
      await until('the sync to end', () => ended(from));
      expect(states(from).filter((s) => s.lowSpace !== null)).toHaveLength(1);
      expect(states(from).at(-1)!.lastSummary).toMatchObject({ exitCode: 0, cancelled: false });
      expect((await value<VerifyReport>('verify:run', { collectionId })).ok).toBe(FILES);
    } finally {
      freeBytes = null;
    }
  });
});

describe('verify', () => {
  it('pushes progress up to every file and byte, and is busy for sync meanwhile', async () => {
    newFolder('paused'); // the dataset synced above
    const from = emitted.length;
    const running = services.handlers['verify:run']({ collectionId });
    expect(await services.handlers['sync:start']({ collectionId })).toMatchObject({ ok: false, error: { kind: 'busy', message: expect.stringContaining('being verified') } });
    expect(states(from)[0]).toMatchObject({ running: false, verifying: true });
    expect(await running).toMatchObject({ ok: true, value: { ok: FILES, filesChecked: FILES } });
    const progress = emitted.slice(from).flatMap((e) => (e.channel === 'verify:progress' ? [e.payload as VerifyProgress] : []));
    expect(progress.at(-1)).toMatchObject({ collectionId, filesChecked: FILES, filesTotal: FILES, bytesChecked: TOTAL, bytesTotal: TOTAL });
    expect(states(from).at(-1)).toMatchObject({ verifying: false });
  });

  it('cancel stops it: verify:run answers "cancelled", nothing is recorded, a sync may start again', async () => {
    const before = (await value<{ lastVerified: unknown }>('dataset:card', { collectionId })).lastVerified;
    const running = services.handlers['verify:run']({ collectionId });
    const state = services.handlers['verify:cancel']({ collectionId });
    expect(await running).toMatchObject({ ok: false, error: { kind: 'cancelled', message: 'Verify cancelled; nothing on disk was changed.' } });
    expect(await state).toMatchObject({ ok: true, value: { verifying: false } });
    expect((await value<{ lastVerified: unknown }>('dataset:card', { collectionId })).lastVerified).toEqual(before);
    expect(services.syncs.isBusy({ accountId: services.connection.activeAccountId(), collectionId })).toBe(false);
  });
});
