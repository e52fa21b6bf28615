// What the engine knows of each local set — its status and its verified files with the size and
// stamp (a folder's mtime) seen at verification — kept in the tables `sets` and `files` of the
// state database (state-db.ts: state.db in Destination.stateDir) and read one set at a time.
// Memory holds only the records changed since the last flush, so it stays flat in the set count;
// a flush writes them in one transaction, so a crash leaves every record as of one flush or the
// next, never a record cut in half.
import type Database from 'better-sqlite3';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { metaValue, openStateDb, setMeta } from './state-db';
import { emptyLocalSet, recordOfRow, recordWriter, type FileTuple, type LocalSet, type SetRow, FILE_COLUMNS, SET_COLUMNS, PAGE } from './records';
import { StageResults, type FileVersion } from './stage-results';

/** A recorded file as the disk check sees it (Destination's ExpectedObject): its key, size and stamp (entryStamp). */
export interface RecordedFile {
  key: string;
  size: number;
  stamp: string;
}

/** Files per query of recordedFiles(). */
const FILE_PAGE = 2048;

export * from './records';

/** Something else a commit writes (engine-store.ts: the head), when it has something pending. */
export interface CommitHook {
  pending(): boolean;
  write(db: Database.Database): void;
}

/** Sets written per transaction by flushInTurns: a few ms of the event loop each. */
const FLUSH_CHUNK = 64;

export class SetStore {
  /** Records changed since the last flush: read back from here, written by flush(). */
  private readonly dirty = new Map<number, LocalSet>();
  /** Sets forgotten since the last flush (remove): deleted by flush(). */
  private readonly removed = new Set<number>();
  private changes: number;
  /** Whether a commit since the last flushDurably() went without an fsync (synchronous=NORMAL). */
  private undurable = false;
  private readonly stmt;
  private readonly write: (rec: LocalSet, run: number, mayHaveRows: boolean) => void;
  /**
   * The sets written since the store was opened, kept only when it was opened empty (a first
   * sync): every other set then has no row, so get() and the writer skip the queries that would
   * find none (a first sync's profile showed a read that misses at 35-40 us per set, against 5 us
   * in isolation, and the writer's two reads of what a set held). null when the store held sets.
   */
  private readonly writtenSinceEmpty: Set<number> | null;
  private readonly forget: (id: number) => void;
  /** The stages' results (stage_results), written with the records' transactions. */
  private readonly results: StageResults;
  /** What else goes into the next commit (the head state: engine-store.ts): written when pending. */
  private commitHooks: CommitHook[] = [];

  private constructor(
    private readonly db: Database.Database,
    /** This run's number (meta 'run'): files it verifies are marked with it (queries.ts: what the last run changed). */
    readonly run: number,
  ) {
    this.changes = metaValue(db, 'changes');
    this.write = recordWriter(db);
    const deleteFiles = db.prepare('DELETE FROM files WHERE set_id = ?');
    const deleteSet = db.prepare('DELETE FROM sets WHERE id = ?');
    this.results = new StageResults(db);
    this.forget = (id) => {
      deleteFiles.run(id);
      deleteSet.run(id);
      this.results.forgetSet(id);
    };
    this.stmt = {
      set: db.prepare<[number], SetRow>(`SELECT ${SET_COLUMNS} FROM sets WHERE id = ?`),
      files: db.prepare<[number], FileTuple>(`SELECT ${FILE_COLUMNS} FROM files WHERE set_id = ? ORDER BY path`).raw(),
      ids: db.prepare<[], number>('SELECT id FROM sets ORDER BY id').pluck(),
      any: db.prepare<[], number>('SELECT id FROM sets LIMIT 1').pluck(),
      count: db.prepare<[], number>('SELECT count(*) FROM sets').pluck(),
      page: db.prepare<[number, number], SetRow>(`SELECT ${SET_COLUMNS} FROM sets WHERE id > ? ORDER BY id LIMIT ?`),
      pageFiles: db.prepare<[number, number], FileTuple>(`SELECT ${FILE_COLUMNS} FROM files WHERE set_id BETWEEN ? AND ? ORDER BY set_id, path`).raw(),
      presence: db
        .prepare<[number, string, number], [number, string, number, number, string | null]>(
          'SELECT set_id, path, size_bytes, mtime_ms, stamp FROM files WHERE (set_id, path) > (?, ?) ORDER BY set_id, path LIMIT ?',
        )
        .raw(),
    };
    this.writtenSinceEmpty = this.stmt.any.get() === undefined ? new Set() : null;
  }

