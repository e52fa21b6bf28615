// The Sets tab's page of sets (state/dataset-sets-query.ts through StateQueries.datasetSets): a
// state.db with 250,000 sets written through the engine's own store, paged and filtered in SQL.
// Page 1, a middle page and the last page come back right, each answer holds the page only, and
// the query plan walks the sets in primary-key order (no sort of every set) with one
// primary-key seek into the files per set.
import Database from 'better-sqlite3';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_SQL, paramsOf, registerVerdictFunction, type DatasetSetsFilter } from '../../src-main/sync/state/dataset-sets-query';
import { mediaVerdict } from '../../src-main/sync/media/media-verdict';
import { MEDIA_STAGE, resultOf } from '../../src-main/sync/media/media-result';
import { queryState, type StateQueries } from '../../src-main/sync/state/queries';
import { DB_NAME } from '../../src-main/sync/state/state-db';
import { emptyLocalSet, SetStore, type LocalSet } from '../../src-main/sync/state/set-store';
import { tempDir } from './helpers';

const SETS = 250_000;
const PER_PAGE = 20;
const RULES = { min_width: 320 };
const VERDICT = mediaVerdict(RULES);
const GROUPS = ['g0', 'g1', 'g2', 'g3', 'g4'];

const isGold = (id: number) => id % 10 === 0;
const consentMissing = (id: number) => id % 7 === 0;
const tooNarrow = (id: number) => id % 13 === 0;
const groupOf = (id: number) => GROUPS[id % GROUPS.length]!;

function record(id: number): LocalSet {
  const rec = emptyLocalSet(id);
  const sha256 = String(id % 10).repeat(64);
  Object.assign(rec, {
    updatedAt: '2026-01-01T00:00:00Z',
    complete: id % 11 !== 0,
    isGold: isGold(id),
    participants: [
      { role: 'A', ref: `pr_${id}_a`, group: 'age', value: groupOf(id), label: `Group ${groupOf(id).toUpperCase()}`, signed: true },
      { role: 'B', ref: `pr_${id}_b`, group: 'age', value: groupOf(id), label: `Group ${groupOf(id).toUpperCase()}`, signed: !consentMissing(id) },
    ],
  });
  rec.files[`sets/${id}/set_${id}_slot_01.mp4`] = {
    setId: id, fileId: id * 10, slotIndex: 1, slotKey: 'wave', sizeBytes: 1000 + id, sha256,
    mtimeMs: 1.5, participantRefs: `pr_${id}_a;pr_${id}_b`, isGold: isGold(id), acceptedAt: null, updatedAt: '2026-01-01T00:00:00Z', downloadedAt: '2026-01-02T00:00:00Z',
  };
  return rec;
}

/** The media check's result of the record's file, as the stage records it. */
function mediaResult(id: number) {
  const sha256 = String(id % 10).repeat(64);
  return resultOf({ sha256, result: 'probed', probe: { width: tooNarrow(id) ? 160 : 640, height: 360, fps: 30, duration: 5, codec: 'h264' } });
}

/** Ids 1..SETS that pass `keep`, for the expected pages. */
function idsWhere(keep: (id: number) => boolean): number[] {
  const out: number[] = [];
  for (let id = 1; id <= SETS; id++) if (keep(id)) out.push(id);
  return out;
}

