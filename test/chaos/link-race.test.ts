// A local attacker races the sync (issue 15 item 4): while a download is in flight (the service
// stalls it half-way), a folder on the way to its final name is swapped for a symlink to a
// folder outside DEST. The rename into place is checked against DEST's real path before and
// after: the file fails (exit 1), nothing outside DEST is listed in manifest.csv or SHA256SUMS,
// and `sha256sum -c` passes. Also: a file deleted after this sync verified it, before the sync ends, and a
// set folder swapped for a link between two syncs.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runSync } from '../../src-main/sync/engine';
import type { SyncEvent } from '../../src-shared/sync-events';
import { FAST_TUNING, mainCollection, servedSets, sha256sumCheck, useService } from '../engine/helpers';
import { withTempDest } from '../engine/pages';

// A whole transfer slot each (sync-pools.ts): at concurrency 1 the stalled file is the only transfer, so the
// other set's files come after the swap, as the race needs.
const FILE_SIZE = 1024 * 1024;
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

/** One race in `dest`: the first served set's last file stalls half-way while `swap(setDir)` runs. */
async function race(dest: string, swap: (setDir: string) => Promise<void>) {
  const { svc, collectionId } = env;
  const [set] = await servedSets(svc, collectionId);
  const target = set!.files.at(-1)!;
  const { summary, events } = await syncWithSwap(dest, target.id, () => swap(path.join(dest, 'sets', String(set!.id))));
  expect(summary.exitCode).not.toBe(0);
  const failed = events.find((e) => e.type === 'file' && e.fileId === target.id && e.state === 'failed');
  // Whatever the reason's words, the code says the folder led outside the dataset.
  expect(failed?.type === 'file' && failed.code).toBe('escaped');
  return { setId: set!.id, target, reason: failed?.type === 'file' ? failed.reason : undefined };
}

describe('a folder swapped for a symlink while a file downloads', () => {
  it('sets/<id> -> a folder outside DEST: the file is not moved there, nothing of that set is listed', { timeout: 60_000 }, async () => {
    await withTempDest(async (dest, outer) => {
      const elsewhere = path.join(outer, 'elsewhere');
      const { setId, target, reason } = await race(dest, async (setDir) => {
        await fs.rename(setDir, elsewhere); // the set's verified files go along
        await fs.symlink(elsewhere, setDir);
      });
      expect(reason).toMatch(/no longer resolves inside DEST/);
      await expect(fs.lstat(path.join(elsewhere, target.filename))).rejects.toThrow();
      expect((await listedPaths(dest)).filter((p) => p.startsWith(`sets/${setId}/`))).toEqual([]);
      expect((await fs.readFile(path.join(dest, 'manifest.csv'), 'utf8')).includes(`sets/${setId}/`)).toBe(false);
      expect((await sha256sumCheck(dest)).code).toBe(0);
    });
  });

  // The set folder is not behind the link (elsewhere is empty): a realpath of the set folder found
  // nothing there and the file was moved outside, then reported; the lstat of every folder on
  // the way sees the link on `sets` itself and refuses before the rename.
  it('sets -> an empty folder outside DEST: refused before the rename, nothing moved there, never listed', { timeout: 60_000 }, async () => {
    await withTempDest(async (dest, outer) => {
      const elsewhere = path.join(outer, 'elsewhere');
      const { reason } = await race(dest, async () => {
        await fs.rename(path.join(dest, 'sets'), path.join(outer, 'old-sets'));
        await fs.mkdir(elsewhere);
        await fs.symlink(elsewhere, path.join(dest, 'sets'));
      });
      expect(reason).toMatch(/no longer resolves inside DEST \(it leads to .*elsewhere\/\d+\)/);
      expect(await fs.readdir(elsewhere)).toEqual([]);
      // Every set now lies behind the link: nothing is listed (so there is nothing for sha256sum to check).
      expect(await listedPaths(dest)).toEqual([]);
    });
  });
});

describe('a file deleted after this sync verified it, before the sync ends', () => {
  it('is not listed in SHA256SUMS or manifest.csv, and the next sync fetches it again', { timeout: 60_000 }, async () => {
    await withTempDest(async (dest) => {
      const [first, second] = await servedSets(env.svc, env.collectionId);
      const gone = `sets/${first!.id}/${first!.files[0]!.filename}`;
      // The second set's last file stalls; the first set is verified by then and loses a file.
      const { summary } = await syncWithSwap(dest, second!.files.at(-1)!.id, () => fs.rm(path.join(dest, gone)));
      expect(summary.exitCode).toBe(0);
      expect(await listedPaths(dest)).not.toContain(gone);
      expect((await fs.readFile(path.join(dest, 'manifest.csv'), 'utf8')).includes(gone)).toBe(false);
      expect((await sha256sumCheck(dest)).code).toBe(0);

      const { apiKey, collectionId } = mainCollection(env.svc);
      const again = await runSync({ baseUrl: env.svc.deliveryBaseUrl, apiKey, collectionId, dest, tuning: FAST_TUNING }, () => undefined);
      expect(again.exitCode).toBe(0);
      expect(again.filesDownloaded).toBe(1);
      expect(await listedPaths(dest)).toContain(gone);
      expect((await sha256sumCheck(dest)).code).toBe(0);
    });
  });
});

describe('a set folder swapped for a link between two syncs', () => {
  it('is found by the next sync, which stops with a clear message and lists none of its files', { timeout: 60_000 }, async () => {
    await withTempDest(async (dest, outer) => {
      const { apiKey, collectionId } = mainCollection(env.svc);
      const options = { baseUrl: env.svc.deliveryBaseUrl, apiKey, collectionId, dest, tuning: FAST_TUNING };
      expect((await runSync(options, () => undefined)).exitCode).toBe(0);
      const [set] = await servedSets(env.svc, collectionId);
      const setDir = path.join(dest, 'sets', String(set!.id));
      const elsewhere = path.join(outer, 'elsewhere');
      await fs.rename(setDir, elsewhere); // the same files, same sizes and mtimes, now outside DEST
      await fs.symlink(elsewhere, setDir);

      const events: SyncEvent[] = [];
      const summary = await runSync(options, (e) => events.push(e));
      expect(summary.diskCheck?.changed).toBe(set!.files.length);
      // The set is fetched again, and writing into its folder is refused as for any linked folder.
      expect(events.some((e) => e.type === 'set' && e.setId === set!.id && e.reason?.includes('is not a real folder'))).toBe(true);
      expect(summary.fatal?.message).toMatch(/is a symbolic link; refusing to follow it out of the dataset folder/);
      expect((await listedPaths(dest)).filter((p) => p.startsWith(`sets/${set!.id}/`))).toEqual([]);
      expect((await sha256sumCheck(dest)).code).toBe(0);
    });
  });
});
