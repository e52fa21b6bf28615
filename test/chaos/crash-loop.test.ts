// Crash loop: a CLI sync of ~156 MiB is SIGKILLed at seeded random moments, at least 10 times,
// then allowed to finish. After every kill the dataset folder must be consistent (no partial
// bytes under a final name, manifest.csv/SHA256SUMS whole and true); at the end it must equal
// the service's accepted sets, and resumes must keep the bytes sent under 1.3x the dataset.
// The engine's records (state.db) must open after every kill, pass SQLite's integrity check and
// vouch only for files that are there with their served hash; at the end `verify` is clean.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLI, expectDatasetMatches, listFiles, mainCollection, parseNdjson, runCli, sha256sumCheck, tempDir, useService } from '../engine/helpers';
import { checkDatasetInvariants, seededRandom, servedFileHashes } from './support';

const SETS = 13;
const SLOTS = 4;
const FILE_SIZE = 3 * 1024 * 1024; // 13 x 4 x 3 MiB = 156 MiB
const KILLS = 10;
const SEED = 20240611;

const env = useService({ sets: SETS, fileSize: FILE_SIZE, slots: SLOTS, seed: 77 });
let work: string;

beforeAll(async () => {
  work = await tempDir('dsync-crash-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

/**
 * state.db right after a kill: it opens (recovering its WAL), is intact, and every file it
 * records is on disk, served, with the recorded size and the served sha256. Returns the count.
 */
async function checkStateDb(dest: string, served: Map<string, string>): Promise<number> {
  const file = path.join(dest, '.dataset-sync', 'state.db');
  if (!(await fs.stat(file).then(() => true, () => false))) return 0;
  const db = new Database(file);
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const rows = db.prepare('SELECT path, size_bytes, sha256 FROM files').all() as Array<{ path: string; size_bytes: number; sha256: string }>;
    for (const r of rows) {
      expect(r.sha256, r.path).toBe(served.get(r.path));
      expect((await fs.stat(path.join(dest, r.path))).size, r.path).toBe(r.size_bytes);
    }
    return rows.length;
  } finally {
    db.close();
  }
}

/** Starts a CLI sync; resolves `started` on its first NDJSON line (the engine holds the lock and is working). */
function startSync(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (stdout.includes('\n')) markStarted();
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      markStarted();
      resolve({ code, signal });
    }),
  );
  return { child, started, exited, output: () => ({ stdout, stderr }) };
}

it('survives 10+ SIGKILLs at random moments and converges to the served dataset', { timeout: 180_000 }, async () => {
  const { svc } = env;
  const { apiKey, collectionId } = mainCollection(svc);
  const dest = path.join(work, 'ds');
  const args = ['sync', '--base-url', svc.deliveryBaseUrl, '--collection', String(collectionId), '--dest', dest, '--json', '--concurrency', '2'];
  const childEnv = { ...process.env, DATASET_SYNC_API_KEY: apiKey, DATASET_SYNC_RETRY_BASE_MS: '20' };
  const served = await servedFileHashes(svc, collectionId);
  const datasetBytes = SETS * SLOTS * FILE_SIZE;
  expect(served.size).toBe(SETS * SLOTS);

  // Every file pauses 250 ms half-way, so a kill lands mid-body (a resume) as often as between files.
  await svc.admin.addFault({ path: '^/files/' }, { type: 'stall', afterBytes: FILE_SIZE / 2, ms: 250 });
  await svc.admin.resetStats();
  const random = seededRandom(SEED);
  let kills = 0;
  const verifiedAfterKill: number[] = [];
  const recordedAfterKill: number[] = [];
  for (let run = 0; kills < KILLS && run < KILLS * 3; run++) {
    const p = startSync(args, childEnv);
    await p.started;
    await sleep(50 + Math.floor(random() * 900));
    const killed = p.child.kill('SIGKILL');
    const { signal, code } = await p.exited;
    if (signal === 'SIGKILL' && killed) kills++;
    else expect(code, p.output().stderr).toBe(0); // finished before the kill: must have succeeded
    verifiedAfterKill.push(await checkDatasetInvariants(dest, served));
    recordedAfterKill.push(await checkStateDb(dest, served));
  }
  expect(kills).toBeGreaterThanOrEqual(KILLS);
  // The kills did not keep the sync from advancing.
  expect(verifiedAfterKill.at(-1)).toBeGreaterThan(0);
  expect(recordedAfterKill.at(-1)).toBeGreaterThan(0);

  await svc.admin.clearFaults();
  const last = await runCli(args, { env: { DATASET_SYNC_API_KEY: apiKey }, timeoutMs: 120_000 });
  expect(last.code, last.stderr).toBe(0);
  const summary = parseNdjson(last.stdout).at(-1)!;
  expect(summary.type).toBe('summary');

  // The dataset equals the service's accepted sets exactly.
  const state = await svc.admin.state();
  const acceptedIds = state.collections.find((c) => c.id === collectionId)!.accepted_set_ids.map(String).sort();
  expect((await fs.readdir(path.join(dest, 'sets'))).sort()).toEqual(acceptedIds);
  await expectDatasetMatches(svc, dest, collectionId);
  expect(await checkDatasetInvariants(dest, served)).toBe(served.size);
  expect((await sha256sumCheck(dest)).code).toBe(0);
  expect(await listFiles(path.join(dest, '.dataset-sync', 'partial'))).toEqual([]);
  expect(await checkStateDb(dest, served)).toBe(served.size);
  // The engine's own re-hash of every file agrees.
  const verify = await runCli(['verify', '--dest', dest, '--json'], { timeoutMs: 120_000 });
  expect(verify.code, verify.stderr).toBe(0);
  expect(JSON.parse(verify.stdout.trim().split('\n').at(-1)!)).toMatchObject({ type: 'verify', ok: served.size, missing: [], changed: [], extra: [] });

  const stats = await svc.admin.stats();
  expect(stats.fileBytesSent).toBeGreaterThanOrEqual(datasetBytes);
  expect(stats.fileBytesSent).toBeLessThan(1.3 * datasetBytes);
});
