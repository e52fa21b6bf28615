// The stages' results in state.db (table stage_results, state-db.ts): what a stage learnt of one
// version of a file, as JSON only that stage reads. The store keeps them without knowing any
// stage's types (DESIGN §2): a stage names itself and hands over text. Results recorded during a
// sync wait here and are written in the same transaction as the records (SetStore.flushSome), so
// a record and the result learnt from its bytes reach the disk together.
import type Database from 'better-sqlite3';
import type { LocalSet, StageResult } from './records';

type Row = [stage: string, setId: number, path: string, sha256: string, json: string];

/** The results of a page of sets (SetStore.all), to attach to their records' file entries. */
export interface ResultsPage {
  attach(rec: LocalSet): void;
}

const NO_RESULTS: ResultsPage = { attach: () => undefined };

export class StageResults {
  /** Results recorded since the last flush, by stage, set and path. */
  private readonly pending = new Map<string, Row>();
  private readonly stmt;

  constructor(private readonly db: Database.Database) {
    this.stmt = {
      upsert: db.prepare<Row>('INSERT OR REPLACE INTO stage_results (stage, set_id, path, sha256, json) VALUES (?, ?, ?, ?, ?)'),
      get: db.prepare<[string, number, string], [string, string]>('SELECT sha256, json FROM stage_results WHERE stage = ? AND set_id = ? AND path = ?').raw(),
      forget: db.prepare<[number]>('DELETE FROM stage_results WHERE set_id = ?'),
      page: db.prepare<[number, number], Row>('SELECT stage, set_id, path, sha256, json FROM stage_results WHERE set_id BETWEEN ? AND ? ORDER BY set_id').raw(),
      any: db.prepare<[], number>('SELECT 1 FROM stage_results LIMIT 1').pluck(),
    };
  }

  get dirty(): boolean {
    return this.pending.size > 0;
  }

  put(stage: string, setId: number, path: string, result: StageResult): void {
    this.pending.set(`${stage}\n${setId}\n${path}`, [stage, setId, path, result.sha256, result.json]);
  }

  get(stage: string, setId: number, path: string): StageResult | undefined {
    const waiting = this.pending.get(`${stage}\n${setId}\n${path}`);
    if (waiting) return { sha256: waiting[3], json: waiting[4] };
    const row = this.stmt.get.get(stage, setId, path);
    return row ? { sha256: row[0], json: row[1] } : undefined;
  }

  /** Writes the waiting results (inside the caller's transaction). */
  flush(): void {
    for (const row of this.pending.values()) this.stmt.upsert.run(...row);
    this.pending.clear();
  }

  /** A set left the dataset: its results go with it (inside the caller's transaction). */
  forgetSet(setId: number): void {
    for (const [key, row] of this.pending) if (row[1] === setId) this.pending.delete(key);
    this.stmt.forget.run(setId);
  }

  /** The results of sets `first`..`last` (flushed first by the caller), attachable to their records. */
  page(first: number, last: number): ResultsPage {
    // A dataset no stage wrote to (the checks off) reads nothing per page.
    if (this.stmt.any.get() === undefined) return NO_RESULTS;
    const bySet = new Map<number, Row[]>();
    for (const row of this.stmt.page.all(first, last)) {
      let rows = bySet.get(row[1]);
      if (!rows) bySet.set(row[1], (rows = []));
      rows.push(row);
    }
    return {
      attach(rec: LocalSet): void {
        for (const [stage, , path, sha256, json] of bySet.get(rec.id) ?? []) {
          const entry = rec.files[path];
          if (!entry) continue;
          const results = (entry.results ??= Object.create(null) as Record<string, StageResult>) as Record<string, StageResult>;
          results[stage] = { sha256, json };
        }
      },
    };
  }

  /** Sets with files owing `stage` a result of their current version, and how many each (see SetStore.setsOwingStage). */
  setsOwing(stage: string): Array<[number, number]> {
    return this.db
      .prepare<[string], [number, number]>(
        `SELECT f.set_id, count(*) FROM files f
         WHERE NOT EXISTS (SELECT 1 FROM stage_results r WHERE r.stage = ? AND r.set_id = f.set_id AND r.path = f.path AND r.sha256 = f.sha256)
         GROUP BY f.set_id ORDER BY f.set_id`,
      )
      .raw()
      .all(stage);
  }
}
