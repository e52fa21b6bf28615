// The Sets tab's page of the sets in a dataset folder, from state.db (queries.ts opens it): the
// sets with at least one verified file, filtered (set id digits, gold, quota group, consent, media
// check) and paged in SQL, so a 250,000-set dataset answers a page without reading the rest into
// memory. Participants come from the set record (ParticipantEntry), files from the files table and
// what a stage found of them from stage_results; the verdict on a file is the stage's own (a
// FileVerdict its module gives: media/media-verdict.ts), called from SQL (a function registered on
// the read-only connection) so that it filters too. The store knows no stage's types.
import type Database from 'better-sqlite3';
import type { DatasetSetFile, DatasetSetParticipant, DatasetSetRow, FileMediaCheck } from '../../../src-shared/dataset-sets';
import type { FileRow, ParticipantEntry } from './records';

/** A stage's verdict on one file from its result of the file's current version (null: none), for the Sets tab's column and filter. */
export interface FileVerdict {
  /** The stage whose results it reads (stages.name). */
  readonly stage: string;
  check(path: string, json: string | null, sha256: string): FileMediaCheck;
}

export interface DatasetSetsFilter {
  /** Digits the set id contains. */
  setId?: string;
  gold?: 'gold' | 'not_gold';
  /** A participant's quota group value. */
  quotaGroup?: string;
  consent?: 'signed' | 'missing';
  media?: 'ok' | 'problems';
}

export interface DatasetSetsAnswer {
  rows: DatasetSetRow[];
  total: number;
}

export interface DatasetChoices {
  setsInDataset: number;
  quotaGroups: Array<{ value: string; label: string }>;
  mediaChecked: boolean;
}

const VERDICT_FN = 'dsync_file_problem';
/** The result of the file's current version by the verdict's stage, as a correlated subquery on stage_results' primary key. */
const RESULT_OF_FILE =
  '(SELECT r.json FROM stage_results r WHERE r.stage = (SELECT id FROM stages WHERE name = @stage) AND r.set_id = f.set_id AND r.file_id = f.file_id AND r.version = substr(f.sha256, 1, 16))';

// Each condition is off when its parameter is null, so one statement serves every filter mix.
const WHERE = `
  EXISTS (SELECT 1 FROM files f WHERE f.set_id = s.id)
  AND (@setId IS NULL OR instr(CAST(s.id AS TEXT), @setId) > 0)
  AND (@gold IS NULL OR s.is_gold = @gold)
  AND (@quotaGroup IS NULL OR EXISTS (SELECT 1 FROM json_each(s.participants) p WHERE json_extract(p.value, '$.value') = @quotaGroup))
  AND (@consentMissing IS NULL OR EXISTS (SELECT 1 FROM json_each(s.participants) p WHERE json_extract(p.value, '$.signed') = 0) = @consentMissing)
  AND (@mediaProblems IS NULL OR EXISTS (SELECT 1 FROM files f WHERE f.set_id = s.id AND ${VERDICT_FN}(f.path, ${RESULT_OF_FILE}, f.sha256)) = @mediaProblems)`;

type Params = Record<'setId' | 'gold' | 'quotaGroup' | 'consentMissing' | 'mediaProblems' | 'stage', string | number | null> & { limit: number; offset: number };

/** The statement behind a page (exported for the test that reads its query plan). */
export const PAGE_SQL = `SELECT s.id, s.is_gold, s.complete, s.participants FROM sets s WHERE ${WHERE} ORDER BY s.id LIMIT @limit OFFSET @offset`;

export function paramsOf(filter: DatasetSetsFilter, offset: number, limit: number, stage: string): Params {
  const flag = (v: string | undefined, yes: string) => (v === undefined ? null : v === yes ? 1 : 0);
  return {
    setId: filter.setId ?? null,
    gold: flag(filter.gold, 'gold'),
    quotaGroup: filter.quotaGroup ?? null,
    consentMissing: flag(filter.consent, 'missing'),
    mediaProblems: flag(filter.media, 'problems'),
    stage,
    limit: Math.max(0, limit),
    offset: Math.max(0, offset),
  };
}

