// The engine against the real reference service: first sync, no-op, incremental, edits,
// sets leaving accepted, --full, gold sets, lock, verify.
import { execFileSync, spawnSync } from 'node:child_process';
import { promises as fs, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHistory } from '../../src-main/sync/state/history';
import { defaultConsentsDir } from '../../src-main/sync/layout';
import { verifyFolder } from '../../src-main/sync/verify';
import { MANIFEST_COLUMNS } from '../../src-main/sync/dataset';
import { expectDatasetMatches, listFiles, servedSets, sha256sumCheck, sync, tempDir, useService } from './helpers';
import { servedPage } from './pages';
import { LEFT_ACCEPTED_STATUSES } from '../../src-main/sync/withdraw';

// Real demo videos (no size asked for), as a researcher's sync sees them.
const env = useService({ sets: 6, slots: 3 });
const HAS_FILE = spawnSync('file', ['--version']).status === 0;

async function freshDest(): Promise<string> {
  const dir = await tempDir('dsync-dest-');
  return path.join(dir, 'dataset');
}

async function cleanup(dest: string): Promise<void> {
  await fs.rm(path.dirname(dest), { recursive: true, force: true });
}

describe('first sync', () => {
  it.skipIf(!HAS_FILE)(`gives playable videos: file(1) names each synced file's listed content type (${HAS_FILE ? 'file present' : 'file(1) not installed'})`, async () => {
    const { svc } = env;
    const dest = await freshDest();
    try {
      expect((await sync(svc, dest)).summary.exitCode).toBe(0);
      const page = await servedPage(svc);
      for (const set of page.sets) {
        for (const f of set.files) {
          const mime = execFileSync('file', ['--brief', '--mime-type', path.join(dest, 'sets', String(set.id), f.filename)], { encoding: 'utf8' }).trim();
          expect([f.filename, mime]).toEqual([f.filename, f.content_type]);
        }
      }
    } finally {
      await cleanup(dest);
    }
  });

  it('downloads every accepted file, writes set.json without signer names, consents apart, manifest and SHA256SUMS', async () => {
    const { svc, collectionId } = env;
    const dest = await freshDest();
    try {
      const { summary, events } = await sync(svc, dest);
      expect(summary.fatal).toBeUndefined();
      expect(summary.exitCode).toBe(0);
      const sets = await servedSets(svc, collectionId);
      const fileCount = sets.reduce((n, s) => n + s.files.length, 0);
      expect(summary.sets).toBe(sets.length);
      expect(summary.setsComplete).toBe(sets.length);
      expect(summary.filesDownloaded).toBe(fileCount);
      expect(summary.bytesHashed).toBeGreaterThanOrEqual(summary.bytesDownloaded);
      expect(summary.requests).toBeGreaterThan(fileCount);
      await expectDatasetMatches(svc, dest, collectionId);

      // Progress is aggregated, never one event per chunk.
      const progress = events.filter((e) => e.type === 'progress');
      expect(progress.length).toBeLessThan(200);
      expect(events.at(-1)?.type).toBe('summary');

      // set.json: pseudonymous
      for (const s of sets) {
        const text = await fs.readFile(path.join(dest, 'sets', String(s.id), 'set.json'), 'utf8');
        expect(text).not.toContain('signer_name');
        const json = JSON.parse(text) as { id: number; participants: Array<{ consent: Record<string, unknown> | null }> };
        expect(json.id).toBe(s.id);
        for (const p of json.participants) if (p.consent) expect(Object.keys(p.consent).sort()).toEqual(['id', 'signed_at', 'version']);
      }
      const everything = await listFiles(dest);
      for (const f of everything) expect(await fs.readFile(path.join(dest, f), 'utf8').catch(() => '')).not.toContain('signer_name');

      // consents apart, 0700 / 0600
      const consentsDir = defaultConsentsDir(dest);
      expect(consentsDir).toBe(`${dest}.consents`);
      expect(statSync(consentsDir).mode & 0o777).toBe(0o700);
      const consentIds = sets.flatMap((s) => s.consent_ids);
      expect(consentIds.length).toBeGreaterThan(0);
      for (const id of consentIds) {
        const file = path.join(consentsDir, `${id}.json`);
        expect(statSync(file).mode & 0o777).toBe(0o600);
        const c = JSON.parse(await fs.readFile(file, 'utf8')) as { id: number; signer_name: string };
        expect(c.id).toBe(id);
        expect(typeof c.signer_name).toBe('string');
      }

      // manifest columns and rows
      const manifest = (await fs.readFile(path.join(dest, 'manifest.csv'), 'utf8')).trimEnd().split('\n');
      expect(manifest[0]).toBe(MANIFEST_COLUMNS.join(','));
      expect(manifest[0]).toBe('set_id,slot_index,slot_key,path,size_bytes,sha256,participant_refs,is_gold,accepted_at,updated_at,downloaded_at');
      expect(manifest.length - 1).toBe(fileCount);
      const first = sets[0]!;
      const row = manifest.find((l) => l.includes(`sets/${first.id}/${first.files[0]!.filename}`))!;
      expect(row.split(',')[0]).toBe(String(first.id));
      expect(row).toContain(first.files[0]!.sha256);

      // collection.json
      const coll = JSON.parse(await fs.readFile(path.join(dest, 'collection.json'), 'utf8')) as { id: number };
      expect(coll.id).toBe(collectionId);

      // the real sha256sum agrees
      const check = await sha256sumCheck(dest);
      expect(check.out).not.toContain('FAILED');
      expect(check.code).toBe(0);

      // nothing left in partial
      expect(await fs.readdir(path.join(dest, '.dataset-sync', 'partial'))).toEqual([]);

      const history = await readHistory(dest);
      expect(history).toHaveLength(1);
      expect(history[0]!.filesDownloaded).toBe(fileCount);
    } finally {
      await cleanup(dest);
    }
  });
});

