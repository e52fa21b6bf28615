// The app's syncs in the engine thread (issue #21; src-main/engine-worker.ts, app/engine-thread/):
// through the app services (whose default runs every sync and repair in a worker thread) against
// the reference service over loopback and real files: the files verified on disk, the events in
// the order the engine emitted them, pause / resume / cancel across the thread, its lower priority,
// the system proxy asked of this thread, and a thread that dies becoming the controller's
// "stopped unexpectedly".
// The main thread's event-loop stall is measured in engine-thread-stall.test.ts.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceService, type RunningService } from '../../src-service/index';
import { useSystemProxy } from '../../src-main/api/system-proxy';
import { ENGINE_THREAD_NICENESS } from '../../src-main/app/engine-thread/thread-priority';
import { createMainServices, type MainServices, type MainServicesDeps } from '../../src-main/ipc/services';
import type { EventChannel, EventChannels, IpcResult, SyncRunState } from '../../src-shared/ipc-contract';
import type { SyncEvent } from '../../src-shared/sync-events';
import { createMemoryStore } from '../../src-main/secrets/memory-store';
import { createConfSettingsStore } from '../../src-main/settings/conf-settings';
import { until } from '../support/until';
import { setPageRequests } from '../support/walk-requests';
import { servedPage, type SetJson } from '../engine/pages';

const KiB = 1024;
const SETS = 6;
const SLOTS = 2;
const FILES = SETS * SLOTS; // 12 x 128 KiB = 1.5 MiB

let service: RunningService;
let root: string;
let collectionId: number;

interface App {
  services: MainServices;
  emitted: Array<{ channel: EventChannel; payload: unknown }>;
  notifications: Array<{ title: string; body: string }>;
}

const apps: App[] = [];

async function startApp(extra: Partial<MainServicesDeps> = {}): Promise<App> {
  const emitted: App['emitted'] = [];
  const notifications: App['notifications'] = [];
  const services = createMainServices({
    secrets: createMemoryStore(),
    settings: createConfSettingsStore({ cwd: await mkdtemp(join(root, 'settings-')) }),
    pickFolder: async () => null,
    showItemInFolder: () => undefined,
    openExternal: async () => undefined,
    notify: (title, body) => void notifications.push({ title, body }),
    emit: <C extends EventChannel>(channel: C, payload: EventChannels[C]) => void emitted.push({ channel, payload }),
    batchIntervalMs: 50,
    ...extra,
  });
  const app = { services, emitted, notifications };
  apps.push(app);
  const connected = await services.handlers['connection:connect']({ baseUrl: service.deliveryBaseUrl, apiKey: service.clients[0]!.apiKey });
  if (!connected.ok) throw new Error(connected.error.message);
  return app;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ds-engine-thread-'));
  service = await startReferenceService({ sets: SETS, fileSize: 128 * KiB, slots: SLOTS, dataDir: join(root, 'media'), seed: 29 });
  collectionId = service.clients[0]!.collections[0]!;
});

afterAll(async () => {
  useSystemProxy(undefined);
  for (const app of apps) await app.services.shutdown();
  await service?.close();
  await rm(root, { recursive: true, force: true });
});

async function value<T>(app: App, channel: keyof MainServices['handlers'], arg?: unknown): Promise<T> {
  const result = (await app.services.handlers[channel](arg)) as IpcResult<T>;
  if (!result.ok) throw new Error(`${String(channel)}: ${result.error.kind}: ${result.error.message}`);
  return result.value;
}

function newFolder(app: App, name: string): string {
  const dest = join(root, name);
  app.services.settings.setCollectionDataset(app.services.connection.activeAccountId(), collectionId, { dest });
  return dest;
}

const events = (app: App, from = 0): SyncEvent[] =>
  app.emitted.slice(from).flatMap((e) => (e.channel === 'sync:events' ? (e.payload as EventChannels['sync:events']).events : []));
const states = (app: App, from = 0): SyncRunState[] => app.emitted.slice(from).flatMap((e) => (e.channel === 'sync:state' ? [e.payload as SyncRunState] : []));
const ended = (app: App, from: number) => states(app, from).some((s) => !s.running && !s.verifying);

