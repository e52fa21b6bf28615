// A normal sync heals the folder, and a folder belongs to one service and one collection
// (docs/contracts.md §4; issue 12). Before: deleting, truncating or appending to a verified file and
// running a plain sync said "all up to date"; a second service whose collection had the same id
// reused the first one's watermark and synced nothing. Real service, real files.
import { editHead, readHead } from '../support/head';
import { promises as fs, existsSync, lstatSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncEvent } from '../../src-shared/sync-events';
import { verifyFolder } from '../../src-main/sync/verify';
import { expectDatasetMatches, listFiles, mainCollection, runCli, servedSets, sha256sumCheck, startService, sync, tempDir, useService, type Service } from './helpers';
import { LEFT_ACCEPTED_STATUSES } from '../../src-main/sync/withdraw';

async function freshDest(): Promise<string> {
  return path.join(await tempDir('dsync-heal-'), 'ds');
}

async function cleanup(dest: string): Promise<void> {
  await fs.rm(path.dirname(dest), { recursive: true, force: true });
}

function fileEvents(events: SyncEvent[], rel: string): Array<Extract<SyncEvent, { type: 'file' }>> {
  return events.filter((e): e is Extract<SyncEvent, { type: 'file' }> => e.type === 'file' && e.path === rel);
}

const getSetRequests = (byRoute: Record<string, number>) => byRoute['GET /collections/:id/sets/:set_id'] ?? 0;