describe('incremental syncs on one dataset', () => {
  let dest: string;
  beforeAll(async () => {
    dest = await freshDest();
    const { summary } = await sync(env.svc, dest);
    expect(summary.exitCode).toBe(0);
  });
  afterAll(() => cleanup(dest));

  it('a no-op re-sync downloads nothing, hashes nothing and asks with at most two requests plus one per status a set can leave accepted for', async () => {
    const { svc } = env;
    await svc.admin.resetStats();
    const { summary } = await sync(svc, dest);
    expect(summary.exitCode).toBe(0);
    expect(summary.filesDownloaded).toBe(0);
    expect(summary.bytesDownloaded).toBe(0);
    expect(summary.bytesHashed).toBe(0);
    const stats = await svc.admin.stats();
    expect(stats.fileRequests).toBe(0);
    expect(stats.requests).toBeLessThanOrEqual(2 + LEFT_ACCEPTED_STATUSES.length);
    expect(summary.requests).toBe(stats.requests);
    const history = await readHistory(dest);
    expect(history[0]!.startedAt).toBe(summary.startedAt); // newest first
  });

  it('fetches only new accepted sets', async () => {
    const { svc, collectionId } = env;
    const added = await svc.admin.addSets(collectionId, { count: 2 });
    await svc.admin.resetStats();
    const { summary } = await sync(svc, dest);
    expect(summary.exitCode).toBe(0);
    const newFiles = added.reduce((n, s) => n + s.files.length, 0);
    expect(summary.filesDownloaded).toBe(newFiles);
    const stats = await svc.admin.stats();
    expect(stats.fileRequests).toBe(newFiles);
    await expectDatasetMatches(svc, dest, collectionId);
    expect((await sha256sumCheck(dest)).code).toBe(0);
  });

  it('re-downloads only the changed file of an edited set and replaces it atomically', async () => {
    const { svc, collectionId } = env;
    const sets = await servedSets(svc, collectionId);
    const target = sets[1]!;
    const before = target.files.find((f) => f.slot_index === 2)!;
    const edited = await svc.admin.editSet(target.id, { slot_index: 2 });
    const after = edited.files.find((f) => f.slot_index === 2)!;
    expect(after.sha256).not.toBe(before.sha256);
    await svc.admin.resetStats();
    const { summary } = await sync(svc, dest);
    expect(summary.exitCode).toBe(0);
    expect(summary.filesDownloaded).toBe(1);
    expect((await svc.admin.stats()).fileRequests).toBe(1);
    await expectDatasetMatches(svc, dest, collectionId);
    const sums = await fs.readFile(path.join(dest, 'SHA256SUMS'), 'utf8');
    expect(sums).toContain(`${after.sha256}  sets/${target.id}/${after.filename}`);
    expect(sums).not.toContain(before.sha256);
    expect((await sha256sumCheck(dest)).code).toBe(0);
  });

  it('moves the files of a set that left accepted to DEST.withdrawn (withdraw-subset.test.ts has the details); --full then has nothing not served', async () => {
    const { svc, collectionId } = env;
    const sets = await servedSets(svc, collectionId);
    const leaving = sets[0]!;
    await svc.admin.setStatus(leaving.id, 'rejected');
    const inc = await sync(svc, dest);
    expect(inc.summary.exitCode).toBe(0);
    expect(inc.summary.withdrawnSets).toBe(1);
    for (const f of leaving.files) await fs.access(path.join(`${dest}.withdrawn`, String(leaving.id), f.filename));

    const full = await sync(svc, dest, { full: true });
    expect(full.summary.exitCode).toBe(0);
    expect(full.summary.setsNotServed).toEqual([]);
    expect(full.summary.filesDownloaded).toBe(0);
    expect((await sha256sumCheck(dest)).code).toBe(0);
    await svc.admin.setStatus(leaving.id, 'accepted');
    expect((await sync(svc, dest)).summary.filesDownloaded).toBe(leaving.files.length);
  });

  it('verify reports missing, changed and extra files', async () => {
    const { svc } = env;
    const clean = await verifyFolder(dest);
    expect(clean.missing).toEqual([]);
    expect(clean.changed).toEqual([]);
    expect(clean.extra).toEqual([]);
    expect(clean.ok).toBe(clean.filesChecked);
    const files = (await listFiles(path.join(dest, 'sets'))).filter((f) => !f.endsWith('set.json'));
    await fs.rm(path.join(dest, 'sets', files[0]!));
    await fs.appendFile(path.join(dest, 'sets', files[1]!), 'x');
    await fs.writeFile(path.join(dest, 'sets', path.dirname(files[2]!), 'stray.bin'), 'stray');
    const report = await verifyFolder(dest);
    expect(report.missing).toEqual([`sets/${files[0]}`]);
    expect(report.changed).toEqual([`sets/${files[1]}`]);
    expect(report.extra).toEqual([`sets/${path.dirname(files[2]!)}/stray.bin`]);
    // The next sync repairs what it owns: the changed file no longer matches its recorded mtime/size.
    await fs.rm(path.join(dest, 'sets', path.dirname(files[2]!), 'stray.bin'));
    const { summary } = await sync(svc, dest, { full: true });
    expect(summary.exitCode).toBe(0);
    expect(summary.filesDownloaded).toBe(2);
    expect((await verifyFolder(dest)).ok).toBe(report.filesChecked);
  });
});