  /**
   * Opens (or creates, importing sets.jsonl / history.jsonl once) the database in the state
   * folder `stateDir` (DEST/.dataset-sync) and starts a run: what this opener writes is "the
   * last run" for queries.ts. A symlink planted in its place is refused.
   */
  static open(stateDir: string): SetStore {
    const db = openStateDb(stateDir);
    try {
      const run = db.transaction(() => {
        const next = metaValue(db, 'run') + 1;
        setMeta(db, 'run', next);
        return next;
      }).immediate();
      return new SetStore(db, run);
    } catch (e) {
      db.close();
      throw e;
    }
  }

  /** Reads something else of the database (the head's row: engine-store.ts). */
  readHead<T>(read: (db: Database.Database) => T): T {
    return read(this.db);
  }

  /** `hook.write` runs inside every commit, before it ends, and a pending hook is a reason to commit (the head is committed with the records it vouches for). */
  beforeCommit(hook: CommitHook): void {
    this.commitHooks.push(hook);
  }

  private hooksDirty(): boolean {
    return this.commitHooks.some((h) => h.pending());
  }

  /**
   * The record of set `id` to change (engine-store.ts' intents): the one waiting to be written,
   * else a fresh copy of the stored one, else a new empty record. Never an object a caller holds
   * from get() unless that one is waiting to be written already.
   */
  editable(id: number): LocalSet {
    return this.get(id) ?? emptyLocalSet(id);
  }

  /** Whether any set is known (one indexed row read, however many there are). */
  hasSets(): boolean {
    return this.dirty.size > 0 || this.stmt.any.get() !== undefined;
  }

  /** How many sets are known. */
  count(): number {
    this.flush();
    return this.stmt.count.get()!;
  }

  /** Ids of every known set, ascending. */
  ids(): number[] {
    this.flush();
    return this.stmt.ids.all();
  }

  /**
   * The sets holding files that owe `stage` a result of their current version (no row, or a row
   * of another sha256), with how many such files each, by set id: what a stage still owes after a
   * sync without it (the media check turned off) or one that could not read the bytes. One scan.
   */
  setsOwingStage(stage: string): Array<[setId: number, files: number]> {
    this.flush();
    return this.results.setsOwing(stage);
  }

  /**
   * The records of `ids` (the known ones, in that order), read fresh after a flush, with the stages'
   * results attached to their files as all() yields them: for the few records an appending end
   * writes rows of (get() leaves results out, as the walk reads a record per set).
   */
  readWithResults(ids: readonly number[]): LocalSet[] {
    this.flush();
    const sets: LocalSet[] = [];
    for (const id of ids) {
      const row = this.stmt.set.get(id);
      if (row) sets.push(recordOfRow(row, this.stmt.files.all(id)));
    }
    if (sets.length === 0) return sets;
    const page = this.results.page(Math.min(...ids), Math.max(...ids));
    for (const rec of sets) page.attach(rec);
    return sets;
  }

  /** `stage`'s result (its JSON) for this version of the file; undefined when it has none. */
  stageResult(stage: string, file: FileVersion): string | undefined {
    return this.results.get(stage, file);
  }

  /** Records what `stage` learnt of a version of a file; it reaches the disk with the next flush, in the same transaction as the records. */
  recordStageResult(stage: string, file: FileVersion, json: string): void {
    this.results.put(stage, file, json);
  }

  /** The set's record; undefined when unknown. */
  get(id: number): LocalSet | undefined {
    if (this.removed.has(id)) return undefined;
    const pending = this.dirty.get(id);
    if (pending) return pending;
    if (!this.mayHaveRows(id)) return undefined;
    const row = this.stmt.set.get(id);
    return row ? recordOfRow(row, this.stmt.files.all(id)) : undefined;
  }

  /** False when the set is known to have no row (the store was opened empty and has not written it). */
  private mayHaveRows(id: number): boolean {
    return this.writtenSinceEmpty === null || this.writtenSinceEmpty.has(id);
  }

  /** Records a changed set; it reaches the disk with the next flush. */
  put(rec: LocalSet): void {
    this.removed.delete(rec.id);
    this.dirty.set(rec.id, rec);
  }

  /** Forgets a set (it left the dataset, withdraw.ts); its rows go with the next flush. */
  remove(id: number): void {
    this.dirty.delete(id);
    this.removed.add(id);
  }

  /**
   * How many flushes wrote records, ever (kept in the database): changes whenever a record is
   * written, so it tells whether records changed since a point in time (dataset-index.ts).
   */
  get changeCount(): number {
    return this.changes;
  }

