// The API key never crosses IPC to the renderer, on the failure paths too: a wrong key at
// connect, a file that keeps failing, a key revoked during use (401 mid-session) and a service
// that went away. Everything the handlers return, every batched event and notification, the
// settings file and DEST are scanned. (The success path is scanned in test/app/handlers.test.ts.)
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createConfSettingsStore } from '../../src-main/settings/conf-settings';
import { listFiles, mainCollection, servedSets, startService, tempDir, type Service } from '../engine/helpers';
import { recordingApp } from '../support/recording-app';

// Not useService: this test closes the service itself (the "service gone" case), after which
// the helper's afterEach could not clear faults on it.
let svc: Service;
let root: string;
let work: string;
const wrongKey = `dsk_test_${randomBytes(16).toString('hex')}`;

beforeAll(async () => {
  ({ svc, root } = await startService({ sets: 3, fileSize: 8 * 1024, slots: 2, seed: 171 }));
  work = await tempDir('dsync-ipc-secrets-');
});
afterAll(async () => {
  await svc?.close();
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(work, { recursive: true, force: true });
});

it('no key in any IPC result, batched event, notification, settings file or DEST file, failures included', { timeout: 60_000 }, async () => {
  const { apiKey, collectionId } = mainCollection(svc);
  const settings = createConfSettingsStore({ cwd: path.join(work, 'settings') });
  const { services, call, runToEnd, results, emitted, notifications } = recordingApp(settings);
  const syncOnce = () => runToEnd('sync:start', { collectionId });

  try {
    expect(await call('connection:connect', { baseUrl: svc.deliveryBaseUrl, apiKey: wrongKey })).toMatchObject({ ok: false, error: { kind: 'auth' } });
    expect(await call('connection:connect', { baseUrl: svc.deliveryBaseUrl, apiKey })).toMatchObject({ ok: true });
    const dest = path.join(work, 'ds');
    settings.setCollectionDataset(settings.activeAccount()!.id, collectionId, { dest });

    // A file that fails (404 is not retried, which keeps this quick: the app's sync has no test tuning).
    const file = (await servedSets(svc, collectionId))[0]!.files[0]!;
    await svc.admin.addFault({ path: `^/files/${file.id}$` }, { type: 'status', status: 404 });
    expect((await syncOnce()).lastSummary).toMatchObject({ exitCode: 1 });
    await svc.admin.clearFaults();

    // The key revoked while connected: the next sync stops with an auth error.
    await svc.admin.revokeKey(apiKey);
    expect((await syncOnce()).lastSummary).toMatchObject({ exitCode: 3 });
    expect(await call('collections:list')).toMatchObject({ ok: false });

    // The service gone.
    await svc.close();
    const down = await call('collections:get', { collectionId });
    expect(down.ok).toBe(false);

    const everything = JSON.stringify([results, emitted, notifications]);
    expect(everything.length).toBeGreaterThan(1000);
    expect(everything).toMatch(/401/); // the failures were reported, just without the key
    for (const s of [apiKey, wrongKey]) expect(everything.includes(s)).toBe(false);
    for (const s of [apiKey, wrongKey]) expect((await fs.readFile(settings.path, 'utf8')).includes(s)).toBe(false);
    for (const f of await listFiles(dest)) {
      const text = await fs.readFile(path.join(dest, f), 'latin1');
      for (const s of [apiKey, wrongKey]) expect(text.includes(s), f).toBe(false);
    }
  } finally {
    await services.shutdown();
  }
});
