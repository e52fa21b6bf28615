// The IPC handlers against the real reference service over loopback HTTP, with real files:
// connection, collections, sets, a full batched sync, cancel, history, verify, scheduler.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedLoopbackPort } from '../support/closed-port';
import { startReferenceService, type RunningService } from '../../src-service/index';
import { createMainServices, type MainServices } from '../../src-main/app/services';
import type { EventChannel, EventChannels, IpcResult, SyncRunState } from '../../src-main/ipc/contract';
import { createMemoryStore } from '../../src-main/secrets/memory-store';
import type { SecretStore } from '../../src-main/secrets/secret-store';
import { createConfSettingsStore } from '../../src-main/settings/conf-settings';
import type { SettingsStore } from '../../src-main/settings/settings-store';

const BATCH_MS = 250;

let service: RunningService;
let root: string;
let apiKey: string;
let collectionId: number;
let otherCollectionId: number | undefined;

interface Harness {
  services: MainServices;
  secrets: SecretStore;
  settings: SettingsStore;
  emitted: Array<{ channel: EventChannel; payload: unknown; at: number }>;
  notifications: Array<{ title: string; body: string }>;
  results: unknown[];
  nextFolder: string | null;
  shown: string[];
  opened: string[];
}

let harnessCount = 0;
async function harness(): Promise<Harness> {
  const dir = join(root, `h${++harnessCount}`);
  const settings = createConfSettingsStore({ cwd: join(dir, 'settings') });
  const secrets = createMemoryStore();
  const h: Partial<Harness> & { emitted: Harness['emitted']; notifications: Harness['notifications']; results: unknown[]; shown: string[]; opened: string[] } = {
    emitted: [],
    notifications: [],
    results: [],
    shown: [],
    opened: [],
    nextFolder: null,
  };
  const services = createMainServices({
    secrets,
    settings,
    pickFolder: async () => h.nextFolder ?? null,
    showItemInFolder: (p) => void h.shown.push(p),
    openExternal: async (u) => void h.opened.push(u),
    notify: (title, body) => void h.notifications.push({ title, body }),
    emit: <C extends EventChannel>(channel: C, payload: EventChannels[C]) => void h.emitted.push({ channel, payload, at: Date.now() }),
    batchIntervalMs: BATCH_MS,
  });
  Object.assign(h, { services, secrets, settings });
  return h as Harness;
}

/** Calls a handler and records the raw result, so the key-leak check can scan everything. */
async function call<T>(h: Harness, channel: keyof MainServices['handlers'], arg?: unknown): Promise<IpcResult<T>> {
  const result = (await h.services.handlers[channel](arg)) as IpcResult<T>;
  h.results.push(JSON.parse(JSON.stringify(result)));
  return result;
}

async function value<T>(h: Harness, channel: keyof MainServices['handlers'], arg?: unknown): Promise<T> {
  const result = await call<T>(h, channel, arg);
  if (!result.ok) throw new Error(`${channel} failed: ${result.error.kind}: ${result.error.message}`);
  return result.value;
}

async function until(what: string, predicate: () => boolean, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const finalState = (h: Harness, id: number) =>
  h.emitted.filter((e) => e.channel === 'sync:state' && (e.payload as SyncRunState).collectionId === id && !(e.payload as SyncRunState).running);

async function connected(): Promise<Harness> {
  const h = await harness();
  await value(h, 'connection:connect', { baseUrl: service.deliveryBaseUrl, apiKey });
  return h;
}

async function freePortUrl(): Promise<string> {
  return `http://127.0.0.1:${await closedLoopbackPort()}/api/v1/partner`;
}

const harnesses: Harness[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ds-handlers-'));
  service = await startReferenceService({ sets: 6, fileSize: 24 * 1024, slots: 3, dataDir: join(root, 'media') });
  const client = service.clients[0];
  if (!client || client.collections[0] === undefined) throw new Error('reference service has no client collection');
  apiKey = client.apiKey;
  collectionId = client.collections[0];
  otherCollectionId = client.collections[1];
});