describe('gold sets and locking', () => {
  it('keeps and flags gold sets, and skips them with excludeGold', async () => {
    const { svc, collectionId } = env;
    const gold = await svc.admin.addSets(collectionId, { count: 1, is_gold: true });
    const goldId = gold[0]!.id;
    const destA = await freshDest();
    const destB = await freshDest();
    try {
      const a = await sync(svc, destA);
      expect(a.summary.exitCode).toBe(0);
      const manifest = await fs.readFile(path.join(destA, 'manifest.csv'), 'utf8');
      const goldRows = manifest.split('\n').filter((l) => l.startsWith(`${goldId},`));
      expect(goldRows.length).toBe(gold[0]!.files.length);
      for (const r of goldRows) expect(r.split(',')[7]).toBe('true');

      const b = await sync(svc, destB, { excludeGold: true });
      expect(b.summary.exitCode).toBe(0);
      expect(b.events.some((e) => e.type === 'set' && e.state === 'skipped_gold' && e.setId === goldId)).toBe(true);
      await expect(fs.access(path.join(destB, 'sets', String(goldId)))).rejects.toThrow();
      await expectDatasetMatches(svc, destB, collectionId, { excludeGold: true });
    } finally {
      await cleanup(destA);
      await cleanup(destB);
    }
  });

  it('refuses a second sync while the lock is held by a live process, and takes over a stale lock', async () => {
    const { svc } = env;
    const dest = await freshDest();
    try {
      await fs.mkdir(path.join(dest, '.dataset-sync'), { recursive: true });
      const lockFile = path.join(dest, '.dataset-sync', 'lock');
      // pid 1 is alive on every Linux host.
      await fs.writeFile(lockFile, JSON.stringify({ pid: 1, host: os.hostname(), startedAt: new Date().toISOString() }));
      const held = await sync(svc, dest);
      expect(held.summary.exitCode).toBe(2);
      expect(held.summary.fatal?.kind).toBe('locked');
      expect(held.summary.fatal?.message).toContain('pid 1');
      await fs.access(lockFile); // someone else's lock is left alone

      await fs.writeFile(lockFile, JSON.stringify({ pid: 2 ** 22 + 12345, host: os.hostname(), startedAt: new Date().toISOString() }));
      const stale = await sync(svc, dest);
      expect(stale.summary.exitCode).toBe(0);
      await expect(fs.access(lockFile)).rejects.toThrow();
    } finally {
      await cleanup(dest);
    }
  });
});

