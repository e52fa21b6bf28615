// Local disk failures: a DEST on a 2 MiB tmpfs fills up (clear error, exit 2, no corrupt file,
// and the next run completes once there is space), and a DEST removed while a sync runs (clear
// error, and the next run rebuilds it).
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSync } from '../../src-main/sync/engine';
import { expectDatasetMatches, FAST_TUNING, listFiles, mainCollection, sha256sumCheck, sync, tempDir, useService } from '../engine/helpers';
import { checkDatasetInvariants, servedFileHashes } from './support';

const FILE_SIZE = 300 * 1024; // 4 sets x 2 slots x 300 KiB = 2.4 MiB: more than the 2 MiB tmpfs
const env = useService({ sets: 4, fileSize: FILE_SIZE, slots: 2, seed: 113 });
let work: string;

beforeAll(async () => {
  work = await tempDir('dsync-disk-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

/** Mounts a tmpfs of `size` at `dir`; returns the reason when this machine refuses (not root, no mount). */
function mountTmpfs(dir: string, size: string): string | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (e) {
    return `mount -t tmpfs refused: ${String((e as { stderr?: Buffer }).stderr ?? (e as Error).message).trim()}`;
  }
}

describe('disk full', () => {
  it('a full disk stops the sync with a clear error and no corrupt file; with more space the next run completes', async (ctx) => {
    const { svc, collectionId } = env;
    const mnt = path.join(work, 'small');
    await fs.mkdir(mnt);
    const refused = mountTmpfs(mnt, '2m');
    if (refused) ctx.skip(refused);
    try {
      const dest = path.join(mnt, 'ds');
      // Consents go elsewhere (the default sibling would be on the tmpfs too, which is fine, but keep it simple).
      const consentsDir = path.join(work, 'consents');
      const first = await sync(svc, dest, { consentsDir, concurrency: 2 });
      expect(first.summary.exitCode).toBe(2);
      expect(first.summary.fatal?.kind).toBe('local_fs');
      expect(first.summary.fatal?.message).toMatch(/disk is full/);
      expect(first.summary.fatal?.message).toMatch(/ENOSPC/);
      const served = await servedFileHashes(svc, collectionId);
      const verified = await checkDatasetInvariants(dest, served);
      expect(verified).toBeLessThan(8);
      // No half-written temp file of an atomic write is left behind.
      expect((await listFiles(dest)).filter((f) => f.endsWith('.tmp'))).toEqual([]);

      execFileSync('mount', ['-o', 'remount,size=16m', mnt]);
      const second = await sync(svc, dest, { consentsDir, concurrency: 2 });
      expect(second.summary.exitCode).toBe(0);
      expect(await checkDatasetInvariants(dest, served)).toBe(8);
      await expectDatasetMatches(svc, dest, collectionId);
      expect((await sha256sumCheck(dest)).code).toBe(0);
    } finally {
      if (!refused) execFileSync('umount', [mnt]);
    }
  });
});

describe('DEST removed during a sync', () => {
  it('ends with a clear error naming the folder; the next run rebuilds the dataset', async () => {
    const { svc, collectionId } = env;
    const { apiKey } = mainCollection(svc);
    const dest = path.join(work, 'vanishing');
    // Each file pauses half-way, so the sync is surely mid-transfer when DEST goes.
    await svc.admin.addFault({ path: '^/files/' }, { type: 'stall', afterBytes: FILE_SIZE / 2, ms: 300 });
    let removed: Promise<void> | undefined;
    try {
      const summary = await runSync({ baseUrl: svc.deliveryBaseUrl, apiKey, collectionId, dest, tuning: FAST_TUNING, concurrency: 2 }, (e) => {
        if (!removed && e.type === 'file' && e.state === 'downloading') {
          // Like rm -rf racing the writer: the folder goes away at once, its content soon after.
          const gone = `${dest}.gone`;
          removed = fs.rename(dest, gone).then(() => fs.rm(gone, { recursive: true, force: true, maxRetries: 20, retryDelay: 20 }));
        }
      });
      await removed;
      expect(summary.exitCode).toBe(2);
      expect(summary.fatal?.kind).toBe('local_fs');
      expect(summary.fatal?.message).toContain(dest);
      expect(summary.fatal?.message).toMatch(/removed or unmounted during the sync.*ENOENT/);
    } finally {
      await svc.admin.clearFaults();
    }
    const again = await sync(svc, dest);
    expect(again.summary.exitCode).toBe(0);
    await expectDatasetMatches(svc, dest, collectionId);
    expect((await sha256sumCheck(dest)).code).toBe(0);
  });
});
