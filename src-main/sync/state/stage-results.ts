// The stages' results in state.db (table stage_results, state-db.ts): what a stage learnt of one
// version of a file, as JSON only that stage reads. The store keeps them without knowing any
// stage's types (DESIGN §2): a stage names itself and hands over text. Results recorded during a
// sync wait here and are written in the same transaction as the records (SetStore.flushSome), so
// a record and the result learnt from its bytes reach the disk together.
//
// Compact on purpose: a row per file of the dataset, kept as long as the file is. Keyed by the
// stage's number (table stages), the set and the file's id in the listing, with the version as the
// first 16 hex digits of its SHA-256 (a new version of the same file in the same set differing in
// those 64 bits is not a practical risk); measured at 100,000 rows, an unreadable file's row costs
// 32 B and a video's 63 B, against 228 B and 410 B keyed by stage name, path and whole hash with
// the result's JSON repeating the hash (the scale bench holds the state to 500 B per file).
import type Database from 'better-sqlite3';
import type { LocalSet } from './records';

/** A version of a file, as a stage's result is keyed. */
export interface FileVersion {
  setId: number;
  /** The file's id in the service's listing (unique in its set: collisions.ts). */
  fileId: number;
  sha256: string;
}

/** The part of a SHA-256 a result's version is kept as. */
export function versionOf(sha256: string): string {
  return sha256.slice(0, 16);
}

type Row = [stage: number, setId: number, fileId: number, version: string, json: string];

/** The results of a page of sets (SetStore.all), to attach to their records' file entries. */
export interface ResultsPage {
  attach(rec: LocalSet): void;
}

const NO_RESULTS: ResultsPage = { attach: () => undefined };

export class StageResults {
  /** Results recorded since the last flush, by stage, set and file. */
  private readonly pending = new Map<string, Row>();
  /** Stage names by number and numbers by name (table stages: a name is stored once). */
  private readonly names = new Map<number, string>();
  private readonly numbers = new Map<string, number>();
  private readonly stmt;

  constructor(private readonly db: Database.Database) {
    this.stmt = {
      upsert: db.prepare<Row>('INSERT OR REPLACE INTO stage_results (stage, set_id, file_id, version, json) VALUES (?, ?, ?, ?, ?)'),
      get: db.prepare<[number, number, number, string], string>('SELECT json FROM stage_results WHERE stage = ? AND set_id = ? AND file_id = ? AND version = ?').pluck(),
      forget: db.prepare<[number]>('DELETE FROM stage_results WHERE set_id = ?'),
      page: db.prepare<[number, number], Row>('SELECT stage, set_id, file_id, version, json FROM stage_results WHERE set_id BETWEEN ? AND ? ORDER BY set_id').raw(),
      any: db.prepare<[], number>('SELECT 1 FROM stage_results LIMIT 1').pluck(),
      stages: db.prepare<[], [number, string]>('SELECT id, name FROM stages').raw(),
      addStage: db.prepare<[string]>('INSERT OR IGNORE INTO stages (name) VALUES (?)'),
      stageId: db.prepare<[string], number>('SELECT id FROM stages WHERE name = ?').pluck(),
    };
    for (const [id, name] of this.stmt.stages.all()) this.remember(id, name);
  }

  private remember(id: number, name: string): void {
    this.names.set(id, name);
    this.numbers.set(name, id);
  }

  /** The stage's number, given one the first time it is named (a write outside any transaction is its own). */
  private numberOf(stage: string): number {
    let id = this.numbers.get(stage);
    if (id === undefined) {
      this.stmt.addStage.run(stage);
      id = this.stmt.stageId.get(stage)!;
      this.remember(id, stage);
    }
    return id;
  }

  get dirty(): boolean {
    return this.pending.size > 0;
  }

  put(stage: string, file: FileVersion, json: string): void {
    const row: Row = [this.numberOf(stage), file.setId, file.fileId, versionOf(file.sha256), json];
    this.pending.set(`${row[0]}\n${file.setId}\n${file.fileId}`, row);
  }

  /** The result of this version of the file; undefined when there is none (never, or only of another version). */
  get(stage: string, file: FileVersion): string | undefined {
    const id = this.numbers.get(stage);
    if (id === undefined) return undefined;
    const version = versionOf(file.sha256);
    const waiting = this.pending.get(`${id}\n${file.setId}\n${file.fileId}`);
    if (waiting) return waiting[3] === version ? waiting[4] : undefined;
    return this.stmt.get.get(id, file.setId, file.fileId, version);
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

  /** The results of sets `first`..`last` (flushed first by the caller), attachable to their records: of each file's current version only. */
  page(first: number, last: number): ResultsPage {
    // A dataset no stage wrote to (the checks off) reads nothing per page.
    if (this.stmt.any.get() === undefined) return NO_RESULTS;
    const bySet = new Map<number, Row[]>();
    for (const row of this.stmt.page.all(first, last)) {
      let rows = bySet.get(row[1]);
      if (!rows) bySet.set(row[1], (rows = []));
      rows.push(row);
    }
    const names = this.names;
    return {
      attach(rec: LocalSet): void {
        const rows = bySet.get(rec.id);
        if (!rows) return;
        for (const entry of Object.values(rec.files)) {
          for (const [stage, , fileId, version, json] of rows) {
            if (fileId !== entry.fileId || version !== versionOf(entry.sha256)) continue;
            const results = (entry.results ??= Object.create(null) as Record<string, string>) as Record<string, string>;
            results[names.get(stage) ?? String(stage)] = json;
          }
        }
      },
    };
  }

  /** Sets with files owing `stage` a result of their current version, and how many each (see SetStore.setsOwingStage). */
  setsOwing(stage: string): Array<[number, number]> {
    return this.db
      .prepare<[string], [number, number]>(
        `SELECT f.set_id, count(*) FROM files f
         WHERE NOT EXISTS (SELECT 1 FROM stage_results r WHERE r.stage = (SELECT id FROM stages WHERE name = ?)
                           AND r.set_id = f.set_id AND r.file_id = f.file_id AND r.version = substr(f.sha256, 1, 16))
         GROUP BY f.set_id ORDER BY f.set_id`,
      )
      .raw()
      .all(stage);
  }
}
