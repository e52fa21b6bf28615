// The lock admits one sync: six CLI syncs started at once against a stale lock (a dead pid),
// twenty rounds. Exactly one gets past the lock each round, the others exit 2 "locked". The
// winner is held inside its sync by a slow collection answer, then SIGKILLed, so the next
// round starts from the lock a killed sync really left behind.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLI, mainCollection, runCli, sha256sumCheck, tempDir, useService } from '../engine/helpers';

const ROUNDS = 20;
const SYNCS = 6;

const env = useService({ sets: 2, fileSize: 4 * 1024, slots: 2, seed: 61 });
let work: string;

beforeAll(async () => {
  work = await tempDir('dsync-lockrace-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

/** A pid that surely belonged to a process that is gone now. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('close', resolve));
  return child.pid!;
}

/** A CLI sync; `passed` resolves true on its first NDJSON line (it holds the lock), false when it exits first. */
function startSync(args: string[], childEnv: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [CLI, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let markPassed: (v: boolean) => void = () => undefined;
  const passed = new Promise<boolean>((resolve) => (markPassed = resolve));
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.includes('"type":"start"')) markPassed(true);
  });
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      markPassed(false);
      resolve(code);
    }),
  );
  return { child, passed, exited, output: () => out };
}

it(`${SYNCS} syncs started at once against a stale lock: exactly one winner, ${ROUNDS} rounds`, { timeout: 600_000 }, async () => {
  const { svc } = env;
  const { apiKey, collectionId } = mainCollection(svc);
  const dest = path.join(work, 'ds');
  await fs.mkdir(path.join(dest, '.dataset-sync'), { recursive: true });
  await fs.writeFile(path.join(dest, '.dataset-sync', 'lock'), JSON.stringify({ pid: await deadPid(), host: os.hostname(), startedAt: new Date().toISOString() }) + '\n');
  const args = ['sync', '--base-url', svc.deliveryBaseUrl, '--collection', String(collectionId), '--dest', dest, '--json'];
  const childEnv = { ...process.env, DATASET_SYNC_API_KEY: apiKey, DATASET_SYNC_RETRY_BASE_MS: '20' };

  for (let round = 1; round <= ROUNDS; round++) {
    // The winner waits here while the others try the lock.
    await svc.admin.addFault({ path: '^/collections/\\d+$' }, { type: 'latency', ms: 60_000 });
    const syncs = Array.from({ length: SYNCS }, () => startSync(args, childEnv));
    const passed = await Promise.all(syncs.map((s) => s.passed));
    const winners = syncs.filter((_, i) => passed[i]);
    const losers = syncs.filter((_, i) => !passed[i]);
    for (const w of winners) w.child.kill('SIGKILL');
    const codes = await Promise.all(losers.map((s) => s.exited));
    await Promise.all(winners.map((s) => s.exited));
    await svc.admin.clearFaults();
    expect(winners.length, `round ${round}: ${winners.length} syncs got past the lock`).toBe(1);
    for (const [i, s] of losers.entries()) {
      expect(codes[i], s.output()).toBe(2);
      expect(s.output()).toMatch(/"kind":"locked"|Another sync/);
    }
  }

  // The lock of the last killed winner is stale too: a normal sync takes it over and completes.
  const r = await runCli(args, { env: { DATASET_SYNC_API_KEY: apiKey } });
  expect(r.code, r.stderr).toBe(0);
  expect((await sha256sumCheck(dest)).code).toBe(0);
  const debris = (await fs.readdir(path.join(dest, '.dataset-sync'))).filter((n) => n.startsWith('lock'));
  expect(debris).toEqual([]);
});
