// A reader of `sync --json` that stops reading (`dataset-sync sync --json | head -1`): the sync
// ends as Ctrl-C ends it, says why on stderr, keeps what it verified, and the next sync completes
// the dataset. Before, the CLI died on EPIPE with a stack trace.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLI, expectDatasetMatches, mainCollection, runCli, tempDir, useService } from '../engine/helpers';

const env = useService({ sets: 40, fileSize: 64 * 1024, slots: 2, seed: 5 });
let work: string;

beforeAll(async () => {
  work = await tempDir('dsync-stdout-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

it('a closed stdout cancels the sync in words, and the next sync completes the dataset', async () => {
  const { svc } = env;
  const { apiKey, collectionId } = mainCollection(svc);
  const dest = path.join(work, 'ds');
  const args = ['sync', '--base-url', svc.deliveryBaseUrl, '--collection', String(collectionId), '--dest', dest, '--json', '--concurrency', '1'];
  const childEnv = { ...process.env, DATASET_SYNC_API_KEY: apiKey };
  // Every file is slowed, so the reader surely leaves mid-sync.
  await svc.admin.addFault({ path: '^/files/' }, { type: 'latency', ms: 100 }, 1000);
  const child = spawn(process.execPath, [CLI, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  // The first line, then the reader goes away, as `head -1` does.
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  child.stdout.destroy();
  const code = await exited;
  expect(stderr).toMatch(/standard output was closed \(EPIPE\); cancelling the sync\. Partial downloads are kept\./);
  expect(stderr).not.toMatch(/unexpected error|Unhandled|at .*\.js:\d+/);
  expect(code).toBe(1); // cancelled (docs/contracts.md §2)
  await svc.admin.clearFaults();
  const next = await runCli(args, { env: childEnv });
  expect(next.code).toBe(0);
  await expectDatasetMatches(svc, dest, collectionId);
});