  /** Writes every changed record in one transaction. */
  flush(): void {
    this.flushSome(Infinity);
  }

  /**
   * Writes every changed record, then makes every commit so far durable: one transaction under
   * synchronous=FULL, whose fsync of the WAL covers the commits before it (state-db.ts): the records
   * and the head committed with them (engine-store.ts) at once. The transaction always writes
   * (meta 'saves'), since an empty one would sync nothing.
   */
  flushDurably(): void {
    this.flush();
    if (!this.undurable) return;
    this.db.pragma('synchronous = FULL');
    try {
      this.db.transaction(() => setMeta(this.db, 'saves', metaValue(this.db, 'saves') + 1)).immediate();
    } finally {
      this.db.pragma('synchronous = NORMAL');
    }
    this.undurable = false;
  }

  /**
   * Writes every changed record, FLUSH_CHUNK sets per transaction with an event-loop turn between
   * transactions: the background saves of a first sync (RunState.saveSoon) carry hundreds of
   * sets, whose one transaction held the app's window for a long stretch. Each record is written
   * whole, in one transaction; records put meanwhile are written by a later chunk. The head goes
   * into each commit with the records (engine-store.ts), so it never vouches for a record not
   * yet committed.
   */
  async flushInTurns(): Promise<void> {
    while (this.dirty.size > 0 || this.removed.size > 0 || this.results.dirty || this.hooksDirty()) {
      this.flushSome(FLUSH_CHUNK);
      if (this.dirty.size > 0) await nextTurn();
    }
  }

  /** Writes the removals and up to `max` changed records (the oldest puts first) in one transaction. */
  private flushSome(max: number): void {
    const recordsChanged = this.dirty.size > 0 || this.removed.size > 0;
    if (!recordsChanged && !this.results.dirty && !this.hooksDirty()) return;
    const records: LocalSet[] = [];
    for (const rec of this.dirty.values()) {
      if (records.length >= max) break;
      records.push(rec);
    }
    this.db
      .transaction(() => {
        for (const id of this.removed) this.forget(id);
        for (const rec of records) this.write(rec, this.run, this.mayHaveRows(rec.id));
        this.results.flush();
        for (const hook of this.commitHooks) if (hook.pending()) hook.write(this.db);
        // The change counter marks record writes only: the dataset index is current while it holds.
        if (recordsChanged) setMeta(this.db, 'changes', this.changes + 1);
      })
      .immediate();
    if (this.writtenSinceEmpty !== null) for (const rec of records) this.writtenSinceEmpty.add(rec.id);
    if (recordsChanged) this.changes++;
    this.undurable = true;
    for (const rec of records) this.dirty.delete(rec.id);
    this.removed.clear();
  }

  /**
   * Every record in set-id order, a page of sets per query: memory stays flat in the set count,
   * and no statement stays open between pages, so the caller may put() while it iterates (the
   * next page flushes first).
   */
  *all(): Generator<LocalSet> {
    let after = Number.MIN_SAFE_INTEGER;
    for (;;) {
      this.flush();
      const rows = this.stmt.page.all(after, PAGE);
      if (rows.length === 0) return;
      const first = rows[0]!.id;
      const last = rows[rows.length - 1]!.id;
      const files = this.stmt.pageFiles.all(first, last);
      const results = this.results.page(first, last);
      let i = 0;
      for (const row of rows) {
        const own: FileTuple[] = [];
        while (i < files.length && files[i]![0] < row.id) i++;
        while (i < files.length && files[i]![0] === row.id) own.push(files[i++]!);
        const rec = this.dirty.get(row.id) ?? recordOfRow(row, own);
        results.attach(rec);
        yield rec;
      }
      after = last;
    }
  }

  /**
   * What the disk check compares with each recorded file (its key, size and stamp), in key
   * order, a page at a time: only those columns are read, as rows, where all() reads and parses
   * every column of every record (the no-op's largest cost after the lstat per file: 0.8 s of
   * 2.4 s at 20,000 files). Between pages the caller may put().
   */
  *recordedFiles(): Generator<RecordedFile> {
    let afterSet = Number.MIN_SAFE_INTEGER;
    let afterPath = '';
    for (;;) {
      this.flush();
      const rows = this.stmt.presence.all(afterSet, afterPath, FILE_PAGE);
      for (const [, key, size, mtimeMs, stamp] of rows) yield { key, size, stamp: stamp ?? String(mtimeMs) };
      if (rows.length < FILE_PAGE) return;
      [afterSet, afterPath] = rows[rows.length - 1]!;
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