describe('cancellation', () => {
  it('an aborted sync reports cancelled, keeps partials out of final names, and the next sync completes', async () => {
    const { svc, collectionId } = env;
    const dest = await freshDest();
    try {
      await svc.admin.addFault({ path: '^/files/' }, { type: 'stall', afterBytes: 4096, ms: 20_000 });
      const controller = new AbortController();
      // Aborted once bytes arrived (small files are held in memory until their commit, and set
      // aside in their part files when the attempt ends without one).
      let receiving!: () => void;
      const received = new Promise<void>((resolve) => (receiving = resolve));
      const first = sync(svc, dest, { signal: controller.signal, tuning: { retryBaseMs: 20, stallTimeoutMs: 30_000 } }, (e) => {
        if (e.type === 'progress' && e.bytesDone > 0) receiving();
      });
      const partial = path.join(dest, '.dataset-sync', 'partial');
      await received;
      controller.abort();
      const { summary } = await first;
      await svc.admin.clearFaults();
      expect(summary.cancelled).toBe(true);
      expect(summary.exitCode).toBe(1);
      expect(summary.fatal).toBeUndefined();
      expect((await listFiles(partial)).length).toBeGreaterThan(0);
      expect((await listFiles(path.join(dest, 'sets'))).filter((f) => !f.endsWith('set.json'))).toEqual([]);
      // No file was verified, so nothing is listed (sha256sum itself rejects an empty list).
      expect(await fs.readFile(path.join(dest, 'SHA256SUMS'), 'utf8')).toBe('');
      const second = await sync(svc, dest);
      expect(second.summary.exitCode).toBe(0);
      await expectDatasetMatches(svc, dest, collectionId);
    } finally {
      await svc.admin.clearFaults();
      await cleanup(dest);
    }
  });
});
