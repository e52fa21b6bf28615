// Issue 22 points 5 and 6 against the real reference service: a set that leaves `accepted`
// leaves the dataset for DEST.withdrawn/<id>/ (consents too) and comes back when accepted again;
// purge-withdrawn deletes the quarantine; a subset of slots and quota groups is downloaded,
// remembered, widened and narrowed.
import { readHead } from '../support/head';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConsentsDir } from '../../src-main/sync/layout';
import type { SyncEvent } from '../../src-shared/sync-events';
import type { SetRecord } from '../../src-shared/delivery-api';
import { listFiles, mainCollection, manifestRows, runCli, sha256sumCheck, sync, tempDir, useService } from './helpers';
import { servedPage } from './pages';

/** The accepted sets as the delivery API lists them (participants, slot keys): the demo's few fit one page. */
async function servedSets(svc: typeof env.svc, _collectionId: number): Promise<SetRecord[]> {
  return (await servedPage(svc)).sets as unknown as SetRecord[];
}

const env = useService({ sets: 6, slots: 3, seed: 22 });
let work: string;
beforeAll(async () => {
  work = await tempDir('dsync-withdraw-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}

describe('a set that leaves accepted leaves the dataset', () => {
  it('moves its files, set.json and consents to DEST.withdrawn/<id>/, comes back when accepted again, and purge-withdrawn deletes the quarantine', async () => {
    const { svc, collectionId } = env;
    const dest = path.join(work, 'ds');
    const withdrawnDir = `${dest}.withdrawn`;
    expect((await sync(svc, dest)).summary.exitCode).toBe(0);
    const sets = await servedSets(svc, collectionId);
    const leaving = sets.find((s) => s.participants.some((p) => p.consent !== null))!;
    const consentIds = leaving.participants.flatMap((p) => (p.consent ? [p.consent.id] : []));
    for (const id of consentIds) expect(await exists(path.join(defaultConsentsDir(dest), `${id}.json`))).toBe(true);

    await svc.admin.setStatus(leaving.id, 'rejected');
    const { summary, events } = await sync(svc, dest);
    expect(summary.exitCode).toBe(0);
    expect(summary.withdrawnSets).toBe(1);
    expect(events.some((e) => e.type === 'set' && e.state === 'withdrawn' && e.setId === leaving.id)).toBe(true);
    // Out of DEST entirely: no folder under sets/, no manifest row, SHA256SUMS still checks.
    expect(await exists(path.join(dest, 'sets', String(leaving.id)))).toBe(false);
    expect((await manifestRows(dest)).some((r) => r.set_id === String(leaving.id))).toBe(false);
    expect(await fs.readFile(path.join(dest, 'SHA256SUMS'), 'utf8')).not.toContain(`sets/${leaving.id}/`);
    expect((await sha256sumCheck(dest)).code).toBe(0);
    // ...and in the quarantine beside it, with the consent records apart from the consents folder.
    expect((await listFiles(withdrawnDir)).sort()).toEqual(
      [...leaving.files.map((f) => `${leaving.id}/${f.filename}`), `${leaving.id}/set.json`, ...consentIds.map((id) => `${leaving.id}/consents/${id}.json`)].sort(),
    );
    for (const id of consentIds) expect(await exists(path.join(defaultConsentsDir(dest), `${id}.json`))).toBe(false);
    expect(JSON.parse(await fs.readFile(path.join(withdrawnDir, String(leaving.id), 'set.json'), 'utf8')).id).toBe(leaving.id);

    // A plain sync after that has nothing to withdraw.
    expect((await sync(svc, dest)).summary.withdrawnSets).toBe(0);

    // Accepted again: fetched again, listed again.
    await svc.admin.setStatus(leaving.id, 'accepted');
    const back = await sync(svc, dest);
    expect(back.summary.exitCode).toBe(0);
    expect(back.summary.filesDownloaded).toBe(leaving.files.length);
    expect((await manifestRows(dest)).filter((r) => r.set_id === String(leaving.id))).toHaveLength(leaving.files.length);
    for (const id of consentIds) expect(await exists(path.join(defaultConsentsDir(dest), `${id}.json`))).toBe(true);
    expect((await sha256sumCheck(dest)).code).toBe(0);

    // purge-withdrawn prints what it deletes, then deletes the quarantine (and only it).
    const purge = await runCli(['purge-withdrawn', '--dest', dest]);
    expect(purge.code).toBe(0);
    expect(purge.stdout).toContain(`delete  ${leaving.id}/`);
    expect(purge.stdout).toMatch(/Deleted \d+ files/);
    expect(await exists(withdrawnDir)).toBe(false);
    expect((await sha256sumCheck(dest)).code).toBe(0);
    const again = await runCli(['purge-withdrawn', '--dest', dest]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Nothing to delete');
  });

  it('a --full sync finds a set that left accepted however old the watermark', async () => {
    const { svc, collectionId } = env;
    const dest = path.join(work, 'ds-pending');
    expect((await sync(svc, dest)).summary.exitCode).toBe(0);
    const leaving = (await servedSets(svc, collectionId))[1]!;
    await svc.admin.setStatus(leaving.id, 'in_review');
    try {
      // The full walk lists every status: the set is found however old the watermark.
      const full = await sync(svc, dest, { full: true });
      expect(full.summary.withdrawnSets).toBe(1);
      expect(full.summary.setsNotServed).toEqual([]);
      expect(await exists(path.join(`${dest}.withdrawn`, String(leaving.id), 'set.json'))).toBe(true);
    } finally {
      await svc.admin.setStatus(leaving.id, 'accepted');
    }
  });

  it('purge-withdrawn: --help, and a missing --dest is a usage error (exit 2)', async () => {
    const help = await runCli(['purge-withdrawn', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('purge-withdrawn --dest');
    const bad = await runCli(['purge-withdrawn']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--dest is required');
  });
});

describe('subset sync', () => {
  it('--slots downloads only those files, is remembered, widens, narrows and clears', async () => {
    const { svc, collectionId } = env;
    const dest = path.join(work, 'slots');
    const sets = await servedSets(svc, collectionId);
    const keys = [...new Set(sets.flatMap((s) => s.files.map((f) => f.slot_key)))].sort();
    expect(keys.length).toBe(3);
    const [k1, k2] = keys as [string, string, string];
    const filesOf = (wanted: string[]) => sets.flatMap((s) => s.files.filter((f) => wanted.includes(f.slot_key)).map((f) => `sets/${s.id}/${f.filename}`)).sort();
    const manifestPaths = async () => (await manifestRows(dest)).map((r) => r.path!).sort();
    const mediaOnDisk = async () => (await listFiles(path.join(dest, 'sets'))).filter((p) => !p.endsWith('set.json')).map((p) => `sets/${p}`).sort();

    const first = await sync(svc, dest, { slots: [k1] });
    expect(first.summary.exitCode).toBe(0);
    expect(first.summary.filesDownloaded).toBe(filesOf([k1]).length);
    expect(await manifestPaths()).toEqual(filesOf([k1]));
    expect(await mediaOnDisk()).toEqual(filesOf([k1]));
    expect((await sha256sumCheck(dest)).code).toBe(0);

    // Remembered: a plain sync downloads nothing more.
    const plain = await sync(svc, dest);
    expect(plain.summary.filesDownloaded).toBe(0);
    expect(await manifestPaths()).toEqual(filesOf([k1]));

    // Widened: the sets walked before are walked again and the new slot's files come.
    const wider = await sync(svc, dest, { slots: [k2, k1] });
    expect(wider.summary.exitCode).toBe(0);
    expect(wider.summary.filesDownloaded).toBe(filesOf([k2]).length);
    expect(await manifestPaths()).toEqual(filesOf([k1, k2]));

    // Narrowed: what is out moves to DEST.withdrawn/<set_id>/; the sets stay.
    const narrower = await sync(svc, dest, { slots: [k2] });
    expect(narrower.summary.exitCode).toBe(0);
    expect(narrower.summary.filesDownloaded).toBe(0);
    expect(narrower.summary.withdrawnSets).toBe(0);
    expect(await manifestPaths()).toEqual(filesOf([k2]));
    expect(await mediaOnDisk()).toEqual(filesOf([k2]));
    expect((await listFiles(`${dest}.withdrawn`)).sort()).toEqual(filesOf([k1]).map((p) => p.replace(/^sets\//, '')));
    expect((await sha256sumCheck(dest)).code).toBe(0);

    // all clears the choice: every file, and the state remembers no subset.
    const all = await sync(svc, dest, { slots: null });
    expect(all.summary.exitCode).toBe(0);
    expect(await manifestPaths()).toEqual(filesOf(keys));
    const state = readHead(dest);
    expect(state.subset).toBeUndefined();
  });

  it('--groups keeps the sets with a participant in those quota groups; narrowing withdraws the others, all brings them back', async () => {
    const { svc, collectionId } = env;
    const dest = path.join(work, 'groups');
    const sets = await servedSets(svc, collectionId);
    const byGroup = new Map<string, number[]>();
    for (const s of sets) for (const p of s.participants) byGroup.set(p.quota_group.value, [...new Set([...(byGroup.get(p.quota_group.value) ?? []), s.id])]);
    // A group that holds some sets but not all.
    const [group, ids] = [...byGroup].find(([, v]) => v.length > 0 && v.length < sets.length)!;
    const setDirs = async () => (await fs.readdir(path.join(dest, 'sets'))).map(Number).sort((a, b) => a - b);

    expect((await sync(svc, dest)).summary.exitCode).toBe(0);
    expect(await setDirs()).toEqual(sets.map((s) => s.id).sort((a, b) => a - b));
    const events: SyncEvent[] = [];
    const narrowed = await sync(svc, dest, { groups: [group] });
    events.push(...narrowed.events);
    expect(narrowed.summary.exitCode).toBe(0);
    expect(narrowed.summary.withdrawnSets).toBe(sets.length - ids.length);
    expect(await setDirs()).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set((await manifestRows(dest)).map((r) => Number(r.set_id)))).toEqual(new Set(ids));
    expect((await sha256sumCheck(dest)).code).toBe(0);
    for (const s of sets.filter((x) => !ids.includes(x.id))) expect(await exists(path.join(`${dest}.withdrawn`, String(s.id), 'set.json'))).toBe(true);

    const all = await sync(svc, dest, { groups: null });
    expect(all.summary.exitCode).toBe(0);
    expect(await setDirs()).toEqual(sets.map((s) => s.id).sort((a, b) => a - b));
    expect((await sha256sumCheck(dest)).code).toBe(0);
  });

  it('an unknown slot key or quota group stops the sync before anything changes (exit 2, naming what exists)', async () => {
    const { svc } = env;
    const dest = path.join(work, 'unknown');
    const { summary } = await sync(svc, dest, { slots: ['no_such_slot'] });
    expect(summary.exitCode).toBe(2);
    expect(summary.fatal?.message).toMatch(/no slot "no_such_slot" \(its slot keys: /);
    expect(await exists(path.join(dest, 'sets'))).toBe(false);
    // Not remembered: the next plain sync is the whole collection.
    const state = readHead(dest);
    expect(state.subset).toBeUndefined();

    const { apiKey, collectionId } = mainCollection(svc);
    const r = await runCli(['sync', '--base-url', svc.deliveryBaseUrl, '--collection', String(collectionId), '--dest', dest, '--groups', 'nobody', '--json'], { env: { DATASET_SYNC_API_KEY: apiKey } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no quota group "nobody"/);
    const empty = await runCli(['sync', '--base-url', svc.deliveryBaseUrl, '--collection', String(collectionId), '--dest', dest, '--slots', 'a,,b'], { env: { DATASET_SYNC_API_KEY: apiKey } });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--slots takes a comma-separated list');
  });
});

describe('a set that leaves while new sets arrive', () => {
  // Runs last: it adds sets to the shared service. New sets sort after every listed one, so the
  // dataset files could be extended instead of rewritten, but the leaving set's rows are in them.
  it('drops the leaving set from every dataset file in the same sync that appends the new ones', async () => {
    const { svc, collectionId } = env;
    const dest = path.join(work, 'ds-leave-and-add');
    expect((await sync(svc, dest)).summary.exitCode).toBe(0);
    const leaving = (await servedSets(svc, collectionId))[0]!;
    await svc.admin.setStatus(leaving.id, 'rejected');
    const added = await svc.admin.addSets(collectionId, { count: 2 });
    const { summary } = await sync(svc, dest);
    expect(summary.exitCode).toBe(0);
    expect(summary.withdrawnSets).toBe(1);
    const rows = await manifestRows(dest);
    expect(rows.some((r) => r.set_id === String(leaving.id))).toBe(false);
    for (const s of added) expect(rows.some((r) => r.set_id === String(s.id))).toBe(true);
    expect(await fs.readFile(path.join(dest, 'SHA256SUMS'), 'utf8')).not.toContain(`sets/${leaving.id}/`);
    expect((await sha256sumCheck(dest)).code).toBe(0);
    for (const file of ['participants.csv', 'media.csv']) {
      const text = await fs.readFile(path.join(dest, file), 'utf8');
      expect(text, file).not.toMatch(new RegExp(`(^|\\n)(sets/)?${leaving.id}[,/]`));
    }
    expect(await fs.readFile(path.join(dest, 'croissant.json'), 'utf8')).not.toContain(`sets/${leaving.id}/`);
    await svc.admin.setStatus(leaving.id, 'accepted');
  });
});
