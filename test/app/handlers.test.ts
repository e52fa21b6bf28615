// The IPC handlers against the real reference service over loopback HTTP, with real files:
// connection, collections, sets, a full batched sync, cancel, history, verify, scheduler.
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedLoopbackPort } from '../support/closed-port';
import { startReferenceService, type RunningService } from '../../src-service/index';
import { keyEntryOf } from '../../src-main/app/connection';
import { createMainServices, type MainServices } from '../../src-main/ipc/services';
import type { EventChannel, EventChannels, IpcResult, SyncRunState } from '../../src-shared/ipc-contract';
import { createMemoryStore } from '../../src-main/secrets/memory-store';
import type { SecretStore } from '../../src-main/secrets/secret-store';
import { createConfSettingsStore } from '../../src-main/settings/conf-settings';
import type { SettingsStore } from '../../src-main/settings/settings-store';
import { until } from '../support/until';

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
/** The active account; folders and keys are kept per account. */
function account(h: Harness) {
  const active = h.settings.activeAccount();
  if (!active) throw new Error('no active account');
  return active;
}

async function call<T>(h: Harness, channel: keyof MainServices['handlers'], arg?: unknown): Promise<IpcResult<T>> {
  const result = (await h.services.handlers[channel](arg)) as IpcResult<T>;
  h.results.push(JSON.parse(JSON.stringify(result)));
  return result;
}