afterAll(async () => {
  for (const h of harnesses) await h.services.shutdown();
  await service?.close();
  await rm(root, { recursive: true, force: true });
});

describe('connection', () => {
  it('connects with a good key and returns what /me says, never the key', async () => {
    const h = await harness();
    harnesses.push(h);
    const info = await value<{ baseUrl: string; client: { name: string }; apiKey: { prefix: string; scopes: string[] }; secretStore: string; secretStoreWarning?: string }>(
      h,
      'connection:connect',
      { baseUrl: `${service.deliveryBaseUrl}/`, apiKey },
    );
    expect(info.baseUrl).toBe(service.deliveryBaseUrl);
    expect(info.apiKey.scopes).toContain('collections:read');
    expect(apiKey.startsWith(info.apiKey.prefix)).toBe(true);
    expect(info.secretStore).toBe('memory');
    expect(JSON.stringify(info)).not.toContain(apiKey);
    // Stored: the key in the secret store, the base URL (only) in settings.
    expect(await h.secrets.get(service.deliveryBaseUrl)).toBe(apiKey);
    expect(h.settings.view().baseUrl).toBe(service.deliveryBaseUrl);
    expect(await readFile(h.settings.path, 'utf8')).not.toContain(apiKey);
    expect(await value(h, 'connection:get')).toEqual(info);
  });

  it('a fresh app start with a stored key asks /me and is connected', async () => {
    const h = await harness();
    harnesses.push(h);
    h.settings.setBaseUrl(service.deliveryBaseUrl);
    await h.secrets.set(service.deliveryBaseUrl, apiKey);
    expect(await value(h, 'connection:get')).toMatchObject({ baseUrl: service.deliveryBaseUrl, secretStore: 'memory' });
  });

  it('a wrong, expired or revoked key -> auth, and nothing is stored', async () => {
    const h = await harness();
    harnesses.push(h);
    for (const key of ['dsk_wrong_key_123456', service.expiredKey, service.revokedKey]) {
      const result = await call(h, 'connection:connect', { baseUrl: service.deliveryBaseUrl, apiKey: key });
      expect(result).toMatchObject({ ok: false, error: { kind: 'auth' } });
      expect(JSON.stringify(result)).not.toContain(key);
    }
    expect(await h.secrets.get(service.deliveryBaseUrl)).toBeNull();
    expect(h.settings.view().baseUrl).toBeNull();
    expect(await value(h, 'connection:get')).toBeNull();
  });

  it('an unreachable service -> network; http://example.com -> base_url', async () => {
    const h = await harness();
    harnesses.push(h);
    expect(await call(h, 'connection:connect', { baseUrl: await freePortUrl(), apiKey })).toMatchObject({ ok: false, error: { kind: 'network' } });
    expect(await call(h, 'connection:connect', { baseUrl: 'http://example.com/api/v1/partner', apiKey })).toMatchObject({ ok: false, error: { kind: 'base_url' } });
    expect(await h.secrets.get(service.deliveryBaseUrl)).toBeNull();
  });

  it('forget removes the key; the base URL stays for reconnecting', async () => {
    const h = await connected();
    harnesses.push(h);
    expect(await value(h, 'connection:forget')).toBeNull();
    expect(await h.secrets.get(service.deliveryBaseUrl)).toBeNull();
    expect(await value(h, 'connection:get')).toBeNull();
    expect(h.settings.view().baseUrl).toBe(service.deliveryBaseUrl);
    expect(await call(h, 'collections:list')).toMatchObject({ ok: false, error: { kind: 'not_connected' } });
  });
});

