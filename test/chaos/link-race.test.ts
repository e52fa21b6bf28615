// A local attacker races the sync (issue 15 item 4): while a download is in flight (the service
// stalls it half-way), a folder on the way to its final name is swapped for a symlink to a
// folder outside DEST. The rename into place is checked against DEST's real path before and
// after: the file fails (exit 1), nothing outside DEST is listed in manifest.csv or SHA256SUMS,
// and `sha256sum -c` passes.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runSync } from '../../src-main/sync/engine';
import type { SyncEvent } from '../../src-shared/sync-events';
import { FAST_TUNING, mainCollection, servedSets, sha256sumCheck, tempDir, useService } from '../engine/helpers';

const FILE_SIZE = 64 * 1024;
const env = useService({ sets: 2, fileSize: FILE_SIZE, slots: 2, seed: 1504 });

/** Runs a sync whose file `fileId` stalls half-way; `swap` runs while it is stalled. */
async function syncWithSwap(dest: string, fileId: number, swap: () => Promise<void>) {
  const { svc } = env;
  const { apiKey, collectionId } = mainCollection(svc);
  await svc.admin.addFault({ path: `^/files/${fileId}$` }, { type: 'stall', afterBytes: FILE_SIZE / 2, ms: 2500 }, 1);
  const events: SyncEvent[] = [];
  let swapped: Promise<void> | undefined;
  const summary = await runSync(
    { baseUrl: svc.deliveryBaseUrl, apiKey, collectionId, dest, concurrency: 1, tuning: { ...FAST_TUNING, stallTimeoutMs: 6000 } },
    (e) => {
      events.push(e);
      if (e.type === 'file' && e.fileId === fileId && e.state === 'downloading') swapped ??= sleep(400).then(swap);
    },
  );
  await swapped;
  return { summary, events };
}

async function listedPaths(dest: string): Promise<string[]> {
  const sums = await fs.readFile(path.join(dest, 'SHA256SUMS'), 'utf8');
  return sums
    .split('\n')
    .filter(Boolean)
    .map((l) => l.slice(66));
}

describe('a folder swapped for a symlink while a file downloads', () => {
  it('sets/<id> -> a folder outside DEST: the file is not moved there, nothing of that set is listed', { timeout: 60_000 }, async () => {
    const { svc, collectionId } = env;
    const outer = await tempDir('dsync-linkrace-');
    try {
      const dest = path.join(outer, 'ds');
      const elsewhere = path.join(outer, 'elsewhere');
      const [set] = await servedSets(svc, collectionId);
      const target = set!.files.at(-1)!;
      const setDir = path.join(dest, 'sets', String(set!.id));
      const { summary, events } = await syncWithSwap(dest, target.id, async () => {
        await fs.rename(setDir, elsewhere); // the set's verified files go along
        await fs.symlink(elsewhere, setDir);
      });
      expect(summary.exitCode).not.toBe(0);
      const failed = events.find((e) => e.type === 'file' && e.fileId === target.id && e.state === 'failed');
      expect(failed?.type === 'file' && failed.reason).toMatch(/no longer resolves inside DEST/);
      await expect(fs.lstat(path.join(elsewhere, target.filename))).rejects.toThrow();
      expect((await listedPaths(dest)).filter((p) => p.startsWith(`sets/${set!.id}/`))).toEqual([]);
      expect((await fs.readFile(path.join(dest, 'manifest.csv'), 'utf8')).includes(`sets/${set!.id}/`)).toBe(false);
      expect((await sha256sumCheck(dest)).code).toBe(0);
    } finally {
      await fs.rm(outer, { recursive: true, force: true });
    }
  });

  it('sets -> an empty folder outside DEST: the file that ended up there is reported, never listed', { timeout: 60_000 }, async () => {
    const { svc, collectionId } = env;
    const outer = await tempDir('dsync-linkrace-');
    try {
      const dest = path.join(outer, 'ds');
      const elsewhere = path.join(outer, 'elsewhere');
      const [set] = await servedSets(svc, collectionId);
      const target = set!.files.at(-1)!;
      const { summary, events } = await syncWithSwap(dest, target.id, async () => {
        await fs.rename(path.join(dest, 'sets'), path.join(outer, 'old-sets'));
        await fs.mkdir(elsewhere);
        await fs.symlink(elsewhere, path.join(dest, 'sets'));
      });
      expect(summary.exitCode).not.toBe(0);
      const failed = events.find((e) => e.type === 'file' && e.fileId === target.id && e.state === 'failed');
      expect(failed?.type === 'file' && failed.reason).toMatch(/ended up at .*outside DEST, and is not listed/);
      // Every set now lies behind the link: nothing is listed (so there is nothing for sha256sum to check).
      expect(await listedPaths(dest)).toEqual([]);
    } finally {
      await fs.rm(outer, { recursive: true, force: true });
    }
  });
});