async function value<T>(h: Harness, channel: keyof MainServices['handlers'], arg?: unknown): Promise<T> {
  const result = await call<T>(h, channel, arg);
  if (!result.ok) throw new Error(`${String(channel)} failed: ${result.error.kind}: ${result.error.message}`);
  return result.value;
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
    const info = await value<{ accountId: string; baseUrl: string; client: { id: number; name: string }; apiKey: { prefix: string; scopes: string[] }; secretStore: string; secretStoreWarning?: string }>(
      h,
      'connection:connect',
      { baseUrl: `${service.deliveryBaseUrl}/`, apiKey },
    );
    expect(info.baseUrl).toBe(service.deliveryBaseUrl);
    expect(info.apiKey.scopes).toContain('collections:read');
    expect(apiKey.startsWith(info.apiKey.prefix)).toBe(true);
    expect(info.secretStore).toBe('memory');
    expect(JSON.stringify(info)).not.toContain(apiKey);
    // Stored: the key in the account's own secret-store entry, the account (only) in settings.
    expect(account(h)).toEqual({ id: info.accountId, baseUrl: service.deliveryBaseUrl, client: { id: info.client.id, name: info.client.name } });
    expect(await h.secrets.get(service.deliveryBaseUrl, keyEntryOf(account(h)))).toBe(apiKey);
    expect(await h.secrets.get(service.deliveryBaseUrl)).toBeNull();
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
    expect(h.settings.view().accounts).toEqual([]);
    expect(await value(h, 'connection:get')).toBeNull();
  });

  it('an unreachable service -> network; http://example.com -> base_url', async () => {
    const h = await harness();
    harnesses.push(h);
    expect(await call(h, 'connection:connect', { baseUrl: await freePortUrl(), apiKey })).toMatchObject({ ok: false, error: { kind: 'network' } });
    expect(await call(h, 'connection:connect', { baseUrl: 'http://example.com/api/v1/partner', apiKey })).toMatchObject({ ok: false, error: { kind: 'base_url' } });
    expect(await h.secrets.get(service.deliveryBaseUrl)).toBeNull();
  });

  it('forget removes the key; the account (base URL) stays for reconnecting', async () => {
    const h = await connected();
    harnesses.push(h);
    const before = account(h);
    expect(await value(h, 'connection:forget')).toBeNull();
    expect(await h.secrets.get(service.deliveryBaseUrl, keyEntryOf(before))).toBeNull();
    expect(await value(h, 'connection:get')).toBeNull();
    expect(account(h)).toEqual(before);
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
    expect(h.settings.collectionDataset(account(h).id, collectionId)).toEqual({ dest });
    h.nextFolder = null;
    expect(await value(h, 'dataset:pickFolder', { collectionId })).toBeNull();
    expect(h.settings.collectionDataset(account(h).id, collectionId)).toEqual({ dest });

    // Each file answers late, so the sync spans several batch intervals (16 small files are in flight at once).
    await service.admin.addFault({ api: 'delivery', path: '^/files/' }, { type: 'latency', ms: 300 });
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

  it('verify before the first sync says in words that there is nothing to verify yet', async () => {
    const other = otherCollectionId!;
    const fresh = join(await mkdtemp(join(tmpdir(), 'dsync-unsynced-')), 'ds');
    h.nextFolder = fresh;
    try {
      expect(await value(h, 'dataset:pickFolder', { collectionId: other })).toEqual({ dest: fresh });
      // The CLI's words ("no manifest.csv there"), never "Unexpected error in the app".
      expect(await call(h, 'verify:run', { collectionId: other })).toMatchObject({
        ok: false,
        error: { kind: 'invalid_argument', message: `Nothing to verify yet: ${fresh} has no manifest.csv (it has not been synced). Sync it first.` },
      });
    } finally {
      h.nextFolder = null;
      h.settings.setCollectionDataset(account(h).id, other, null);
      await rm(join(fresh, '..'), { recursive: true, force: true });
    }
  });

  it('a chosen folder is checked at once: another collection\'s dataset, inside a dataset or its consents, not writable', async () => {
    const other = otherCollectionId!;
    const refusal = async (folder: string) => {
      h.nextFolder = folder;
      const result = await call(h, 'dataset:pickFolder', { collectionId: other });
      h.nextFolder = null;
      expect(h.settings.collectionDataset(account(h).id, other)).toBeNull();
      return result.ok ? 'accepted' : result.error.message;
    };
    expect(await refusal(dest)).toBe(`${dest} is already the dataset folder of collection ${collectionId}. Each collection needs its own folder.`);
    expect(await refusal(join(dest, 'sets'))).toMatch(/is inside the dataset folder of collection \d+/);
    expect(await refusal(`${dest}.consents`)).toMatch(/is inside the consents folder of collection \d+/);
    expect(await refusal('/proc/dataset-sync-test')).toMatch(/^The app cannot write to \/proc \(where \/proc\/dataset-sync-test would be created\) \(E\w+\)\. Choose a folder you can write to\.$/);
    // Known from the folder itself, not only from the settings: another account's dataset (its settings gone).
    h.settings.setCollectionDataset(account(h).id, collectionId, null);
    try {
      expect(await refusal(dest)).toBe(`${dest} already holds the dataset of collection ${collectionId} of ${service.deliveryBaseUrl}. A dataset folder belongs to one service and one collection: choose an empty folder, or this collection's own.`);
      expect(await refusal(join(dest, 'sets', 'x'))).toBe(`${join(dest, 'sets', 'x')} is inside the dataset folder ${dest}. Datasets cannot be nested: choose a folder outside it.`);
      // A folder bound elsewhere after it was chosen (a CLI sync): no card, and Verify records nothing.
      h.settings.setCollectionDataset(account(h).id, other, { dest });
      const notes = join(dest, '.dataset-sync', 'app-notes.json');
      const notesBefore = await readFile(notes, 'utf8');
      expect(await call(h, 'dataset:card', { collectionId: other })).toMatchObject({ ok: false, error: { kind: 'invalid_argument', message: expect.stringContaining('already holds the dataset of collection') } });
      expect(await call(h, 'verify:run', { collectionId: other })).toMatchObject({ ok: false, error: { kind: 'invalid_argument' } });
      expect(await readFile(notes, 'utf8')).toBe(notesBefore);
    } finally {
      h.settings.setCollectionDataset(account(h).id, other, null);
      h.settings.setCollectionDataset(account(h).id, collectionId, { dest });
    }
    // This collection's own folder, and an empty one, are accepted.
    h.nextFolder = dest;
    expect(await value(h, 'dataset:pickFolder', { collectionId })).toEqual({ dest });
    h.nextFolder = null;
  });

  it('repair downloads again what verify found missing or changed, and keeps extra files', async () => {
    const [setDir] = await readdir(join(dest, 'sets'));
    const files = (await readdir(join(dest, 'sets', setDir!))).filter((f) => f !== 'set.json').sort();
    await rm(join(dest, 'sets', setDir!, files[0]!));
    await writeFile(join(dest, 'sets', setDir!, files[1]!), 'not the recorded bytes');
    await writeFile(join(dest, 'sets', setDir!, 'notes.txt'), 'mine');
    const damaged = await value<{ missing: string[]; changed: string[]; extra: string[] }>(h, 'verify:run', { collectionId });
    expect(damaged.missing).toHaveLength(1);
    expect(damaged.changed).toHaveLength(1);

    const before = finalState(h, collectionId).length;
    expect(await value(h, 'sync:repair', { collectionId })).toMatchObject({ collectionId, running: true });
    expect(await call(h, 'sync:repair', { collectionId })).toMatchObject({ ok: false, error: { kind: 'busy' } });
    await until('the repair to finish', () => finalState(h, collectionId).length > before);
    expect(finalState(h, collectionId).at(-1)?.payload).toMatchObject({ running: false, lastSummary: { exitCode: 0, filesDownloaded: 2 } });
    const after = await value<{ ok: number; filesChecked: number; missing: string[]; changed: string[]; extra: string[] }>(h, 'verify:run', { collectionId });
    expect(after).toMatchObject({ ok: 18, filesChecked: 18, missing: [], changed: [] });
    expect(after.extra).toEqual([`sets/${setDir}/notes.txt`]);
    await rm(join(dest, 'sets', setDir!, 'notes.txt'));
  });

  it('cancel stops a running sync and keeps the rest for the next run', async () => {
    const slowDest = join(root, 'dataset-cancel');
    h.settings.setCollectionDataset(account(h).id, collectionId, { dest: slowDest });
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
    const accountId = account(s).id;
    s.settings.setCollectionDataset(accountId, collectionId, { dest: join(root, 'dataset-scheduled') });
    if (otherCollectionId !== undefined) s.settings.setCollectionDataset(accountId, otherCollectionId, { dest: join(root, 'dataset-scheduled-2') });
    const first = await s.services.scheduler.tick();
    expect(first.started).toContainEqual({ accountId, collectionId });
    const second = await s.services.scheduler.tick();
    expect(second.skippedBusy).toContainEqual({ accountId, collectionId });
    await s.services.syncs.cancelAll();
    await value(s, 'settings:update', { autoSyncMinutes: 15 });
    s.services.scheduler.stop();
  });

  it('shutdown (app quit) cancels running syncs and waits for them to settle', async () => {
    const q = await connected();
    q.settings.setCollectionDataset(account(q).id, collectionId, { dest: join(root, 'dataset-quit') });
    await service.admin.addFault({ api: 'delivery', path: '^/files/' }, { type: 'stall', afterBytes: 1024, ms: 60_000 });
    try {
      await value(q, 'sync:start', { collectionId });
      expect(q.services.syncs.runningCollections()).toEqual([{ accountId: account(q).id, collectionId }]);
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

describe('accounts', () => {
  it('a second service whose collection has the same id gets neither the folder nor the history of the first', async () => {
    const other = await startReferenceService({ sets: 2, fileSize: 4 * 1024, slots: 3, dataDir: join(root, 'media-other') });
    const h = await connected();
    harnesses.push(h);
    try {
      const otherKey = other.clients[0]!.apiKey;
      expect(other.clients[0]!.collections).toContain(collectionId);
      const first = account(h);
      const firstDest = join(root, 'dataset-first-service');
      h.nextFolder = firstDest;
      await value(h, 'dataset:pickFolder', { collectionId });
      h.nextFolder = null;

      const info = await value<{ accountId: string; baseUrl: string }>(h, 'connection:connect', { baseUrl: other.deliveryBaseUrl, apiKey: otherKey });
      expect(info.accountId).not.toBe(first.id);
      const list = await value<Array<{ id: number; dest: string | null; lastSync: unknown }>>(h, 'collections:list');
      expect(list.find((c) => c.id === collectionId)).toMatchObject({ dest: null, lastSync: null });
      expect(await call(h, 'sync:start', { collectionId })).toMatchObject({ ok: false, error: { kind: 'no_folder' } });
      expect(await call(h, 'sync:history', { collectionId })).toMatchObject({ ok: false, error: { kind: 'no_folder' } });
      expect(await call(h, 'verify:run', { collectionId })).toMatchObject({ ok: false, error: { kind: 'no_folder' } });
      expect(h.settings.view()).toMatchObject({ activeAccountId: info.accountId, collections: {} });
      expect(h.settings.view().accounts.map((a) => a.baseUrl)).toEqual([service.deliveryBaseUrl, other.deliveryBaseUrl]);

      // Both keys stay stored, each in its account's entry; switching back finds the first folder again.
      const back = await value<{ accountId: string; baseUrl: string }>(h, 'accounts:switch', { accountId: first.id });
      expect(back).toMatchObject({ accountId: first.id, baseUrl: service.deliveryBaseUrl });
      const again = await value<Array<{ id: number; dest: string | null }>>(h, 'collections:list');
      expect(again.find((c) => c.id === collectionId)).toMatchObject({ dest: firstDest });
      expect(await h.secrets.get(other.deliveryBaseUrl, keyEntryOf(h.settings.accounts()[1]!))).toBe(otherKey);

      // Forgetting one account's key leaves the other's.
      await value(h, 'connection:forget');
      expect(await value(h, 'accounts:switch', { accountId: first.id })).toBeNull();
      expect(await value(h, 'accounts:switch', { accountId: info.accountId })).toMatchObject({ baseUrl: other.deliveryBaseUrl });
      expect(await call(h, 'accounts:switch', { accountId: 'nobody' })).toMatchObject({ ok: false, error: { kind: 'invalid_argument' } });
    } finally {
      await h.services.shutdown();
      await other.close();
    }
  });

  it("today's settings file and key (stored per base URL) are migrated on first start: connected, folders kept", async () => {
    const dir = join(root, 'migrated');
    const settingsDir = join(dir, 'settings');
    const dest = join(dir, 'dataset');
    await mkdir(settingsDir, { recursive: true });
    await writeFile(
      join(settingsDir, 'settings.json'),
      JSON.stringify({ baseUrl: service.deliveryBaseUrl, recruiterBaseUrl: null, concurrency: 3, autoSyncMinutes: null, excludeGold: false, collections: { [collectionId]: { dest } } }),
    );
    // The key where the previous version (and the CLI's login) stored it: the base URL's own entry.
    const secrets = createMemoryStore({ [service.deliveryBaseUrl]: apiKey });
    const settings = createConfSettingsStore({ cwd: settingsDir });
    const services = createMainServices({ secrets, settings, pickFolder: async () => null, showItemInFolder: () => undefined, openExternal: async () => undefined, notify: () => undefined, emit: () => undefined });
    try {
      const info = await services.handlers['connection:get'](undefined);
      expect(info).toMatchObject({ ok: true, value: { baseUrl: service.deliveryBaseUrl, client: { name: service.clients[0]!.name } } });
      const clientId = info.ok ? info.value!.client.id : 0;
      const list = await services.handlers['collections:list'](undefined);
      expect(list.ok && list.value.find((c) => c.id === collectionId)?.dest).toBe(dest);
      expect(settings.view().concurrency).toBe(3);
      // The account now knows its client, and the key has the account's own entry.
      const migrated = settings.activeAccount()!;
      expect(migrated.client).toEqual({ id: clientId, name: service.clients[0]!.name });
      expect(await secrets.get(service.deliveryBaseUrl, keyEntryOf(migrated))).toBe(apiKey);
      // Forget removes the key from both places.
      await services.handlers['connection:forget'](undefined);
      expect(await secrets.get(service.deliveryBaseUrl, keyEntryOf(migrated))).toBeNull();
      expect(await secrets.get(service.deliveryBaseUrl)).toBeNull();
    } finally {
      await services.shutdown();
    }
  });
});
