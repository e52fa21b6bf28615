// The dataset card reads what is on disk: manifest.csv as the engine writes it, and the app's
// notes. Files a user (or a crash) mangled hide a line of the card; they never break it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDatasetCard, readRunHistory, recordChanges, recordRunEnded, recordVerified, setIdsOnDisk } from '../../src-main/app/dataset-card';
import type { SyncSummary } from '../../src-shared/sync-events';

let dest: string;

const HEADER = 'set_id,slot_index,slot_key,path,size_bytes,sha256,participant_refs,is_gold,accepted_at,updated_at,downloaded_at';
const row = (setId: number, slot: number, size: number, downloadedAt: string) =>
  `${setId},${slot},front,sets/${setId}/set_${setId}_slot_0${slot}.mp4,${size},${'a'.repeat(64)},"p1,p2",false,2026-01-01T00:00:00.000Z,2026-01-01T00:00:00.000Z,${downloadedAt}`;

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

  it('counts the manifest, lists the last run first, and tells new sets from edited ones', async () => {
    await writeFile(join(dest, 'manifest.csv'), [HEADER, row(1, 1, 10, '2026-01-01T00:00:00.000Z'), row(2, 1, 20, '2026-01-01T00:00:00.000Z')].join('\n') + '\n');
    const before = await setIdsOnDisk(dest);
    // The run edits set 2 and adds set 3.
    const run = '2026-02-01T00:00:00.000Z';
    await writeFile(join(dest, 'manifest.csv'), [HEADER, row(1, 1, 10, '2026-01-01T00:00:00.000Z'), row(2, 1, 25, '2026-02-01T00:00:05.000Z'), row(3, 1, 30, '2026-02-01T00:00:06.000Z')].join('\n') + '\n');
    const last = summary(run, { setsNotServed: [9], failures: [{ setId: 4, fileId: 40, path: 'sets/4/x.mp4', reason: 'HTTP 500', code: 'server_error' }] });
    await recordChanges(dest, before, last);
    await recordVerified(dest, { dest, filesChecked: 3, ok: 3, missing: [], changed: [], extra: [], bytesHashed: 65 }, run);
    const card = await readDatasetCard({ dest, consentsDir: join(dest, 'c') }, last);
    expect(card).toMatchObject({ filesOnDisk: 3, bytesOnDisk: 65, consentsDir: join(dest, 'c') });
    expect(card.lastChanges).toMatchObject({ newSets: [3], editedSets: [2], leftAccepted: [9] });
    expect(card.lastVerified?.ok).toBe(true);
    expect(card.lastRunFiles.map((f) => [f.path, f.state])).toEqual([
      ['sets/4/x.mp4', 'failed'],
      ['sets/2/set_2_slot_01.mp4', 'verified'],
      ['sets/3/set_3_slot_01.mp4', 'verified'],
      ['sets/1/set_1_slot_01.mp4', 'up_to_date'],
    ]);
  });

  it('survives mangled notes and a manifest without the expected columns', async () => {
    await writeFile(join(dest, '.dataset-sync', 'app-notes.json'), '{"lastVerified": ');
    await writeFile(join(dest, 'manifest.csv'), 'hello,world\n1,2\n');
    await expect(readDatasetCard({ dest }, null)).resolves.toMatchObject({ filesOnDisk: null, bytesOnDisk: null, lastVerified: null, lastChanges: null });
  });

  it('a verify that found damage shows on the card and the Files rows; a repair, then a sync, say what changed since; history names each run', async () => {
    const t = '2026-01-01T00:00:00.000Z';
    await writeFile(join(dest, 'manifest.csv'), [HEADER, row(1, 1, 10, t), row(1, 2, 20, t), row(2, 1, 30, t)].join('\n') + '\n');
    const report = { dest, filesChecked: 3, ok: 1, missing: ['sets/1/set_1_slot_01.mp4'], changed: ['sets/2/set_2_slot_01.mp4'], extra: ['sets/notes.txt'], bytesHashed: 50 };
    await recordVerified(dest, report, '2026-03-01T00:00:00.000Z');
    let card = await readDatasetCard({ dest }, summary(t));
    expect(card).toMatchObject({ filesOnDisk: 2, bytesOnDisk: 50, lastVerified: { ok: false, missing: 1, changed: 1, extra: 1 } });
    expect(card.lastRunFiles.map((f) => [f.path, f.state])).toEqual([
      ['sets/1/set_1_slot_01.mp4', 'failed'],
      ['sets/2/set_2_slot_01.mp4', 'failed'],
      ['sets/1/set_1_slot_02.mp4', 'verified'],
    ]);

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
});
