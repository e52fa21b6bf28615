// The key never appears in IPC payloads, even when the server echoes it (issue 15 item 3, the app
// side). The app's handlers run against the reference service with the `echo_auth` fault on every
// kind of answer (/me, collections, a collection, sets pages, files, consents; status 200 and
// errors): connect, list, open, browse, sync, repair, verify. Every handler result, every pushed
// event payload and notification is kept and searched for the key and any long run of its secret
// part, and so are the settings folder, DEST and the consents folder. Then the recruiter handlers
// the same way with the fault on recruiter endpoints.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED } from '../../src-main/api/redact';
import { RecruiterConnection } from '../../src-main/app/recruiter-connection';
import { createRecruiterHandlers } from '../../src-main/ipc/recruiter-handlers';
import type { MainServices } from '../../src-main/ipc/services';
import { createMemoryStore } from '../../src-main/secrets/memory-store';
import { createConfSettingsStore } from '../../src-main/settings/conf-settings';
import type { IpcResult } from '../../src-shared/ipc-contract';
import type { RecruiterInvokeChannel } from '../../src-shared/recruiter-ipc-contract';
import type { FaultMatch } from '../../src-service/index';
import { mainCollection, servedSets, startService, tempDir, type Service } from '../engine/helpers';
import { keyLeaksIn, keyLeaksInTree } from '../support/key-leaks';
import { recordingApp } from '../support/recording-app';

// Error statuses the handlers answer without a long back-off (5xx and 429 are retried: a one-shot
// fault then shows the echo in the retry's event, and the retry succeeds).
const STATUSES = [200, 400, 401, 403, 404, 422, 429, 500, 503];

let svc: Service;
let root: string;
let work: string;

beforeAll(async () => {
  ({ svc, root } = await startService({ sets: 3, fileSize: 8 * 1024, slots: 2, seed: 181 }));
  work = await tempDir('dsync-ipc-echo-');
});
afterAll(async () => {
  await svc?.close();
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(work, { recursive: true, force: true });
});

describe('delivery handlers against a service that echoes the Authorization header', () => {
  it('no run of the key in any result, event, notification, settings file, DEST or consents file', { timeout: 120_000 }, async () => {
    const { apiKey, collectionId } = mainCollection(svc);
    const settingsDir = path.join(work, 'settings');
    const settings = createConfSettingsStore({ cwd: settingsDir });
    const { services, call, runToEnd, results, emitted, notifications } = recordingApp(settings);
    const echo = (match: FaultMatch, status: number, count?: number) => svc.admin.addFault(match, { type: 'echo_auth', status }, count);
    const dest = path.join(work, 'ds');
    const consents = `${dest}.consents`;

    try {
      // 1. Connect, list, open and browse, each answer echoing the key once per status.
      for (const status of STATUSES) {
        await echo({ path: '^/me$' }, status, 1);
        await call('connection:connect', { baseUrl: svc.deliveryBaseUrl, apiKey });
      }
      await svc.admin.clearFaults();
      expect(await call('connection:connect', { baseUrl: svc.deliveryBaseUrl, apiKey })).toMatchObject({ ok: true });
      const browse: Array<{ match: FaultMatch; channel: keyof MainServices['handlers']; arg?: unknown }> = [
        { match: { path: '^/me$' }, channel: 'connection:get' },
        { match: { path: '^/collections$' }, channel: 'collections:list' },
        { match: { path: `^/collections/${collectionId}$` }, channel: 'collections:get', arg: { collectionId } },
        { match: { path: '/sets$' }, channel: 'sets:list', arg: { collectionId, status: 'accepted', page: 1, perPage: 2 } },
      ];
      for (const { match, channel, arg } of browse) {
        for (const status of STATUSES) {
          await echo(match, status, 1);
          await call(channel, arg);
        }
      }
      await svc.admin.clearFaults();

      // 2. A sync where every answer echoes: two files fail with echoing errors (404 for good, 500 once),
      //    the rest arrive with the echo in a header and the reason phrase; collection, pages and
      //    consents carry an `echo` field.
      settings.setCollectionDataset(settings.activeAccount()!.id, collectionId, { dest });
      const files = (await servedSets(svc, collectionId)).flatMap((s) => s.files);
      await echo({ path: `^/files/${files[0]!.id}$` }, 404);
      await echo({ path: `^/files/${files[1]!.id}$` }, 500, 1);
      for (const p of ['^/files/', `^/collections/${collectionId}$`, '/sets$', '^/consents/']) await echo({ path: p }, 200);
      expect((await runToEnd('sync:start', { collectionId })).lastSummary).toMatchObject({ exitCode: 1 });
      await svc.admin.clearFaults();

      // 3. Syncs that stop on an echoing error: the pages, the collection, the consents.
      await echo({ path: '/sets$' }, 422);
      expect((await runToEnd('sync:start', { collectionId, full: true })).lastSummary?.exitCode).toBeGreaterThan(0);
      await svc.admin.clearFaults();
      await echo({ path: `^/collections/${collectionId}$` }, 401);
      expect((await runToEnd('sync:start', { collectionId })).lastSummary).toMatchObject({ exitCode: 3 });
      await svc.admin.clearFaults();
      await echo({ path: '^/consents/' }, 400);
      await runToEnd('sync:start', { collectionId, full: true });
      await svc.admin.clearFaults();

      // 4. Verify, repair with echoing files, verify again, and everything the window reads back.
      await call('verify:run', { collectionId });
      for (const p of ['^/files/', `^/collections/${collectionId}$`, '/sets$', '^/consents/']) await echo({ path: p }, 200);
      expect((await runToEnd('sync:repair', { collectionId })).lastSummary).toMatchObject({ exitCode: 0 });
      await svc.admin.clearFaults();
      expect(await call('verify:run', { collectionId })).toMatchObject({ ok: true, value: { missing: [], changed: [] } });
      await call('sync:history', { collectionId });
      await call('collections:list');
      await call('settings:get');

      const everything = JSON.stringify([results, emitted, notifications]);
      expect(keyLeaksIn(everything, apiKey)).toEqual([]);
      for (const e of emitted) expect(keyLeaksIn(JSON.stringify(e.payload), apiKey), e.channel).toEqual([]);
      // Not vacuous: the echoes were there and reached the window, redacted.
      expect(everything.split(REDACTED).length - 1).toBeGreaterThan(STATUSES.length * 4);
      expect(emitted.some((e) => e.channel === 'sync:events' && JSON.stringify(e.payload).includes(REDACTED))).toBe(true);
      expect(await keyLeaksInTree(settingsDir, apiKey)).toEqual([]);
      expect(await keyLeaksInTree(dest, apiKey)).toEqual([]);
      expect((await fs.readdir(consents)).length).toBeGreaterThan(0);
      expect(await keyLeaksInTree(consents, apiKey)).toEqual([]);
    } finally {
      await svc.admin.clearFaults();
      await services.shutdown();
    }
  });
});