/** The niceness of each thread of this process, by thread id (Linux: field 19 of /proc/self/task/<tid>/stat). */
async function threadNiceness(): Promise<Map<number, number>> {
  const niceness = new Map<number, number>();
  for (const tid of await readdir('/proc/self/task')) {
    const stat = await readFile(`/proc/self/task/${tid}/stat`, 'utf8').catch(() => null); // a thread that just ended
    if (stat === null) continue;
    // After the command's closing parenthesis: state is field 3, niceness field 19.
    niceness.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return niceness;
}

async function syncToEnd(app: App, arg: { collectionId: number; full?: boolean } = { collectionId }): Promise<SyncRunState> {
  const from = app.emitted.length;
  await value(app, 'sync:start', arg);
  await until('the sync to end', () => ended(app, from));
  return states(app, from).at(-1)!;
}

/** Every file the service serves, checked byte for byte (SHA-256) in DEST/sets/<set>/<filename>. */
async function expectVerifiedOnDisk(dest: string): Promise<void> {
  const state = await service.admin.state();
  const sets = state.collections.find((c) => c.id === collectionId)!.accepted_sets;
  const files = sets.flatMap((s) => s.files.map((f) => ({ path: join(dest, 'sets', String(s.id), f.filename), sha256: f.sha256 })));
  expect(files).toHaveLength(FILES);
  for (const f of files) expect(createHash('sha256').update(await readFile(f.path)).digest('hex')).toBe(f.sha256);
}

describe('a sync in the engine thread', () => {
  it('downloads and verifies every file, with the events in the order the engine emitted them', async () => {
    const app = await startApp();
    const dest = newFolder(app, 'first');
    const final = await syncToEnd(app);
    expect(final.lastSummary).toMatchObject({ exitCode: 0, cancelled: false, filesDownloaded: FILES, bytesDownloaded: FILES * 128 * KiB });
    await expectVerifiedOnDisk(dest);

    const all = events(app);
    expect(all[0]).toMatchObject({ type: 'start', collectionId });
    expect(all.at(-1)).toMatchObject({ type: 'summary' });
    // Each file's states in the engine's order, verified last, and progress that never goes back. A
    // batch carries only a file's newest state (pending-events.ts), so a file may skip queued or downloading.
    const byFile = new Map<number, string[]>();
    for (const e of all) if (e.type === 'file') byFile.set(e.fileId, [...(byFile.get(e.fileId) ?? []), e.state]);
    expect(byFile.size).toBe(FILES);
    const order = ['queued', 'downloading', 'verified'];
    for (const seen of byFile.values()) {
      expect(seen.at(-1)).toBe('verified');
      const ranks = seen.map((state) => order.indexOf(state));
      expect(ranks).not.toContain(-1);
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    }
    const progress = all.filter((e) => e.type === 'progress');
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.fraction).toBeGreaterThanOrEqual(progress[i - 1]!.fraction);
    expect(app.notifications).toContainEqual({ title: 'New files synced', body: expect.stringContaining(`${FILES} new files`) });

    // A repair in the thread too: a damaged file is fetched again.
    const victim = all.find((e): e is Extract<SyncEvent, { type: 'file' }> => e.type === 'file')!;
    await rm(join(dest, victim.path));
    const from = app.emitted.length;
    await value(app, 'sync:repair', { collectionId });
    await until('the repair to end', () => ended(app, from));
    expect(states(app, from).at(-1)!.lastSummary).toMatchObject({ exitCode: 0, filesDownloaded: 1 });
    await expectVerifiedOnDisk(dest);
  });

  it('keeps apart the events of a file id that a lying service lists in two sets', async () => {
    // Set b lists a's first file (same id, URL and bytes) for its own slot 1. The batches keep one
    // event per file (pending-events.ts): keyed by the file id alone, one set's file would vanish.
    const page = await servedPage(service);
    const [a, b] = page.sets as [SetJson, SetJson];
    const shared = a.files[0]!;
    b.files[0] = { ...shared, filename: b.files[0]!.filename };
    await service.admin.addFault({ path: '/sets$' }, { type: 'body', body: JSON.stringify(page) });
    try {
      const app = await startApp();
      const dest = newFolder(app, 'shared-id');
      const final = await syncToEnd(app);
      expect(final.lastSummary).toMatchObject({ exitCode: 0, filesDownloaded: FILES, filesFailed: 0 });
      const last = new Map<string, string>();
      for (const e of events(app)) if (e.type === 'file' && e.fileId === shared.id) last.set(`set ${e.setId}`, e.state);
      expect(Object.fromEntries(last)).toEqual({ [`set ${a.id}`]: 'verified', [`set ${b.id}`]: 'verified' });
      for (const set of [a, b]) expect(createHash('sha256').update(await readFile(join(dest, 'sets', String(set.id), set.files[0]!.filename))).digest('hex')).toBe(shared.sha256);
    } finally {
      await service.admin.clearFaults();
    }
  });

  it('pauses, resumes and cancels across the thread', async () => {
    const app = await startApp();
    newFolder(app, 'controls');
    await value(app, 'settings:update', { bwlimitBytesPerSecond: 300_000 }); // 1.5 MiB in about 5 s
    await service.admin.resetStats();
    let from = app.emitted.length;
    await value(app, 'sync:start', { collectionId });
    await until('bytes to arrive', () => events(app, from).some((e) => e.type === 'progress' && e.bytesDone > 0));
    expect(await value<SyncRunState>(app, 'sync:pause', { collectionId })).toMatchObject({ running: true, paused: true });
    // The engine itself says paused: the pause reached the thread's gate.
    const heldFrom = app.emitted.length;
    await until('a progress event that says paused', () => events(app, heldFrom).some((e) => e.type === 'progress' && e.paused));
    if (process.platform === 'linux') {
      // The engine's threads yield the CPU to this one (thread-priority.ts; Linux only, where a thread has its own niceness).
      const niceness = await threadNiceness();
      expect(niceness.get(process.pid)).toBeLessThan(ENGINE_THREAD_NICENESS);
      expect([...niceness.values()]).toContain(ENGINE_THREAD_NICENESS);
    }
    expect(await value<SyncRunState>(app, 'sync:resume', { collectionId })).toMatchObject({ running: true, paused: false });
    await until('a progress event that is not paused', () => events(app, heldFrom).some((e) => e.type === 'progress' && !e.paused && e.bytesPerSecond > 0));
    await until('the sync to end', () => ended(app, from));
    expect(states(app, from).at(-1)!.lastSummary).toMatchObject({ exitCode: 0, filesDownloaded: FILES });
    expect(await setPageRequests(service.admin)).toBe(1); // one walk of the sets: resume went on where it was

    const dest = newFolder(app, 'cancelled');
    from = app.emitted.length;
    await value(app, 'sync:start', { collectionId });
    await until('bytes to arrive', () => events(app, from).some((e) => e.type === 'progress' && e.bytesDone > 0));
    const cancelled = await value<SyncRunState>(app, 'sync:cancel', { collectionId });
    expect(cancelled).toMatchObject({ running: false, lastSummary: { cancelled: true } });
    expect(cancelled.lastSummary!.filesDownloaded).toBeLessThan(FILES);
    expect((await stat(join(dest, '.dataset-sync'))).isDirectory()).toBe(true); // what it did is kept for the next sync
    await value(app, 'settings:update', { bwlimitBytesPerSecond: null });
    const resumed = await syncToEnd(app);
    expect(resumed.lastSummary).toMatchObject({ exitCode: 0, cancelled: false });
    await expectVerifiedOnDisk(dest);
  });

  it("asks this thread's system proxy for each origin and relays its notices", async () => {
    const app = await startApp(); // connected before the proxy is registered: only the engine thread asks
    newFolder(app, 'proxied');
    const asked: string[] = [];
    const notices: string[] = [];
    useSystemProxy({
      resolveProxy: async (url) => {
        asked.push(url);
        return 'SOCKS5 127.0.0.1:1';
      },
      onNotice: (m) => notices.push(m),
    });
    try {
      const final = await syncToEnd(app);
      expect(final.lastSummary).toMatchObject({ exitCode: 0, filesDownloaded: FILES });
    } finally {
      useSystemProxy(undefined);
    }
    expect(asked).toContain(`${new URL(service.deliveryBaseUrl).origin}/`);
    expect(notices.join('\n')).toMatch(/SOCKS5 proxy, which Dataset Sync does not support[\s\S]*connecting directly/);
  });

  it('reports a thread that dies (out of memory) as a sync that stopped unexpectedly; the app goes on', async () => {
    const app = await startApp({ engineThreadLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1 } });
    newFolder(app, 'crashed');
    const final = await syncToEnd(app);
    expect(final).toMatchObject({ running: false, paused: false });
    const notices = app.emitted.flatMap((e) => (e.channel === 'notice' ? [e.payload as EventChannels['notice']] : []));
    expect(notices).toContainEqual(expect.objectContaining({ level: 'error', message: expect.stringContaining('stopped unexpectedly') }));
    expect(app.notifications).toContainEqual({ title: 'Sync failed', body: expect.stringContaining('stopped unexpectedly') });
    // The app is still there and the collection is free again.
    expect(app.services.syncs.isBusy({ accountId: app.services.connection.activeAccountId(), collectionId })).toBe(false);
  });
});
