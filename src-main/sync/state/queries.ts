// The engine's answers about a destination's state, for the app (dataset card, Files table,
// Sets tab): counts, what the last run changed, the files of a set, a page of sets. Read from
// the state database (state-db.ts) read-only, beside a running sync (WAL: a reader sees the last
// committed flush); every answer is one indexed query, whatever the set count. Nothing outside
// the engine parses manifest.csv or knows the state layout.
import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { LEGACY_SET_LOG } from './legacy-logs';
import { metaValue, openStateDb, openStateDbReadOnly } from './state-db';
import { entryOfRow, FILE_COLUMNS, type FileEntry, type FileTuple } from './records';
import { datasetChoices, datasetSetsPage, type DatasetChoices, type DatasetSetsAnswer, type DatasetSetsFilter, type FileVerdict } from './dataset-sets-query';

export type { DatasetChoices, DatasetSetsAnswer, DatasetSetsFilter, FileVerdict } from './dataset-sets-query';

/** A set's standing in the records: complete, incomplete (files missing or failed), or seen leaving "accepted". */
export type SetStatus = 'complete' | 'incomplete' | 'left_accepted';

export interface StateCounts {
  sets: number;
  /** Sets with at least one verified file. */
  setsWithFiles: number;
  files: number;
  bytes: number;
  byStatus: Record<SetStatus, number>;
}

export interface RunChanges {
  /** Sets that got their first verified files in the last run. */
  newSets: number[];
  /** Sets that had files before and got new or changed ones in the last run. */
  editedSets: number[];
  /** Files the last run verified (downloaded, or found changed and fetched again), in set and path order, at most `limit`. */
  files: FileEntryAt[];
  filesTotal: number;
}

export type FileEntryAt = FileEntry & { path: string };


const STATUS_SQL = "CASE WHEN s.left_accepted IS NOT NULL THEN 'left_accepted' WHEN s.complete = 1 THEN 'complete' ELSE 'incomplete' END";

/** Questions to the state of one destination; close() when done. */
export class StateQueries {
  private constructor(private readonly db: Database.Database | null) {}

  /**
   * Opens the state of `stateDir` (Destination.stateDir) read-only. A folder last synced before
   * state.db existed is imported first (the import is one idempotent transaction, safe beside a
   * sync); a folder never synced answers as empty.
   */
  static open(stateDir: string): StateQueries {
    if (existsSync(path.join(stateDir, LEGACY_SET_LOG))) openStateDb(stateDir).close();
    return new StateQueries(openStateDbReadOnly(stateDir));
  }

  close(): void {
    this.db?.close();
  }

  private lastRun(): number {
    return this.db ? metaValue(this.db, 'run') : 0;
  }

  /** How many flushes wrote records, ever (SetStore.changeCount): an answer kept with it stays true while it is unchanged. */
  changeCount(): number {
    return this.db ? metaValue(this.db, 'changes') : 0;
  }

  /**
   * A page of the sets in the dataset (with a verified file), filtered; each file judged by
   * `verdict` (the media check's, against collection.json's media_rules: media/media-verdict.ts).
   * `choices`: datasetChoices() as kept by the caller.
   */
  datasetSets(filter: DatasetSetsFilter, offset: number, limit: number, verdict: FileVerdict, choices: DatasetChoices = this.datasetChoices(verdict.stage)): DatasetSetsAnswer {
    return this.db ? datasetSetsPage(this.db, filter, offset, limit, verdict, choices) : { rows: [], total: 0 };
  }

  /** What the Sets tab's filters offer (one pass over the sets: keep it by changeCount()); `stage`: whose results say a file was checked. */
  datasetChoices(stage: string): DatasetChoices {
    return this.db ? datasetChoices(this.db, stage) : { setsInDataset: 0, quotaGroups: [], mediaChecked: false };
  }

  /** Whether set `id` has a verified file (one primary-key seek). */
  hasFiles(id: number): boolean {
    return !!this.db && this.db.prepare<[number], number>('SELECT 1 FROM files WHERE set_id = ? LIMIT 1').pluck().get(id) !== undefined;
  }