describe('a plain sync heals the dataset folder', () => {
  const env = useService({ sets: 5, fileSize: 30 * 1024 + 5, slots: 2, seed: 21 });
  let dest: string;
  beforeAll(async () => {
    dest = await freshDest();
    expect((await sync(env.svc, dest)).summary.exitCode).toBe(0);
    expect((await sync(env.svc, dest)).summary.exitCode).toBe(0); // records the index fingerprint
  });
  afterAll(() => cleanup(dest));

  it('re-downloads deleted, truncated and appended files and re-hashes a touched one, without --full', async () => {
    const { svc, collectionId } = env;
    const sets = await servedSets(svc, collectionId);
    const rel = (i: number) => `sets/${sets[i]!.id}/${sets[i]!.files[0]!.filename}`;
    const [deleted, truncated, appended, touched] = [rel(0), rel(1), rel(2), rel(3)];
    await fs.rm(path.join(dest, deleted));
    await fs.truncate(path.join(dest, truncated), 1000);
    await fs.appendFile(path.join(dest, appended), 'x');
    const when = new Date(Date.now() - 3_600_000);
    await fs.utimes(path.join(dest, touched), when, when);

    await svc.admin.resetStats();
    const { summary, events } = await sync(svc, dest);
    expect(summary.exitCode).toBe(0);
    // The three damaged files come again; the touched one still has the right bytes: hashed, kept.
    expect(summary.filesDownloaded).toBe(3);
    expect(summary.bytesDownloaded).toBe(3 * (30 * 1024 + 5));
    expect(summary.bytesHashed).toBe(summary.bytesDownloaded + 30 * 1024 + 5);
    expect(summary.diskCheck).toMatchObject({ files: 10, missing: 1, changed: 3 });
    expect(fileEvents(events, deleted)[0]).toMatchObject({ state: 'queued', reason: 'missing on disk' });
    for (const p of [truncated, appended, touched]) expect(fileEvents(events, p)[0]).toMatchObject({ state: 'queued', reason: 'changed on disk' });
    for (const p of [deleted, truncated, appended, touched]) expect(fileEvents(events, p).at(-1)?.state).toBe('verified');
    const discovered = events.find((e) => e.type === 'set' && e.setId === sets[0]!.id && e.state === 'discovered');
    expect(discovered).toMatchObject({ reason: `${deleted} missing on disk` });
    // Sets the incremental walk does not return are fetched one by one, and only their damaged files.
    const stats = await svc.admin.stats();
    expect(getSetRequests(stats.byRoute)).toBeGreaterThanOrEqual(3);
    expect(stats.fileRequests).toBe(3);

    await expectDatasetMatches(svc, dest, collectionId);
    expect((await sha256sumCheck(dest)).code).toBe(0);
    const report = await verifyFolder(dest);
    expect(report.ok).toBe(10);
    expect([...report.missing, ...report.changed, ...report.extra]).toEqual([]);

    // Healed for good: the next sync is a no-op again.
    await svc.admin.resetStats();
    const again = await sync(svc, dest);
    expect(again.summary).toMatchObject({ exitCode: 0, filesDownloaded: 0, bytesHashed: 0 });
    // The walk (collection, page 1) and one page per status a set can leave accepted for (withdraw.ts).
    expect((await svc.admin.stats()).requests).toBeLessThanOrEqual(2 + LEFT_ACCEPTED_STATUSES.length);
  });

  it('the CLI tells which files it found missing or changed, and a body that lies is not kept', async () => {
    const { svc, collectionId } = env;
    const set = (await servedSets(svc, collectionId))[1]!;
    const file = set.files[1]!;
    const rel = `sets/${set.id}/${file.filename}`;
    await fs.rm(path.join(dest, rel));
    // The re-download's first body has a flipped byte: caught by the hash, fetched again.
    await svc.admin.addFault({ path: `^/files/${file.id}$` }, { type: 'flip', atByte: 100 }, 1);
    const r = await runCli(['sync', '--base-url', svc.deliveryBaseUrl, '--collection', String(collectionId), '--dest', dest], {
      env: { DATASET_SYNC_API_KEY: mainCollection(svc).apiKey },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${rel}: missing on disk, fetching it again`);
    expect(r.stderr).toContain('found on disk: 1 missing, 0 changed');
    await expectDatasetMatches(svc, dest, collectionId);
    expect((await sha256sumCheck(dest)).code).toBe(0);
  });

  it('a file that cannot be fetched again leaves the lists and is healed by the next sync', async () => {
    const { svc, collectionId } = env;
    const sets = await servedSets(svc, collectionId);
    const file = sets[4]!.files[1]!;
    const removed = `sets/${sets[4]!.id}/${file.filename}`;
    const outside = path.join(path.dirname(dest), 'outside.bin');
    await fs.copyFile(path.join(dest, removed), outside);
    await fs.rm(path.join(dest, removed));
    await fs.symlink(outside, path.join(dest, removed)); // a link is not the verified file
    await svc.admin.addFault({ path: `^/files/${file.id}$` }, { type: 'status', status: 503 });

    const failed = await sync(svc, dest);
    expect(failed.summary.exitCode).toBe(1);
    expect(failed.summary.failures.map((f) => f.path)).toContain(removed);
    // manifest.csv and SHA256SUMS list only verified files present.
    expect(readFileSync(path.join(dest, 'SHA256SUMS'), 'utf8')).not.toContain(removed);
    expect(readFileSync(path.join(dest, 'manifest.csv'), 'utf8')).not.toContain(removed);
    expect((await sha256sumCheck(dest)).code).toBe(0);

    await svc.admin.clearFaults();
    const healed = await sync(svc, dest);
    expect(healed.summary.exitCode).toBe(0);
    expect(healed.summary.filesDownloaded).toBe(1);
    expect(lstatSync(path.join(dest, removed)).isFile()).toBe(true);
    expect(readFileSync(path.join(dest, 'SHA256SUMS'), 'utf8')).toContain(removed);
    await expectDatasetMatches(svc, dest, collectionId);
  });

  it('a file that goes after it was verified is left out of the lists, and the next sync fetches it again', async () => {
    const { svc, collectionId } = env;
    const fresh = await freshDest();
    try {
      // The end of the sync looks again at the files it verified (disk-check.ts findUnhealedEntries),
      // beside the first writing of the lists, which are written again without the file.
      let gone: string | undefined;
      const first = await sync(svc, fresh, {}, (e) => {
        if (gone === undefined && e.type === 'file' && e.state === 'verified') {
          gone = e.path;
          rmSync(path.join(fresh, e.path)); // at once, inside the event: the rest of the sync runs after it
        }
      });
      expect(gone).toBeDefined();
      expect(existsSync(path.join(fresh, gone!))).toBe(false);
      expect(readFileSync(path.join(fresh, 'SHA256SUMS'), 'utf8')).not.toContain(gone!);
      expect(readFileSync(path.join(fresh, 'manifest.csv'), 'utf8')).not.toContain(gone!);
      expect(readFileSync(path.join(fresh, 'croissant.json'), 'utf8')).not.toContain(gone!);
      const media = readFileSync(path.join(fresh, 'media.csv'), 'utf8');
      expect(media).not.toContain(gone!);
      expect(media.trimEnd().split('\n')).toHaveLength(10); // the header and the 9 files present
      expect((await sha256sumCheck(fresh)).code).toBe(0);
      expect(first.summary.filesDownloaded).toBe(10);

      const again = await sync(svc, fresh);
      expect(again.summary.exitCode).toBe(0);
      expect(again.summary.filesDownloaded).toBe(1);
      expect(readFileSync(path.join(fresh, 'SHA256SUMS'), 'utf8')).toContain(gone!);
      await expectDatasetMatches(svc, fresh, collectionId);
    } finally {
      await cleanup(fresh);
    }
  });
});

/** Every path under `dir` with its size and mtime: "nothing was touched" means this stays equal. */
async function snapshot(dir: string): Promise<string[]> {
  const files = await listFiles(dir);
  return files.map((f) => {
    const st = lstatSync(path.join(dir, f));
    return `${f} ${st.size} ${st.mtimeMs}`;
  });
}

describe('a dataset folder belongs to one service and one collection', () => {
  const env = useService({ sets: 2, fileSize: 8 * 1024, slots: 2, seed: 31 });
  let other: { svc: Service; root: string };
  let dest: string;
  beforeAll(async () => {
    // Seeds 31 and 114 (31 + 83) number their collections alike: a same-id collection elsewhere.
    other = await startService({ sets: 3, fileSize: 8 * 1024, slots: 2, seed: 114 });
    dest = await freshDest();
    expect((await sync(env.svc, dest)).summary.exitCode).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await other?.svc.close();
    if (other) await fs.rm(other.root, { recursive: true, force: true });
    await cleanup(dest);
  });

  it('a second service with a collection of the same id stops with exit 2, touching nothing', async () => {
    const first = mainCollection(env.svc);
    const second = mainCollection(other.svc);
    expect(second.collectionId).toBe(first.collectionId);
    const before = await snapshot(dest);
    await other.svc.admin.resetStats();
    const { summary } = await sync(other.svc, dest, { apiKey: second.apiKey });
    expect(summary.exitCode).toBe(2);
    expect(summary.fatal?.kind).toBe('config');
    for (const part of [dest, env.svc.deliveryBaseUrl, other.svc.deliveryBaseUrl, `collection ${first.collectionId}`]) expect(summary.fatal?.message).toContain(part);
    expect((await other.svc.admin.stats()).requests).toBe(0);
    expect(await snapshot(dest)).toEqual(before);

    // The CLI says the same on stderr, exit 2.
    const cli = await runCli(['sync', '--base-url', other.svc.deliveryBaseUrl, '--collection', String(second.collectionId), '--dest', dest], { env: { DATASET_SYNC_API_KEY: second.apiKey } });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(other.svc.deliveryBaseUrl);
    expect(cli.stderr).toContain(env.svc.deliveryBaseUrl);
    expect(await snapshot(dest)).toEqual(before);
  });

  it('another collection of the same service stops with exit 2 naming both collections', async () => {
    const client = env.svc.clients.find((c) => c.collections.length > 1) ?? env.svc.clients[0]!;
    const otherCollection = client.collections.find((id) => id !== mainCollection(env.svc).collectionId) ?? 999_999;
    const before = await snapshot(dest);
    const { summary } = await sync(env.svc, dest, { apiKey: client.apiKey, collectionId: otherCollection });
    expect(summary.exitCode).toBe(2);
    expect(summary.fatal?.message).toContain(`collection ${mainCollection(env.svc).collectionId}`);
    expect(summary.fatal?.message).toContain(`collection ${otherCollection}`);
    expect(await snapshot(dest)).toEqual(before);
  });

  it('a first sync the service refuses leaves the new folder unbound and without dataset files', async () => {
    // Before: a typo in the collection id bound the new folder to that collection for good (the
    // right sync then stopped with "choose another folder"), and a wrong key left empty dataset
    // files and an empty consents folder behind.
    const fresh = await freshDest();
    try {
      const wrongCollection = await sync(env.svc, fresh, { collectionId: 999_999 });
      expect(wrongCollection.summary.exitCode).toBe(2);
      expect(wrongCollection.summary.fatal?.message).toContain('999999');
      const wrongKey = await sync(env.svc, fresh, { apiKey: 'not-a-key' });
      expect(wrongKey.summary.exitCode).toBe(3);
      expect(wrongKey.summary.fatal?.kind).toBe('auth');
      // A service that answers with another collection's detail (a foreign id) binds nothing either.
      const { apiKey, collectionId } = mainCollection(env.svc);
      const real = (await (await fetch(`${env.svc.deliveryBaseUrl}/collections/${collectionId}`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { collection: Record<string, unknown> };
      const foreign = JSON.stringify({ ...real, collection: { ...real.collection, id: collectionId + 1 } });
      await env.svc.admin.addFault({ path: '/collections/\\d+$' }, { type: 'body', status: 200, contentType: 'application/json', body: foreign }, 1);
      const lying = await sync(env.svc, fresh);
      expect(lying.summary.exitCode).toBe(4);
      expect(lying.summary.fatal?.message).toContain(`not the collection ${collectionId} asked for`);
      // Only the engine's own scratch (state.db, partial/, tmp/) under .dataset-sync, and no head in it: no binding, no dataset file.
      expect((await listFiles(fresh)).filter((f) => !f.startsWith('.dataset-sync/'))).toEqual([]);
      expect(() => readHead(fresh)).toThrow(/no head/);
      expect(await fs.lstat(`${fresh}.consents`).catch(() => null)).toBeNull();

      const right = await sync(env.svc, fresh);
      expect(right.summary.exitCode).toBe(0);
      await expectDatasetMatches(env.svc, fresh, collectionId);
      // Bound now: the wrong collection is refused before anything is asked.
      expect((await sync(env.svc, fresh, { collectionId: 999_999 })).summary.fatal?.message).toContain('choose another folder');
    } finally {
      await cleanup(fresh);
    }
  });

  it('a folder synced before the service was recorded adopts the service of its next sync', async () => {
    expect(readHead(dest).baseUrl).toBe(env.svc.deliveryBaseUrl);
    editHead(dest, (head) => {
      delete (head as Partial<typeof head>).baseUrl;
    });
    // The service is given with a trailing slash: recorded normalised.
    const { summary } = await sync(env.svc, dest, { baseUrl: `${env.svc.deliveryBaseUrl}/` });
    expect(summary.exitCode).toBe(0);
    expect(summary.filesDownloaded).toBe(0);
    expect(readHead(dest).baseUrl).toBe(env.svc.deliveryBaseUrl);
    expect((await sync(other.svc, dest, { apiKey: mainCollection(other.svc).apiKey })).summary.exitCode).toBe(2);
  });
});
