// The performance shortcuts of the engine keep the contracts (docs/contracts.md §1, §4):
// - a no-op sync leaves manifest.csv, SHA256SUMS and state.json untouched (skipped rewrite),
//   but a verified file the user removed, or swapped for a symlink, is noticed by the same
//   no-op sync and downloaded again (the lists are rewritten);
// - a manifest edited by hand is rewritten;
// - files above the small-file threshold go through the coalescing, pausing write path,
//   including a resume (206 appended at the held offset).
import { readHead } from '../support/head';
import { promises as fs, lstatSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyFolder } from '../../src-main/sync/verify';
import { listFiles, sha256Of, sha256sumCheck, sync, tempDir, useService, useSyncedDataset } from './helpers';

function fingerprint(file: string): string {
  const st = lstatSync(file);
  return `${st.ino}:${st.size}:${st.mtimeMs}`;
}

describe('no-op syncs skip identical index rewrites', () => {
  const env = useService({ sets: 3, fileSize: 12 * 1024, slots: 2 });
  const ds = useSyncedDataset(env, 'dsync-fast-');

  const manifest = () => path.join(ds.dest, 'manifest.csv');
  const sums = () => path.join(ds.dest, 'SHA256SUMS');
  const head = () => JSON.stringify(readHead(ds.dest));

  it('leaves manifest.csv, SHA256SUMS and the head state as they were when nothing changed', async () => {
    const { svc } = env;
    // The second sync may still record the index fingerprint; from then on nothing is rewritten.
    await sync(svc, ds.dest);
    const before = [fingerprint(manifest()), fingerprint(sums()), head()];
    const { summary } = await sync(svc, ds.dest);
    expect(summary.exitCode).toBe(0);
    expect(summary.bytesHashed).toBe(0);
    expect([fingerprint(manifest()), fingerprint(sums()), head()]).toEqual(before);
    expect((await sha256sumCheck(ds.dest)).code).toBe(0);
  });

  it('brings back a removed file and a file swapped for a symlink in a plain sync', async () => {
    const { svc } = env;
    const files = (await listFiles(path.join(ds.dest, 'sets'))).filter((f) => !f.endsWith('set.json')).sort();
    const removed = `sets/${files[0]}`;
    const swapped = `sets/${files[1]}`;
    const outside = path.join(path.dirname(ds.dest), 'outside.bin');
    await fs.copyFile(path.join(ds.dest, swapped), outside);
    await fs.rm(path.join(ds.dest, removed));
    await fs.rm(path.join(ds.dest, swapped));
    await fs.symlink(outside, path.join(ds.dest, swapped));
    const sumsBefore = fingerprint(sums());

    const { summary } = await sync(svc, ds.dest);
    expect(summary.exitCode).toBe(0);
    expect(summary.filesDownloaded).toBe(2);
    expect(lstatSync(path.join(ds.dest, removed)).isFile()).toBe(true);
    expect(lstatSync(path.join(ds.dest, swapped)).isFile()).toBe(true);
    // Both files got new records (new mtimes), so the lists were rewritten, and still list every file.
    expect(fingerprint(sums())).not.toBe(sumsBefore);
    const sumText = await fs.readFile(sums(), 'utf8');
    expect(sumText.trim().split('\n')).toHaveLength(files.length);
    expect((await sha256sumCheck(ds.dest)).code).toBe(0);
    const report = await verifyFolder(ds.dest);
    expect(report.ok).toBe(files.length);
    expect(report.missing).toEqual([]);
  });

  it('rewrites a manifest edited by hand', async () => {
    const { svc } = env;
    await sync(svc, ds.dest);
    const good = await fs.readFile(manifest(), 'utf8');
    await fs.writeFile(manifest(), good.replace(/\n[^\n]+\n$/, '\n'));
    const { summary } = await sync(svc, ds.dest);
    expect(summary.exitCode).toBe(0);
    expect(await fs.readFile(manifest(), 'utf8')).toBe(good);
  });
});

describe('large files (coalesced writes, back-pressure)', () => {
  // Above the 1 MiB small-file threshold and the 4 MiB pause threshold of transfer/part-sink.ts; odd size on purpose.
  const env = useService({ sets: 1, fileSize: 5 * 1024 * 1024 + 3, slots: 1 });

  it('downloads, verifies and resumes a cut transfer at the held offset', async () => {
    const dir = await tempDir('dsync-large-');
    const dest = path.join(dir, 'ds');
    try {
      const { svc, collectionId } = env;
      const set = (await svc.admin.state()).collections.find((c) => c.id === collectionId)!.accepted_sets[0]!;
      const file = set.files[0]!;
      await svc.admin.addFault({ path: `^/files/${file.id}$` }, { type: 'truncate', afterBytes: 3 * 1024 * 1024 + 5 }, 1);
      const { summary, events } = await sync(svc, dest);
      expect(summary.exitCode).toBe(0);
      expect(events.some((e) => e.type === 'file' && e.state === 'retrying' && e.fileId === file.id)).toBe(true);
      // Sent once in full: the resume asked only for the missing bytes.
      expect(summary.bytesDownloaded).toBe(file.size_bytes);
      const final = path.join(dest, 'sets', String(set.id), file.filename);
      expect(sha256Of(final)).toBe(file.sha256);
      expect(await fs.readdir(path.join(dest, '.dataset-sync', 'partial'))).toEqual([]);
      expect((await sha256sumCheck(dest)).code).toBe(0);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