describe('a page of 250,000 sets', () => {
  let dest: string;
  const stateFolder = () => path.join(dest, '.dataset-sync');
  // The choices are asked once, as the app keeps them (local-sets.ts) until the records change.
  let choices: ReturnType<StateQueries['datasetChoices']> | undefined;
  const page = (filter: DatasetSetsFilter, offset: number) =>
    queryState(stateFolder(), (q) => q.datasetSets(filter, offset, PER_PAGE, VERDICT, (choices ??= q.datasetChoices(MEDIA_STAGE))));

  beforeAll(async () => {
    dest = await tempDir('dsync-setspage-');
    await fs.mkdir(stateFolder(), { recursive: true });
    const store = SetStore.open(stateFolder());
    try {
      // The store's own writer: a flush is one transaction; 25,000 records a flush keeps memory small.
      for (let id = 1; id <= SETS; id++) {
        store.put(record(id));
        store.recordStageResult(MEDIA_STAGE, { setId: id, fileId: id * 10, sha256: String(id % 10).repeat(64) }, mediaResult(id));
        if (id % 25_000 === 0) store.flush();
      }
      store.flush();
    } finally {
      store.close();
    }
  }, 600_000);

  afterAll(async () => {
    if (dest) await fs.rm(dest, { recursive: true, force: true });
  });

  it('answers page 1, a middle page and the last page, a page at a time', () => {
    const first = page({}, 0);
    expect(first.total).toBe(SETS);
    expect(first.rows.map((r) => r.id)).toEqual(idsWhere((id) => id <= PER_PAGE));
    const middle = page({}, 125_000);
    expect(middle.rows.map((r) => r.id)).toEqual(idsWhere((id) => id > 125_000 && id <= 125_000 + PER_PAGE));
    const last = page({}, Math.floor((SETS - 1) / PER_PAGE) * PER_PAGE);
    expect(last.rows.map((r) => r.id)).toEqual(idsWhere((id) => id > SETS - PER_PAGE));
    expect(page({}, SETS).rows).toEqual([]);

    // A row: the set's flags, its participants' quota group and consent, its files with their media check.
    const row = middle.rows.find((r) => r.id === 125_008)!;
    expect(row).toEqual({
      id: 125_008,
      isGold: false,
      complete: true,
      participants: [
        { role: 'A', quotaGroup: { value: 'g3', label: 'Group G3' }, signed: true },
        { role: 'B', quotaGroup: { value: 'g3', label: 'Group G3' }, signed: true },
      ],
      files: [{ filename: 'set_125008_slot_01.mp4', slotIndex: 1, slotKey: 'wave', sizeBytes: 126_008, sha256: '8'.repeat(64), media: { ok: false, problems: ['min_width'] } }],
    });
    expect(middle.rows.find((r) => r.id === 125_013)!.participants[1]!.signed).toBe(false);
    expect(middle.rows.find((r) => r.id === 125_004)!.complete).toBe(false);
    expect(middle.rows.find((r) => r.id === 125_010)!.isGold).toBe(true);
  }, 300_000);

  it('filters in SQL: gold, quota group, consent, media check, set id digits, and their mix', () => {
    const cases: Array<[DatasetSetsFilter, (id: number) => boolean]> = [
      [{ gold: 'gold' }, isGold],
      [{ gold: 'not_gold' }, (id) => !isGold(id)],
      [{ quotaGroup: 'g2' }, (id) => groupOf(id) === 'g2'],
      [{ consent: 'missing' }, consentMissing],
      [{ consent: 'signed' }, (id) => !consentMissing(id)],
      [{ media: 'problems' }, tooNarrow],
      [{ media: 'ok' }, (id) => !tooNarrow(id)],
      [{ setId: '4242' }, (id) => String(id).includes('4242')],
      [{ gold: 'gold', consent: 'missing', media: 'problems' }, (id) => isGold(id) && consentMissing(id) && tooNarrow(id)],
    ];
    for (const [filter, keep] of cases) {
      const ids = idsWhere(keep);
      const lastOffset = Math.floor((ids.length - 1) / PER_PAGE) * PER_PAGE;
      const [first, last] = [page(filter, 0), page(filter, lastOffset)];
      expect(first.total, JSON.stringify(filter)).toBe(ids.length);
      expect(first.rows.map((r) => r.id), JSON.stringify(filter)).toEqual(ids.slice(0, PER_PAGE));
      expect(last.rows.map((r) => r.id), JSON.stringify(filter)).toEqual(ids.slice(lastOffset));
    }
  }, 600_000);

  it("offers the filters' choices: sets in the dataset, quota groups with their labels, whether media was checked", () => {
    expect(queryState(stateFolder(), (q) => q.datasetChoices(MEDIA_STAGE))).toEqual({
      setsInDataset: SETS,
      quotaGroups: GROUPS.map((g) => ({ value: g, label: `Group ${g.toUpperCase()}` })),
      mediaChecked: true,
    });
  }, 300_000);

  it('reads the page only: sets in primary-key order (no sort of every set), files by primary key', () => {
    const db = new Database(path.join(stateFolder(), DB_NAME), { readonly: true, fileMustExist: true });
    try {
      registerVerdictFunction(db, VERDICT);
      for (const filter of [{}, { gold: 'gold' as const, media: 'problems' as const }]) {
        const plan = db
          .prepare<[ReturnType<typeof paramsOf>], { detail: string }>(`EXPLAIN QUERY PLAN ${PAGE_SQL}`)
          .all(paramsOf(filter, 125_000, PER_PAGE, MEDIA_STAGE))
          .map((r) => r.detail);
        expect(plan.join('\n')).not.toMatch(/TEMP B-TREE/);
        expect(plan.some((d) => /^SCAN s\b/.test(d))).toBe(true);
        expect(plan.some((d) => /^SEARCH f USING PRIMARY KEY \(set_id=\?\)/.test(d))).toBe(true);
      }
    } finally {
      db.close();
    }
  });
});
