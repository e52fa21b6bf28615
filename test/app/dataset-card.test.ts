// The dataset card asks the engine's records (state.db, through sync/state/queries.ts) and reads
// the app's notes. Files a user (or a crash) mangled hide a line of the card; they never break it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDatasetCard, readRunHistory, recordChanges, recordRunEnded, recordVerified } from '../../src-main/app/dataset-card';
import { emptyLocalSet, SetStore } from '../../src-main/sync/state/set-store';
import type { SyncSummary } from '../../src-shared/sync-events';

let dest: string;

type Row = [setId: number, slot: number, size: number, downloadedAt: string];

/** One engine run (as a sync opens the store) that verified these files. */
function engineRun(rows: Row[]): void {
  const store = SetStore.open(join(dest, '.dataset-sync'));
  try {
    for (const [setId, slot, size, downloadedAt] of rows) {
      const rec = store.get(setId) ?? { ...emptyLocalSet(setId), updatedAt: '2026-01-01T00:00:00.000Z', complete: true };
      rec.files[`sets/${setId}/set_${setId}_slot_0${slot}.mp4`] = {
        setId, fileId: setId * 10 + slot, slotIndex: slot, slotKey: 'front', sizeBytes: size, sha256: 'a'.repeat(64), mtimeMs: 1, participantRefs: 'p1;p2',
        isGold: false, acceptedAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', downloadedAt,
      };
      store.put(rec);
    }
    store.flush();
  } finally {
    store.close();
  }
}

function summary(startedAt: string, extra: Partial<SyncSummary> = {}): SyncSummary {
  return {
    collectionId: 1, dest, sets: 0, setsComplete: 0, setsFailed: 0, setsNotServed: [], withdrawnSets: 0, filesDownloaded: 0, filesUpToDate: 0, filesFailed: 0,
    bytesDownloaded: 0, bytesHashed: 0, requests: 0, failures: [], watermark: null, startedAt, finishedAt: startedAt, durationMs: 0, exitCode: 0, cancelled: false,
    ...extra,
  };
}

beforeEach(async () => {
  dest = await mkdtemp(join(tmpdir(), 'dataset-card-'));
  await mkdir(join(dest, '.dataset-sync'), { recursive: true });
});
afterEach(async () => {
  await rm(dest, { recursive: true, force: true });
});

