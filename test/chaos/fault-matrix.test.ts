// Every fault switch of the reference service, through the CLI as users run it, at concurrency
// 1 and 8: the sync ends verified (exit 0). A permanent fault on one file ends with exit 1 and
// names exactly that file and why; the next run, fault cleared, completes it.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fault } from '../../src-service/index';
import { expectDatasetMatches, listFiles, mainCollection, parseNdjson, runCli, servedSets, sha256sumCheck, tempDir, useService } from '../engine/helpers';
import type { SyncSummary } from '../../src-shared/sync-events';
import { checkDatasetInvariants, servedFileHashes } from './support';

const FILE_SIZE = 24 * 1024;
const env = useService({ sets: 3, fileSize: FILE_SIZE, slots: 2, seed: 97 });
let work: string;

// Short back-off and watchdog so stalls and retries cost milliseconds, not the 30 s defaults.
const FAST_ENV = { DATASET_SYNC_RETRY_BASE_MS: '20', DATASET_SYNC_MAX_ATTEMPTS: '6', DATASET_SYNC_STALL_TIMEOUT_MS: '600' };

beforeAll(async () => {
  work = await tempDir('dsync-matrix-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

async function cliSync(dest: string, concurrency: number) {
  const { svc } = env;
  const { apiKey, collectionId } = mainCollection(svc);
  const args = ['sync', '--base-url', svc.deliveryBaseUrl, '--collection', String(collectionId), '--dest', dest, '--json', '--concurrency', String(concurrency)];
  const r = await runCli(args, { env: { DATASET_SYNC_API_KEY: apiKey, ...FAST_ENV }, timeoutMs: 60_000 });
  const last = parseNdjson(r.stdout).at(-1);
  if (last?.type !== 'summary') throw new Error(`no summary line; exit ${r.code}; stderr: ${r.stderr}`);
  return { ...r, summary: last.summary as SyncSummary };
}

type Scenario = { name: string; faults: Array<{ fault: Fault; times: number; path?: string }> };

const SCENARIOS: Scenario[] = [
  { name: '5xx burst on files', faults: [{ fault: { type: 'status', status: 503 }, times: 4 }] },
  { name: '5xx burst on the sets feed', faults: [{ fault: { type: 'status', status: 502 }, times: 2, path: '/sets$' }] },
  { name: '5xx burst on consents', faults: [{ fault: { type: 'status', status: 500 }, times: 3, path: '^/consents/' }] },
  { name: 'connection reset mid-body', faults: [{ fault: { type: 'reset', afterBytes: 5000 }, times: 3 }] },
  { name: 'stall mid-body (watchdog)', faults: [{ fault: { type: 'stall', afterBytes: 7000, ms: 20_000 }, times: 2 }] },
  { name: 'truncated body', faults: [{ fault: { type: 'truncate', afterBytes: 9000 }, times: 3 }] },
  { name: 'flipped byte', faults: [{ fault: { type: 'flip', atByte: 100 }, times: 2 }] },
  {
    name: 'Range ignored on resume',
    faults: [
      { fault: { type: 'truncate', afterBytes: 9000 }, times: 2 },
      { fault: { type: 'ignore_range' }, times: 2 },
    ],
  },
  { name: '429 with Retry-After', faults: [{ fault: { type: 'rate_limit', retryAfter: 1 }, times: 2 }] },
  { name: '429 with Retry-After on the sets feed', faults: [{ fault: { type: 'rate_limit', retryAfter: 1 }, times: 1, path: '/sets$' }] },
  { name: 'latency', faults: [{ fault: { type: 'latency', ms: 250 }, times: 4 }] },
];

describe('fault matrix through the CLI', () => {
  for (const s of SCENARIOS) {
    for (const concurrency of [1, 8]) {
      it(`${s.name}, concurrency ${concurrency}: verified, exit 0`, async () => {
        const { svc, collectionId } = env;
        const dest = path.join(work, `${s.name.replace(/\W+/g, '-')}-c${concurrency}`);
        for (const f of s.faults) await svc.admin.addFault({ path: f.path ?? '^/files/' }, f.fault, f.times);
        const r = await cliSync(dest, concurrency);
        expect(r.code, r.stderr).toBe(0);
        expect(r.summary.filesDownloaded).toBe(6);
        // Every fault was actually hit (retired after its `times`).
        expect(await svc.admin.listFaults()).toEqual([]);
        await expectDatasetMatches(svc, dest, collectionId);
        expect(await checkDatasetInvariants(dest, await servedFileHashes(svc, collectionId))).toBe(6);
        expect((await sha256sumCheck(dest)).code).toBe(0);
        expect(await listFiles(path.join(dest, '.dataset-sync', 'partial'))).toEqual([]);
      });
    }
  }
});

describe('a permanent fault on one file', () => {
  const PERMANENT: Array<{ name: string; fault: Fault; reason: RegExp; concurrency: number }> = [
    { name: '503 forever', fault: { type: 'status', status: 503 }, reason: /HTTP 503.*gave up after 6 attempts/, concurrency: 8 },
    { name: 'a flipped byte every time', fault: { type: 'flip', atByte: 10 }, reason: /SHA-256 mismatch \(3 times/, concurrency: 1 },
    { name: 'a stall before the first byte every time', fault: { type: 'stall', afterBytes: 0, ms: 20_000 }, reason: /stalled.*gave up after 6 attempts/, concurrency: 8 },
  ];
  for (const p of PERMANENT) {
    it(`${p.name}: exit 1 naming exactly that file and why; the next run completes it`, async () => {
      const { svc, collectionId } = env;
      const dest = path.join(work, `permanent-${p.name.replace(/\W+/g, '-')}`);
      const victim = (await servedSets(svc, collectionId))[1]!;
      const file = victim.files[0]!;
      await svc.admin.addFault({ path: `^/files/${file.id}$` }, p.fault);
      const first = await cliSync(dest, p.concurrency);
      expect(first.code).toBe(1);
      expect(first.summary.filesFailed).toBe(1);
      expect(first.summary.filesDownloaded).toBe(5);
      expect(first.summary.failures).toHaveLength(1);
      expect(first.summary.failures[0]).toMatchObject({ setId: victim.id, fileId: file.id, path: `sets/${victim.id}/${file.filename}` });
      expect(first.summary.failures[0]!.reason).toMatch(p.reason);
      expect(await checkDatasetInvariants(dest, await servedFileHashes(svc, collectionId))).toBe(5);
      expect((await sha256sumCheck(dest)).code).toBe(0);

      await svc.admin.clearFaults();
      const second = await cliSync(dest, p.concurrency);
      expect(second.code, second.stderr).toBe(0);
      expect(second.summary.filesDownloaded).toBe(1);
      await expectDatasetMatches(svc, dest, collectionId);
      expect((await sha256sumCheck(dest)).code).toBe(0);
    });
  }
});