  counts(): StateCounts {
    const byStatus: Record<SetStatus, number> = { complete: 0, incomplete: 0, left_accepted: 0 };
    const out: StateCounts = { sets: 0, setsWithFiles: 0, files: 0, bytes: 0, byStatus };
    if (!this.db) return out;
    for (const row of this.db.prepare<[], { status: SetStatus; n: number }>(`SELECT ${STATUS_SQL} AS status, count(*) AS n FROM sets s GROUP BY status`).all()) {
      byStatus[row.status] = row.n;
      out.sets += row.n;
    }
    const files = this.db.prepare<[], { files: number; bytes: number | null; sets: number }>('SELECT count(*) AS files, sum(size_bytes) AS bytes, count(DISTINCT set_id) AS sets FROM files').get()!;
    Object.assign(out, { files: files.files, bytes: files.bytes ?? 0, setsWithFiles: files.sets });
    return out;
  }

  /** What the last run (the last sync or repair that opened the records) changed. */
  lastRunChanges(limit = 2000): RunChanges {
    const run = this.lastRun();
    const out: RunChanges = { newSets: [], editedSets: [], files: [], filesTotal: 0 };
    if (!this.db || run === 0) return out;
    const db = this.db;
    const touched = db
      .prepare<[number], { id: number; first: number | null }>('SELECT DISTINCT f.set_id AS id, s.first_files_run AS first FROM files f JOIN sets s ON s.id = f.set_id WHERE f.changed_run = ? ORDER BY f.set_id')
      .all(run);
    for (const t of touched) (t.first === run ? out.newSets : out.editedSets).push(t.id);
    out.filesTotal = db.prepare<[number], number>('SELECT count(*) FROM files WHERE changed_run = ?').pluck().get(run) ?? 0;
    out.files = db.prepare<[number, number], FileTuple>(`SELECT ${FILE_COLUMNS} FROM files WHERE changed_run = ? ORDER BY set_id, path LIMIT ?`).raw().all(run, limit).map(withPath);
    return out;
  }

  /** Files the last run did not change (up to date), in set and path order: `limit` after `offset`. */
  otherFiles(offset: number, limit: number): FileEntryAt[] {
    if (!this.db) return [];
    return this.db.prepare<[number, number, number], FileTuple>(`SELECT ${FILE_COLUMNS} FROM files WHERE changed_run <> ? ORDER BY set_id, path LIMIT ? OFFSET ?`).raw().all(this.lastRun() || -1, limit, offset).map(withPath); // run 0: imported files, no run's changes
  }

  /** The verified files of set `id`, by path. */
  filesOfSet(id: number): FileEntryAt[] {
    if (!this.db) return [];
    return this.db.prepare<[number], FileTuple>(`SELECT ${FILE_COLUMNS} FROM files WHERE set_id = ? ORDER BY path`).raw().all(id).map(withPath);
  }

  /** The recorded files at these paths (relative to DEST); unknown paths are left out. */
  filesAt(paths: readonly string[]): FileEntryAt[] {
    if (!this.db || paths.length === 0) return [];
    const byPath = this.db.prepare<[string], FileTuple>(`SELECT ${FILE_COLUMNS} FROM files WHERE path = ?`).raw();
    const out: FileEntryAt[] = [];
    // A path is sets/<id>/<name>: the set id leads the primary key, so each lookup is one seek.
    const bySetAndPath = this.db.prepare<[number, string], FileTuple>(`SELECT ${FILE_COLUMNS} FROM files WHERE set_id = ? AND path = ?`).raw();
    for (const p of paths) {
      const id = /^sets\/(\d+)\//.exec(p)?.[1];
      const row = id !== undefined ? bySetAndPath.get(Number(id), p) : byPath.get(p);
      if (row) out.push(withPath(row));
    }
    return out;
  }

}

function withPath(r: FileTuple): FileEntryAt {
  return { ...entryOfRow(r), path: r[1] };
}

/** One question, the database closed after it. */
export function queryState<T>(stateDir: string, ask: (q: StateQueries) => T): T {
  const q = StateQueries.open(stateDir);
  try {
    return ask(q);
  } finally {
    q.close();
  }
}

/** What the last run changed (see StateQueries.lastRunChanges). */
export function lastRunChanges(stateDir: string, limit?: number): RunChanges {
  return queryState(stateDir, (q) => q.lastRunChanges(limit));
}