describe('dataset card', () => {
  it('is empty but complete before the first sync, with free space and the default consents folder', async () => {
    const card = await readDatasetCard({ dest: join(dest, 'not-yet') }, null);
    expect(card).toMatchObject({ filesOnDisk: 0, bytesOnDisk: 0, consentsDir: `${join(dest, 'not-yet')}.consents`, lastVerified: null, lastChanges: null, lastRunFiles: [] });
    expect(card.freeBytes).toBeGreaterThan(0);
  });

  it('counts the records, lists the last run first, and tells new sets from edited ones', async () => {
    engineRun([[1, 1, 10, '2026-01-01T00:00:00.000Z'], [2, 1, 20, '2026-01-01T00:00:00.000Z']]);
    // The run edits set 2 and adds set 3.
    const run = '2026-02-01T00:00:00.000Z';
    engineRun([[2, 1, 25, '2026-02-01T00:00:05.000Z'], [3, 1, 30, '2026-02-01T00:00:06.000Z']]);
    const last = summary(run, { setsNotServed: [9], failures: [{ setId: 4, fileId: 40, path: 'sets/4/x.mp4', reason: 'HTTP 500', code: 'server_error' }] });
    await recordChanges(dest, last);
    const card = await readDatasetCard({ dest, consentsDir: join(dest, 'c') }, last);
    expect(card).toMatchObject({ filesOnDisk: 3, bytesOnDisk: 65, consentsDir: join(dest, 'c'), lastRunFilesFrom: 'run' });
    expect(card.lastChanges).toMatchObject({ newSets: [3], editedSets: [2], leftAccepted: [9] });
    expect(card.lastRunFiles.map((f) => [f.path, f.state])).toEqual([
      ['sets/4/x.mp4', 'failed'],
      ['sets/2/set_2_slot_01.mp4', 'verified'],
      ['sets/3/set_3_slot_01.mp4', 'verified'],
      ['sets/1/set_1_slot_01.mp4', 'up_to_date'],
    ]);
    // A verify after the run hashed every file: the rows are its word (all verified), not the run's.
    await recordVerified(dest, { dest, filesChecked: 3, ok: 3, missing: [], changed: [], extra: [], bytesHashed: 65 }, run);
    const after = await readDatasetCard({ dest, consentsDir: join(dest, 'c') }, last);
    expect(after.lastVerified?.ok).toBe(true);
    expect(after.lastRunFilesFrom).toBe('verify');
    expect(after.lastRunFiles.map((f) => [f.path, f.state])).toEqual([
      ['sets/4/x.mp4', 'failed'],
      ['sets/2/set_2_slot_01.mp4', 'verified'],
      ['sets/3/set_3_slot_01.mp4', 'verified'],
      ['sets/1/set_1_slot_01.mp4', 'verified'],
    ]);
  });

  it('survives mangled notes and a state.db that is not a database', async () => {
    await writeFile(join(dest, '.dataset-sync', 'app-notes.json'), '{"lastVerified": ');
    await writeFile(join(dest, '.dataset-sync', 'state.db'), 'hello,world\n1,2\n'.repeat(100));
    await expect(readDatasetCard({ dest }, null)).resolves.toMatchObject({ filesOnDisk: null, bytesOnDisk: null, lastVerified: null, lastChanges: null });
  });

  it('a verify that found damage shows on the card and the Files rows; a repair, then a sync, say what changed since; history names each run', async () => {
    const t = '2026-01-01T00:00:00.000Z';
    engineRun([[1, 1, 10, t], [1, 2, 20, t], [2, 1, 30, t]]);
    const report = { dest, filesChecked: 3, ok: 1, missing: ['sets/1/set_1_slot_01.mp4'], changed: ['sets/2/set_2_slot_01.mp4'], extra: ['sets/notes.txt'], bytesHashed: 50 };
    await recordVerified(dest, report, '2026-03-01T00:00:00.000Z');
    let card = await readDatasetCard({ dest }, summary(t));
    expect(card).toMatchObject({ filesOnDisk: 2, bytesOnDisk: 50, lastVerified: { ok: false, missing: 1, changed: 1, extra: 1 } });
    expect(card.lastRunFiles.map((f) => [f.path, f.state])).toEqual([
      ['sets/1/set_1_slot_01.mp4', 'failed'],
      ['sets/2/set_2_slot_01.mp4', 'failed'],
      ['sets/1/set_1_slot_02.mp4', 'verified'],
    ]);
    // The window words them as Verify's findings on disk, not as downloads that failed.
    expect(card.lastRunFiles.map((f) => f.damage)).toEqual(['missing', 'changed', undefined]);

    const repair = summary('2026-03-02T00:00:00.000Z', { finishedAt: '2026-03-02T00:00:09.000Z', filesDownloaded: 2 });
    await recordRunEnded(dest, repair, 'repair');
    card = await readDatasetCard({ dest }, repair);
    expect(card.lastVerified).toMatchObject({ ok: true, missing: 0, changed: 0, extra: 1, repairedAt: '2026-03-02T00:00:09.000Z' });
    expect(card.filesOnDisk).toBe(3);
    expect(card.lastRunFiles.every((f) => f.state !== 'failed')).toBe(true);

    await recordVerified(dest, { ...report, missing: [], changed: ['sets/2/set_2_slot_01.mp4'] }, '2026-03-03T00:00:00.000Z');
    await recordRunEnded(dest, summary('2026-03-04T00:00:00.000Z'), 'sync');
    card = await readDatasetCard({ dest }, null);
    expect(card.lastVerified).toMatchObject({ ok: false, changed: 1, beforeSync: true });
    expect(card.lastRunFiles.every((f) => f.state !== 'failed')).toBe(true);

    const history = await readRunHistory(dest, [summary('2026-03-04T00:00:00.000Z'), repair, summary(t)]);
    expect(history.map((h) => h.kind)).toEqual(['sync', 'verify', 'repair', 'verify', 'sync']);
  });
  it('writes its notes by temp file and rename: a crash mid-write never leaves half a document', async () => {
    const notes = join(dest, '.dataset-sync', 'app-notes.json');
    await recordVerified(dest, { dest, filesChecked: 1, ok: 1, missing: [], changed: [], extra: [], bytesHashed: 1 }, '2026-03-01T00:00:00.000Z');
    const first = await stat(notes);
    await recordVerified(dest, { dest, filesChecked: 2, ok: 2, missing: [], changed: [], extra: [], bytesHashed: 2 }, '2026-03-02T00:00:00.000Z');
    // A new file took the name (rename), the old one was never truncated in place.
    expect((await stat(notes)).ino).not.toBe(first.ino);
    expect(JSON.parse(await readFile(notes, 'utf8')).verifies).toHaveLength(2);
    expect((await readdir(join(dest, '.dataset-sync'))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a folder last synced by the JSON-lines engine is counted from its imported records', async () => {
    const file = (id: number, size: number) => ({ setId: id, fileId: id, slotIndex: 1, slotKey: 'front', sizeBytes: size, sha256: 'b'.repeat(64), mtimeMs: 1, participantRefs: '', isGold: false, acceptedAt: null, updatedAt: 't', downloadedAt: 't' });
    const line = (id: number, size: number) => JSON.stringify({ id, updatedAt: 't', isGold: false, complete: true, files: { [`sets/${id}/a.mp4`]: file(id, size) } });
    await writeFile(join(dest, '.dataset-sync', 'sets.jsonl'), `${line(1, 10)}\n${line(2, 5)}\n`);
    const card = await readDatasetCard({ dest }, null);
    expect(card).toMatchObject({ filesOnDisk: 2, bytesOnDisk: 15, setsOnDisk: 2 });
    expect(card.lastRunFiles.map((f) => f.state)).toEqual(['up_to_date', 'up_to_date']);
    expect(await readdir(join(dest, '.dataset-sync'))).toContain('sets.jsonl.migrated');
  });
});