describe('recruiter handlers against a service that echoes the Authorization header', () => {
  it('no run of the recruiter key in any result or in the settings folder', { timeout: 120_000 }, async () => {
    const apiKey = svc.organizations.find((o) => o.name === 'Acme Field Research')!.apiKey;
    const settingsDir = path.join(work, 'recruiter-settings');
    const settings = createConfSettingsStore({ cwd: settingsDir });
    const handlers = createRecruiterHandlers({ recruiter: new RecruiterConnection({ secrets: createMemoryStore(), settings }) });
    const results: unknown[] = [];
    const call = async (channel: RecruiterInvokeChannel, arg?: unknown): Promise<IpcResult<unknown>> => {
      const r = (await handlers[channel](arg as never)) as IpcResult<unknown>;
      results.push(JSON.parse(JSON.stringify(r)));
      return r;
    };
    const at = (p: string, method?: string): FaultMatch => ({ api: 'recruiter', path: p, ...(method ? { method } : {}) });
    const echo = (match: FaultMatch, status: number) => svc.admin.addFault(match, { type: 'echo_auth', status }, 1);
    try {
      for (const status of STATUSES) {
        await echo(at('^/me$'), status);
        await call('recruiter:connect', { baseUrl: svc.recruiterBaseUrl, apiKey });
      }
      await svc.admin.clearFaults();
      expect(await call('recruiter:connect', { baseUrl: svc.recruiterBaseUrl, apiKey })).toMatchObject({ ok: true });
      const jobs = await call('recruiter:jobs:list', {});
      if (!jobs.ok) throw new Error(jobs.error.message);
      const job = (jobs.value as { jobs: Array<{ id: number }> }).jobs[0]!;
      const apps = await call('recruiter:applications:list', { jobId: job.id });
      if (!apps.ok) throw new Error(apps.error.message);
      const app = (apps.value as Array<{ id: number; data_champ_id: number }>)[0]!;
      const newJob = { title: 'Echo survey', description: 'd', job_type: 'survey', location_type: 'remote', rate: '10', rate_type: 'daily', currency: 'EUR', number_of_positions: 1 };
      const cases: Array<{ match: FaultMatch; channel: RecruiterInvokeChannel; arg?: unknown }> = [
        { match: at('^/me$'), channel: 'recruiter:connection:get' },
        { match: at('^/jobs$', 'GET'), channel: 'recruiter:jobs:list', arg: {} },
        { match: at('^/jobs$', 'POST'), channel: 'recruiter:jobs:create', arg: { job: newJob } },
        { match: at(`^/jobs/${job.id}$`, 'GET'), channel: 'recruiter:jobs:get', arg: { jobId: job.id } },
        { match: at(`^/jobs/${job.id}/applications$`), channel: 'recruiter:applications:list', arg: { jobId: job.id } },
        { match: at(`^/jobs/${job.id}/applications/${app.id}$`), channel: 'recruiter:applications:get', arg: { jobId: job.id, applicationId: app.id } },
        { match: at('^/data-champs$'), channel: 'recruiter:champs:search', arg: {} },
        { match: at('^/data-champs/\\d+$'), channel: 'recruiter:champs:get', arg: { dataChampId: app.data_champ_id } },
        { match: at('/matches$'), channel: 'recruiter:champs:matches', arg: { jobId: job.id } },
      ];
      for (const { match, channel, arg } of cases) {
        for (const status of STATUSES) {
          await echo(match, status);
          await call(channel, arg);
        }
      }
      const everything = JSON.stringify(results);
      expect(keyLeaksIn(everything, apiKey)).toEqual([]);
      expect(everything.split(REDACTED).length - 1).toBeGreaterThan(cases.length * 4);
      expect(await keyLeaksInTree(settingsDir, apiKey)).toEqual([]);
    } finally {
      await svc.admin.clearFaults();
    }
  });
});
