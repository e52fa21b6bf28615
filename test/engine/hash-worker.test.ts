// SHA-256 on a worker thread (sha256-stream.ts). This machine has 2 cores, where the worker is
// off by default, so these tests force it (tuning.hashWorkers, DATASET_SYNC_HASH_WORKERS for the CLI) and check that the
// digests, the resume of held bytes and the mismatch detection are the same as on the main thread.
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tuningFromEnv } from '../../src-main/cli/commands';
import { createSha256Stream, runningHashWorkers, WORKER_HASH_MIN_BYTES } from '../../src-main/sync/sha256-stream';
import { expectDatasetMatches, FAST_TUNING, mainCollection, parseNdjson, runCli, servedSets, sha256sumCheck, sync, tempDir, useService } from './helpers';

/** Feeds `data` in uneven chunks, pausing whenever the stream reports a backlog. */
async function digestInChunks(data: Buffer, sizeHint: number): Promise<string> {
  const s = createSha256Stream(sizeHint, 1);
  let off = 0;
  let step = 1;
  while (off < data.length) {
    const n = Math.min(data.length - off, (step++ * 7919) % 300_000 + 1);
    s.update(data.subarray(off, off + n));
    off += n;
    if (s.backlogged) await s.drained();
  }
  return s.digest();
}

describe('createSha256Stream', () => {
  it('gives the digest of node:crypto on a worker and on the main thread, for many streams at once', async () => {
    const inputs = Array.from({ length: 6 }, (_, i) => randomBytes(WORKER_HASH_MIN_BYTES + i * 333_333));
    const want = inputs.map((d) => createHash('sha256').update(d).digest('hex'));
    expect(await Promise.all(inputs.map((d) => digestInChunks(d, d.length)))).toEqual(want);
    expect(runningHashWorkers()).toBe(1);
    // Below the size threshold the hash stays on this thread; empty input too.
    expect(await digestInChunks(inputs[0]!.subarray(0, 1000), 1000)).toBe(createHash('sha256').update(inputs[0]!.subarray(0, 1000)).digest('hex'));
    expect(await createSha256Stream(WORKER_HASH_MIN_BYTES, 1).digest()).toBe(createHash('sha256').digest('hex'));
  });

  it('a discarded stream leaves the others and the next ones correct', async () => {
    const a = createSha256Stream(WORKER_HASH_MIN_BYTES, 1);
    a.update(randomBytes(3 * 1024 * 1024 + 17));
    a.discard();
    const data = randomBytes(WORKER_HASH_MIN_BYTES * 2);
    expect(await digestInChunks(data, data.length)).toBe(createHash('sha256').update(data).digest('hex'));
  });

  it('the CLI reads DATASET_SYNC_HASH_WORKERS into the options (0 = main thread only)', () => {
    expect(tuningFromEnv({ DATASET_SYNC_HASH_WORKERS: '0' }).hashWorkers).toBe(0);
    expect(tuningFromEnv({ DATASET_SYNC_HASH_WORKERS: '2' }).hashWorkers).toBe(2);
    expect(tuningFromEnv({}).hashWorkers).toBeUndefined();
    expect(() => tuningFromEnv({ DATASET_SYNC_HASH_WORKERS: 'many' })).toThrow(/DATASET_SYNC_HASH_WORKERS/);
  });
});

describe('sync with the hash on a worker', () => {
  const env = useService({ sets: 2, fileSize: WORKER_HASH_MIN_BYTES + 1024 * 1024 + 3, slots: 2, seed: 5 });

  async function syncOnce(): Promise<Awaited<ReturnType<typeof sync>>> {
    const dir = await tempDir('dsync-hashworker-');
    const dest = path.join(dir, 'ds');
    try {
      const r = await sync(env.svc, dest, { tuning: { ...FAST_TUNING, hashWorkers: 1 } });
      expect(r.summary.exitCode).toBe(0);
      await expectDatasetMatches(env.svc, dest, env.collectionId);
      expect((await sha256sumCheck(dest)).code).toBe(0);
      expect(await fs.readdir(path.join(dest, '.dataset-sync', 'partial'))).toEqual([]);
      return r;
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  it('verifies every file, resumes a cut transfer (held bytes hashed on the worker) and catches a flipped byte', async () => {
    const { svc } = env;
    const sets = await servedSets(svc, env.collectionId);
    const files = sets.flatMap((s) => s.files);
    const total = files.reduce((a, f) => a + f.size_bytes, 0);
    const [cut, flipped] = files;
    await svc.admin.addFault({ path: `^/files/${cut!.id}$` }, { type: 'truncate', afterBytes: 2 * 1024 * 1024 + 11 }, 1);
    await svc.admin.addFault({ path: `^/files/${flipped!.id}$` }, { type: 'flip', atByte: 4 * 1024 * 1024 + 5 }, 1);
    const { summary, events } = await syncOnce();
    expect(runningHashWorkers()).toBe(1);
    const retried = (id: number) => events.some((e) => e.type === 'file' && e.state === 'retrying' && e.fileId === id);
    expect(retried(cut!.id)).toBe(true);
    expect(retried(flipped!.id)).toBe(true);
    // The cut file was resumed (its held bytes hashed again), the flipped one sent twice in full.
    expect(summary.bytesDownloaded).toBe(total + flipped!.size_bytes);
    expect(summary.bytesHashed).toBe(total + flipped!.size_bytes + 2 * 1024 * 1024 + 11);
  });

  it('the CLI with DATASET_SYNC_HASH_WORKERS=1 syncs and verifies every file', async () => {
    const dir = await tempDir('dsync-hashworker-cli-');
    const dest = path.join(dir, 'ds');
    try {
      const { svc, collectionId } = env;
      const r = await runCli(['sync', '--base-url', svc.deliveryBaseUrl, '--collection', String(collectionId), '--dest', dest, '--json'], {
        env: { DATASET_SYNC_API_KEY: mainCollection(svc).apiKey, DATASET_SYNC_HASH_WORKERS: '1' },
      });
      expect(r.code).toBe(0);
      const summary = parseNdjson(r.stdout).find((e) => e.type === 'summary');
      expect(summary?.type === 'summary' && summary.summary.filesDownloaded).toBe(4);
      await expectDatasetMatches(svc, dest, collectionId);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
