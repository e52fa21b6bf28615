// manifest.csv and SHA256SUMS cost what changed (issue 21 point 2): a sync that only adds sets
// above every set listed appends their rows (dataset.ts appendManifestAndSums; the existing rows
// are not rebuilt from the records), and the files are byte for byte what a full rewrite writes;
// a sync that changes a set already listed writes them whole.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as dataset from '../../src-main/sync/dataset';
import { manifestRows, servedSets, sha256sumCheck, sync, useService, useSyncedDataset } from './helpers';

// Spies only (the real writers run): they tell which way the files were written.
vi.mock('../../src-main/sync/dataset', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src-main/sync/dataset')>();
  return {
    ...real,
    writeManifestAndSums: vi.fn((...args: Parameters<typeof real.writeManifestAndSums>) => real.writeManifestAndSums(...args)),
    appendManifestAndSums: vi.fn((...args: Parameters<typeof real.appendManifestAndSums>) => real.appendManifestAndSums(...args)),
  };
});

describe('incremental manifest.csv and SHA256SUMS', () => {
  const env = useService({ sets: 4, fileSize: 1024, slots: 2 });
  const ds = useSyncedDataset(env, 'dsync-append-');
  const read = (name: string) => fs.readFile(path.join(ds.dest, name), 'utf8');

  beforeEach(() => {
    vi.mocked(dataset.writeManifestAndSums).mockClear();
  });

  /** The files as a full rewrite makes them: the manifest's mtime no longer matches the index fingerprint, so a no-op sync writes both whole. */
  async function rewrittenWhole(): Promise<{ manifest: string; sums: string }> {
    await fs.utimes(path.join(ds.dest, 'manifest.csv'), new Date(), new Date(Date.now() - 60_000));
    vi.mocked(dataset.writeManifestAndSums).mockClear();
    expect((await sync(env.svc, ds.dest)).summary.exitCode).toBe(0);
    expect(dataset.writeManifestAndSums).toHaveBeenCalledTimes(1);
    return { manifest: await read('manifest.csv'), sums: await read('SHA256SUMS') };
  }

  it('appends the rows of new sets, and they equal a full rewrite', async () => {
    const { svc, collectionId } = env;
    const manifestBefore = await read('manifest.csv');
    const sumsBefore = await read('SHA256SUMS');
    const added = await svc.admin.addSets(collectionId, { count: 3 });
    expect((await sync(svc, ds.dest)).summary.exitCode).toBe(0);
    expect(dataset.writeManifestAndSums).not.toHaveBeenCalled();
    expect(dataset.appendManifestAndSums).toHaveBeenCalled();
    const manifest = await read('manifest.csv');
    const sums = await read('SHA256SUMS');
    expect(manifest.startsWith(manifestBefore)).toBe(true);
    expect(sums.startsWith(sumsBefore)).toBe(true);
    for (const set of added) for (const f of set.files) expect(sums).toContain(`${f.sha256}  sets/${set.id}/${f.filename}`);
    expect((await sha256sumCheck(ds.dest)).code).toBe(0);
    expect(await rewrittenWhole()).toEqual({ manifest, sums });
  });

  it('writes both whole when a set already listed changed', async () => {
    const { svc, collectionId } = env;
    const sets = await servedSets(svc, collectionId);
    const edited = await svc.admin.editSet(sets[0]!.id, { slot_index: 1 });
    await svc.admin.addSets(collectionId, { count: 1 });
    expect((await sync(svc, ds.dest)).summary.exitCode).toBe(0);
    expect(dataset.writeManifestAndSums).toHaveBeenCalledTimes(1);
    const changed = edited.files.find((f) => f.slot_index === 1)!;
    const manifest = await read('manifest.csv');
    const sums = await read('SHA256SUMS');
    expect(sums).toContain(`${changed.sha256}  sets/${edited.id}/${changed.filename}`);
    expect((await sha256sumCheck(ds.dest)).code).toBe(0);
    expect(await rewrittenWhole()).toEqual({ manifest, sums });
  });

  it('writes both whole when the manifest was edited since it was written', async () => {
    const { svc, collectionId } = env;
    const good = await read('manifest.csv');
    await fs.writeFile(path.join(ds.dest, 'manifest.csv'), good.replace(/\n[^\n]+\n$/, '\n'));
    await svc.admin.addSets(collectionId, { count: 1 });
    expect((await sync(svc, ds.dest)).summary.exitCode).toBe(0);
    expect(dataset.writeManifestAndSums).toHaveBeenCalledTimes(1);
    const manifest = await read('manifest.csv');
    expect(manifest.startsWith(good)).toBe(true);
    expect((await sha256sumCheck(ds.dest)).code).toBe(0);
  });
});

describe('sets that end after the pools are idle', () => {
  // Enough sets that the last set.json writes are still on the file writer thread when the
  // transfers have ended (at 400 sets every set ended after the index phase began).
  const many = useService({ sets: 300, fileSize: 256, slots: 1 });
  const ds = useSyncedDataset(many, 'dsync-bounce-');

  it('writes both whole, after every set ended, when listed sets come back with only new metadata', async () => {
    const { svc, collectionId } = many;
    // Out of review and accepted again: a new updated_at, the same files. Such a set has no file to
    // fetch, so its last step is its set.json; the index is written once those steps have ended.
    const bounced = (await servedSets(svc, collectionId)).map((s) => s.id);
    for (const id of bounced) {
      await svc.admin.setStatus(id, 'in_review');
      await svc.admin.setStatus(id, 'accepted');
    }
    const served = new Map((await servedSets(svc, collectionId)).map((s) => [s.id, s.updated_at]));
    vi.mocked(dataset.writeManifestAndSums).mockClear();
    const { summary, events } = await sync(svc, ds.dest);
    expect(summary.exitCode).toBe(0);
    expect(summary.filesDownloaded).toBe(0);
    expect(summary.setsComplete).toBe(bounced.length);
    const indexPhase = events.findIndex((e) => e.type === 'progress' && e.phase === 'writing_manifest');
    const ended = events.flatMap((e, i) => (e.type === 'set' && e.state === 'complete' ? [i] : []));
    expect(ended).toHaveLength(bounced.length);
    expect(indexPhase).toBeGreaterThan(Math.max(...ended));
    expect(dataset.writeManifestAndSums).toHaveBeenCalledTimes(1);
    for (const row of await manifestRows(ds.dest)) expect(row.updated_at).toBe(served.get(Number(row.set_id)));
    // The index vouches for the records as they ended: the next sync writes neither file.
    vi.mocked(dataset.writeManifestAndSums).mockClear();
    vi.mocked(dataset.appendManifestAndSums).mockClear();
    expect((await sync(svc, ds.dest)).summary.exitCode).toBe(0);
    expect(dataset.writeManifestAndSums).not.toHaveBeenCalled();
    expect(dataset.appendManifestAndSums).not.toHaveBeenCalled();
  });

});
