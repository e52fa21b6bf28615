// Resume across process restarts: a CLI sync is SIGKILLed mid-file, and the next run asks
// only for the bytes it does not hold (checked with the service's byte counter).
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLI, expectDatasetMatches, mainCollection, parseNdjson, runCli, sha256sumCheck, tempDir, useService } from '../engine/helpers';

const FILE_SIZE = 3 * 1024 * 1024;
const STALL_AFTER = 1024 * 1024;
const env = useService({ sets: 1, fileSize: FILE_SIZE, slots: 1, seed: 3 });
let work: string;

beforeAll(async () => {
  work = await tempDir('dsync-resume-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

async function partBytes(dir: string): Promise<number> {
  try {
    let n = 0;
    for (const f of await fs.readdir(dir)) n += (await fs.stat(path.join(dir, f))).size;
    return n;
  } catch {
    return 0;
  }
}

it('a killed sync resumes from its .part file with a Range request', async () => {
  const { svc } = env;
  const { apiKey, collectionId } = mainCollection(svc);
  const dest = path.join(work, 'ds');
  const args = ['sync', '--base-url', svc.deliveryBaseUrl, '--collection', String(collectionId), '--dest', dest, '--json'];
  const childEnv = { ...process.env, DATASET_SYNC_API_KEY: apiKey, DATASET_SYNC_STALL_TIMEOUT_MS: '60000' };

  // The file stalls after 1 MiB, so the first process is surely mid-transfer when it is killed.
  await svc.admin.addFault({ path: '^/files/' }, { type: 'stall', afterBytes: STALL_AFTER, ms: 60_000 }, 1);
  const child = spawn(process.execPath, [CLI, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.resume();
  child.stderr.resume();
  const exited = new Promise((r) => child.on('close', r));
  const partial = path.join(dest, '.dataset-sync', 'partial');
  let held = 0;
  for (let i = 0; i < 300 && held < STALL_AFTER / 2; i++) {
    await sleep(100);
    held = await partBytes(partial);
  }
  expect(held).toBeGreaterThan(0);
  child.kill('SIGKILL');
  await exited;
  held = await partBytes(partial);
  expect(held).toBeGreaterThan(0);
  expect(held).toBeLessThan(FILE_SIZE);
  // Nothing unverified under a final name.
  const sets = await fs.readdir(path.join(dest, 'sets')).catch(() => [] as string[]);
  for (const s of sets) expect((await fs.readdir(path.join(dest, 'sets', s))).filter((f) => f !== 'set.json')).toEqual([]);

  await svc.admin.clearFaults();
  await svc.admin.resetStats();
  const second = await runCli(args, { env: { DATASET_SYNC_API_KEY: apiKey } });
  expect(second.code).toBe(0);
  const stats = await svc.admin.stats();
  expect(stats.fileRequests).toBe(1);
  expect(stats.fileBytesSent).toBe(FILE_SIZE - held);
  const summary = parseNdjson(second.stdout).at(-1)!;
  if (summary.type !== 'summary') throw new Error('no summary');
  expect(summary.summary.bytesDownloaded).toBe(FILE_SIZE - held);
  expect(summary.summary.bytesHashed).toBe(FILE_SIZE);
  await expectDatasetMatches(svc, dest, collectionId);
  expect((await sha256sumCheck(dest)).code).toBe(0);
});