/** Registers the verdict function on `db` (a connection is opened per question, so the verdict's rules are current). */
export function registerVerdictFunction(db: Database.Database, verdict: FileVerdict): void {
  db.function(VERDICT_FN, { deterministic: true }, (path: unknown, json: unknown, sha256: unknown) =>
    verdict.check(String(path), typeof json === 'string' ? json : null, String(sha256)).ok ? 0 : 1,
  );
}

/** `limit` matching sets after `offset`, in set-id order, and how many match in all; `choices` as datasetChoices() answered for the same records. */
export function datasetSetsPage(db: Database.Database, filter: DatasetSetsFilter, offset: number, limit: number, verdict: FileVerdict, choices: DatasetChoices): DatasetSetsAnswer {
  registerVerdictFunction(db, verdict);
  const params = paramsOf(filter, offset, limit, verdict.stage);
  const { mediaChecked } = choices;
  // Unfiltered, every set in the dataset matches: the count the choices already hold (no pass over the sets per page).
  const filtered = Object.values(filter).some((v) => v !== undefined);
  const total = filtered ? (db.prepare<[Params], number>(`SELECT count(*) FROM sets s WHERE ${WHERE}`).pluck().get(params) ?? 0) : choices.setsInDataset;
  const sets = db.prepare<[Params], { id: number; is_gold: number; complete: number; participants: string | null }>(PAGE_SQL).all(params);
  // One primary-key seek per set of the page (a filtered page may span the whole id range).
  const filesOf = db.prepare<[string, number], FileRow & { result: string | null }>(
    `SELECT f.*, r.json AS result FROM files f LEFT JOIN stage_results r
       ON r.stage = (SELECT id FROM stages WHERE name = ?) AND r.set_id = f.set_id AND r.file_id = f.file_id AND r.version = substr(f.sha256, 1, 16)
     WHERE f.set_id = ? ORDER BY f.slot_index, f.path`,
  );
  const rows = sets.map((s): DatasetSetRow => {
    const participants = s.participants ? (JSON.parse(s.participants) as ParticipantEntry[]) : [];
    return {
      id: s.id,
      isGold: s.is_gold !== 0,
      complete: s.complete !== 0,
      participants: participants.map((p): DatasetSetParticipant => ({ role: p.role, quotaGroup: { value: p.value, label: p.label ?? p.value }, signed: p.signed })),
      files: filesOf.all(verdict.stage, s.id).map(
        (f): DatasetSetFile => ({
          filename: f.path.slice(f.path.lastIndexOf('/') + 1),
          slotIndex: f.slot_index,
          slotKey: f.slot_key,
          sizeBytes: f.size_bytes,
          sha256: f.sha256,
          ...(mediaChecked ? { media: verdict.check(f.path, f.result, f.sha256) } : {}),
        }),
      ),
    };
  });
  return { rows, total };
}

/** What the filters offer: read whole (one pass over the sets), so callers keep it until the records change (StateQueries.changeCount). */
export function datasetChoices(db: Database.Database, stage: string): DatasetChoices {
  const setsInDataset = db.prepare<[], number>('SELECT count(DISTINCT set_id) FROM files').pluck().get() ?? 0;
  const groups = db
    .prepare<[], { value: string; label: string | null }>(
      `SELECT json_extract(p.value, '$.value') AS value, max(json_extract(p.value, '$.label')) AS label
       FROM sets s, json_each(s.participants) p WHERE EXISTS (SELECT 1 FROM files f WHERE f.set_id = s.id) GROUP BY 1`,
    )
    .all();
  const mediaChecked = db.prepare<[string], number>('SELECT 1 FROM stage_results WHERE stage = (SELECT id FROM stages WHERE name = ?) LIMIT 1').pluck().get(stage) !== undefined;
  return {
    setsInDataset,
    quotaGroups: groups.map((g) => ({ value: g.value, label: g.label ?? g.value })).sort((a, b) => a.label.localeCompare(b.label)),
    mediaChecked,
  };
}