describe('collections and sets', () => {
  it('lists collections with their folder, gets a detail, and lists sets without signer names', async () => {
    const h = await connected();
    harnesses.push(h);
    const list = await value<Array<{ id: number; dest: string | null; lastSync: unknown }>>(h, 'collections:list');
    expect(list.map((c) => c.id)).toContain(collectionId);
    expect(list.find((c) => c.id === collectionId)).toMatchObject({ dest: null, lastSync: null });

    const detail = await value<{ id: number; spec: { slots: unknown[] } }>(h, 'collections:get', { collectionId });
    expect(detail.id).toBe(collectionId);
    expect(detail.spec.slots).toHaveLength(3);

    const page = await value<{ sets: Array<{ participants: Array<{ consent: unknown }> }>; total: number }>(h, 'sets:list', { collectionId, status: 'accepted', page: 1, perPage: 4 });
    expect(page.sets).toHaveLength(4);
    expect(page.total).toBeGreaterThanOrEqual(6);
    const json = JSON.stringify(page);
    expect(json).toContain('"consent":{');
    expect(json).not.toContain('signer_name');

    expect(await call(h, 'collections:get', { collectionId: 999_999 })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
  });

  it('a key revoked after connecting turns service calls into auth errors', async () => {
    const h = await harness();
    harnesses.push(h);
    // The service's pre-revoked key stands in for one revoked after connecting (revoking the
    // shared client key would break the other tests).
    h.settings.setBaseUrl(service.deliveryBaseUrl);
    await h.secrets.set(service.deliveryBaseUrl, service.revokedKey);
    expect(await call(h, 'collections:list')).toMatchObject({ ok: false, error: { kind: 'auth' } });
    expect(await call(h, 'connection:get')).toMatchObject({ ok: false, error: { kind: 'auth' } });
  });
});

describe('sync through the handlers', () => {
  let h: Harness;
  let dest: string;

  beforeAll(async () => {
    h = await connected();
    harnesses.push(h);
    dest = join(root, 'dataset-main');
  });

  it('picks a folder, syncs, batches events a few times a second, notifies and records history', async () => {
    h.nextFolder = dest;
    expect(await value(h, 'dataset:pickFolder', { collectionId })).toEqual({ dest });
    expect(h.settings.collectionDataset(collectionId)).toEqual({ dest });
    h.nextFolder = null;
    expect(await value(h, 'dataset:pickFolder', { collectionId })).toBeNull();
    expect(h.settings.collectionDataset(collectionId)).toEqual({ dest });

    // Each file answers a little late, so the sync spans several batch intervals.
    await service.admin.addFault({ api: 'delivery', path: '^/files/' }, { type: 'latency', ms: 60 });
    const started = Date.now();
    const state = await value<SyncRunState>(h, 'sync:start', { collectionId });
    expect(state).toMatchObject({ collectionId, running: true });
    expect(await call(h, 'sync:start', { collectionId })).toMatchObject({ ok: false, error: { kind: 'busy' } });
    expect(await call(h, 'verify:run', { collectionId })).toMatchObject({ ok: false, error: { kind: 'busy' } });

    await until('the sync to finish', () => finalState(h, collectionId).length > 0);
    const elapsed = Date.now() - started;
    await service.admin.clearFaults();
    const end = finalState(h, collectionId)[0]?.payload as SyncRunState;
    expect(end.lastSummary).toMatchObject({ exitCode: 0, cancelled: false, filesDownloaded: 18, filesFailed: 0 });

    const messages = h.emitted.filter((e) => e.channel === 'sync:events');
    const events = messages.flatMap((m) => (m.payload as EventChannels['sync:events']).events);
    const fileEvents = events.filter((e) => e.type === 'file');
    expect(fileEvents.length).toBeGreaterThanOrEqual(18);
    // Batched: bounded by the interval (plus the final flush), not one message per event.
    expect(messages.length).toBeLessThanOrEqual(Math.ceil(elapsed / BATCH_MS) + 2);
    expect(messages.length).toBeLessThan(fileEvents.length);
    expect(messages.length).toBeGreaterThan(1);
    expect(events.at(-1)).toMatchObject({ type: 'summary' });
    expect(messages.every((m) => (m.payload as { collectionId: number }).collectionId === collectionId)).toBe(true);

    expect(h.notifications).toContainEqual({ title: 'New files synced', body: expect.stringContaining('18 new files') });
    const setsOnDisk = await readdir(join(dest, 'sets'));
    expect(setsOnDisk.length).toBe(6);

    const history = await value<Array<{ filesDownloaded: number }>>(h, 'sync:history', { collectionId });
    expect(history[0]).toMatchObject({ filesDownloaded: 18 });
    const list = await value<Array<{ id: number; dest: string | null; lastSync: { exitCode: number } | null }>>(h, 'collections:list');
    expect(list.find((c) => c.id === collectionId)).toMatchObject({ dest, lastSync: { exitCode: 0, filesDownloaded: 18 } });
    expect(await value(h, 'sync:state', { collectionId })).toMatchObject({ running: false, lastSummary: { exitCode: 0 } });

    await value(h, 'dataset:showInFolder', { collectionId });
    expect(h.shown).toEqual([dest]);
  });

  it('verify re-hashes the dataset', async () => {
    const report = await value<{ filesChecked: number; ok: number; missing: string[]; changed: string[] }>(h, 'verify:run', { collectionId });
    expect(report).toMatchObject({ filesChecked: 18, ok: 18, missing: [], changed: [] });
  });

  it('cancel stops a running sync and keeps the rest for the next run', async () => {
    const slowDest = join(root, 'dataset-cancel');
    h.settings.setCollectionDataset(collectionId, { dest: slowDest });
    // Every file download stalls after a few bytes until cleared: the sync cannot finish on its own.
    await service.admin.addFault({ api: 'delivery', path: '^/files/' }, { type: 'stall', afterBytes: 1024, ms: 60_000 });
    try {
      const before = h.emitted.length;
      await value(h, 'sync:start', { collectionId });
      await until('a file download to start', () =>
        h.emitted.slice(before).some((e) => e.channel === 'sync:events' && (e.payload as EventChannels['sync:events']).events.some((ev) => ev.type === 'file' && ev.state === 'downloading')),
      );
      const state = await value<SyncRunState>(h, 'sync:cancel', { collectionId });
      expect(state.running).toBe(false);
      expect(state.lastSummary).toMatchObject({ cancelled: true });
      expect(h.notifications.filter((n) => n.title.startsWith('Sync failed'))).toEqual([]);
    } finally {
      await service.admin.clearFaults();
    }
    // Cancelling an idle collection is harmless.
    expect(await value(h, 'sync:cancel', { collectionId })).toMatchObject({ running: false });
  });

  it('the scheduler starts due collections and skips one that is already syncing', async () => {
    const s = await connected();
    harnesses.push(s);
    s.settings.setCollectionDataset(collectionId, { dest: join(root, 'dataset-scheduled') });
    if (otherCollectionId !== undefined) s.settings.setCollectionDataset(otherCollectionId, { dest: join(root, 'dataset-scheduled-2') });
    const first = await s.services.scheduler.tick();
    expect(first.started).toContain(collectionId);
    const second = await s.services.scheduler.tick();
    expect(second.skippedBusy).toContain(collectionId);
    await s.services.syncs.cancelAll();
    await value(s, 'settings:update', { autoSyncMinutes: 15 });
    s.services.scheduler.stop();
  });

  it('shutdown (app quit) cancels running syncs and waits for them to settle', async () => {
    const q = await connected();
    q.settings.setCollectionDataset(collectionId, { dest: join(root, 'dataset-quit') });
    await service.admin.addFault({ api: 'delivery', path: '^/files/' }, { type: 'stall', afterBytes: 1024, ms: 60_000 });
    try {
      await value(q, 'sync:start', { collectionId });
      expect(q.services.syncs.runningCollections()).toEqual([collectionId]);
      await q.services.shutdown();
      expect(q.services.syncs.runningCollections()).toEqual([]);
      expect(finalState(q, collectionId)[0]?.payload).toMatchObject({ running: false, lastSummary: { cancelled: true } });
    } finally {
      await service.admin.clearFaults();
    }
  });

  it('no API key anywhere: results, events, notifications, settings file', async () => {
    const everything = JSON.stringify([harnesses.map((x) => [x.results, x.emitted, x.notifications])]);
    expect(everything).not.toContain(apiKey);
    for (const x of harnesses) expect(await readFile(x.settings.path, 'utf8').catch(() => '')).not.toContain(apiKey);
  });
});
