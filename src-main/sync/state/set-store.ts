// What the engine knows of each local set — its status and its verified files with the size and
// stamp (a folder's mtime) seen at verification — kept in the tables `sets` and `files` of the
// state database (state-db.ts: state.db in Destination.stateDir) and read one set at a time.
// Memory holds only the records changed since the last flush, so it stays flat in the set count;
// a flush writes them in one transaction, so a crash leaves every record as of one flush or the
// next, never a record cut in half.
import type Database from 'better-sqlite3';
import type { MediaEntry } from '../media/media-check';
import { metaValue, openStateDb, setMeta } from './state-db';

export interface FileEntry {
  setId: number;
  fileId: number;
  slotIndex: number;
  slotKey: string;
  sizeBytes: number;
  sha256: string;
  /** A folder's stamp (ObjectInfo.stamp: the mtime in ms), kept as a number as before the seam. */
  mtimeMs: number;
  /** The stamp when it is not a number (a bucket's ETag); then mtimeMs is 0. */
  stamp?: string;
  participantRefs: string;
  isGold: boolean;
  acceptedAt: string | null;
  updatedAt: string;
  downloadedAt: string;
  /** The media check of this version of the file (media/media-stage.ts); absent until probed. */
  media?: MediaEntry;
}

/**
 * A participant of the set as participants.csv lists it (docs/contracts.md §1), kept with the set's
 * record when the set is planned, so the file is written at the end of a sync without reading
 * any set.json back. A field the collection did not ask for is absent.
 */
export interface ParticipantEntry {
  role: string;
  ref: string;
  age?: number;
  gender?: string;
  ethnicity?: string;
  skinTone?: string | null;
  group: string;
  value: string;
  /** False for a null consent (none on record). */
  signed: boolean;
}

export interface LocalSet {
  id: number;
  /** The set's updated_at when it was last complete or failed; null for a set only known by its files. */
  updatedAt: string | null;
  isGold: boolean;
  complete: boolean;
  /** Set when the set was last seen with a status other than accepted. */
  leftAccepted?: string;
  /** Verified files, keyed by path relative to DEST ("sets/12/set_12_slot_01.mp4"). */
  files: Record<string, FileEntry>;
  /** The set's participants in role order; absent in a record written before they were kept (participants-file.ts). */
  participants?: ParticipantEntry[];
}

/** The stamp the destination gave when the file was verified (ObjectInfo.stamp). */
export function entryStamp(e: Pick<FileEntry, 'mtimeMs' | 'stamp'>): string {
  return e.stamp ?? String(e.mtimeMs);
}

/** The entry fields that record `stamp`: a number's decimal string (a folder's mtime) stays the number mtimeMs, so records read as before. */
export function stampFields(stamp: string): Pick<FileEntry, 'mtimeMs' | 'stamp'> {
  const n = Number(stamp);
  return stamp !== '' && String(n) === stamp ? { mtimeMs: n } : { mtimeMs: 0, stamp };
}

export function emptyLocalSet(id: number): LocalSet {
  return { id, updatedAt: null, isGold: false, complete: false, files: {} };
}


/** Sets read per query by all(): a page's records and files cost a few hundred kB at most. */
const PAGE = 512;

export interface FileRow {
  set_id: number;
  path: string;
  file_id: number;
  slot_index: number;
  slot_key: string;
  size_bytes: number;
  sha256: string;
  mtime_ms: number;
  stamp: string | null;
  participant_refs: string;
  is_gold: number;
  accepted_at: string | null;
  updated_at: string;
  downloaded_at: string;
  changed_run: number;
  media: string | null;
}

export interface SetRow {
  id: number;
  updated_at: string | null;
  is_gold: number;
  complete: number;
  left_accepted: string | null;
  first_files_run: number | null;
  participants: string | null;
}

export function entryOfRow(r: FileRow): FileEntry {
  const e: FileEntry = {
    setId: r.set_id,
    fileId: r.file_id,
    slotIndex: r.slot_index,
    slotKey: r.slot_key,
    sizeBytes: r.size_bytes,
    sha256: r.sha256,
    mtimeMs: r.mtime_ms,
    participantRefs: r.participant_refs,
    isGold: r.is_gold !== 0,
    acceptedAt: r.accepted_at,
    updatedAt: r.updated_at,
    downloadedAt: r.downloaded_at,
  };
  if (r.stamp !== null) e.stamp = r.stamp;
  if (r.media !== null) e.media = JSON.parse(r.media) as MediaEntry;
  return e;
}

function recordOfRow(r: SetRow, files: FileRow[]): LocalSet {
  const rec: LocalSet = { id: r.id, updatedAt: r.updated_at, isGold: r.is_gold !== 0, complete: r.complete !== 0, files: {} };
  if (r.left_accepted !== null) rec.leftAccepted = r.left_accepted;
  if (r.participants !== null) rec.participants = JSON.parse(r.participants) as ParticipantEntry[];
  for (const f of files) rec.files[f.path] = entryOfRow(f);
  return rec;
}

const SET_COLUMNS = 'id, updated_at, is_gold, complete, left_accepted, first_files_run, participants';
const FILE_COLUMNS =
  'set_id, path, file_id, slot_index, slot_key, size_bytes, sha256, mtime_ms, stamp, participant_refs, is_gold, accepted_at, updated_at, downloaded_at, changed_run, media';

/**
 * Writes records (inside the caller's transaction): a set's file rows are replaced whole; a
 * file keeps the run that verified it while its sha256 and download time stay the same.
 */
export function recordWriter(db: Database.Database): (rec: LocalSet, run: number) => void {
  const previous = db.prepare<[number], { path: string; sha256: string; downloaded_at: string; changed_run: number }>(
    'SELECT path, sha256, downloaded_at, changed_run FROM files WHERE set_id = ?',
  );
  const firstFilesRun = db.prepare<[number], number | null>('SELECT first_files_run FROM sets WHERE id = ?').pluck();
  const deleteFiles = db.prepare('DELETE FROM files WHERE set_id = ?');
  const insertFile = db.prepare(`INSERT INTO files (${FILE_COLUMNS}) VALUES (${FILE_COLUMNS.split(', ').map((c) => `@${c}`).join(', ')})`);
  const upsertSet = db.prepare(
    `INSERT INTO sets (${SET_COLUMNS}) VALUES (@id, @updated_at, @is_gold, @complete, @left_accepted, @first_files_run, @participants)
     ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, is_gold = excluded.is_gold, complete = excluded.complete,
       left_accepted = excluded.left_accepted, first_files_run = excluded.first_files_run,
       participants = excluded.participants`,
  );
  return (rec, run) => {
    const before = new Map(previous.all(rec.id).map((p) => [p.path, p]));
    const firstRun = firstFilesRun.get(rec.id);
    const paths = Object.keys(rec.files);
    deleteFiles.run(rec.id);
    for (const rel of paths) {
      const e = rec.files[rel]!;
      const old = before.get(rel);
      const same = old !== undefined && old.sha256 === e.sha256 && old.downloaded_at === e.downloadedAt;
      insertFile.run({
        set_id: rec.id,
        path: rel,
        file_id: e.fileId,
        slot_index: e.slotIndex,
        slot_key: e.slotKey,
        size_bytes: e.sizeBytes,
        sha256: e.sha256,
        mtime_ms: e.mtimeMs,
        stamp: e.stamp ?? null,
        participant_refs: e.participantRefs,
        is_gold: e.isGold ? 1 : 0,
        accepted_at: e.acceptedAt,
        updated_at: e.updatedAt,
        downloaded_at: e.downloadedAt,
        changed_run: same ? old.changed_run : run,
        media: e.media ? JSON.stringify(e.media) : null,
      });
    }
    upsertSet.run({
      id: rec.id,
      updated_at: rec.updatedAt,
      is_gold: rec.isGold ? 1 : 0,
      complete: rec.complete ? 1 : 0,
      left_accepted: rec.leftAccepted ?? null,
      first_files_run: firstRun ?? (paths.length > 0 ? run : null),
      participants: rec.participants ? JSON.stringify(rec.participants) : null,
    });
  };
}

export class SetStore {
  /** Records changed since the last flush: read back from here, written by flush(). */
  private readonly dirty = new Map<number, LocalSet>();
  /** Sets forgotten since the last flush (remove): deleted by flush(). */
  private readonly removed = new Set<number>();
  private changes: number;
  private readonly stmt;
  private readonly write: (rec: LocalSet, run: number) => void;
  private readonly forget: (id: number) => void;

  private constructor(
    private readonly db: Database.Database,
    /** This run's number (meta 'run'): files it verifies are marked with it (queries.ts: what the last run changed). */
    readonly run: number,
  ) {
    this.changes = metaValue(db, 'changes');
    this.write = recordWriter(db);
    const deleteFiles = db.prepare('DELETE FROM files WHERE set_id = ?');
    const deleteSet = db.prepare('DELETE FROM sets WHERE id = ?');
    this.forget = (id) => {
      deleteFiles.run(id);
      deleteSet.run(id);
    };
    this.stmt = {
      set: db.prepare<[number], SetRow>(`SELECT ${SET_COLUMNS} FROM sets WHERE id = ?`),
      files: db.prepare<[number], FileRow>(`SELECT ${FILE_COLUMNS} FROM files WHERE set_id = ? ORDER BY path`),
      ids: db.prepare<[], number>('SELECT id FROM sets ORDER BY id').pluck(),
      any: db.prepare<[], number>('SELECT id FROM sets LIMIT 1').pluck(),
      page: db.prepare<[number, number], SetRow>(`SELECT ${SET_COLUMNS} FROM sets WHERE id > ? ORDER BY id LIMIT ?`),
      pageFiles: db.prepare<[number, number], FileRow>(`SELECT ${FILE_COLUMNS} FROM files WHERE set_id BETWEEN ? AND ? ORDER BY set_id, path`),
    };
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

  /** Whether any set is known (one indexed row read, however many there are). */
  hasSets(): boolean {
    return this.dirty.size > 0 || this.stmt.any.get() !== undefined;
  }

  /** Ids of every known set, ascending. */
  ids(): number[] {
    this.flush();
    return this.stmt.ids.all();
  }

  /** The set's record; undefined when unknown. */
  get(id: number): LocalSet | undefined {
    if (this.removed.has(id)) return undefined;
    const pending = this.dirty.get(id);
    if (pending) return pending;
    const row = this.stmt.set.get(id);
    return row ? recordOfRow(row, this.stmt.files.all(id)) : undefined;
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
    if (this.dirty.size === 0 && this.removed.size === 0) return;
    this.db
      .transaction((records: LocalSet[]) => {
        for (const id of this.removed) this.forget(id);
        for (const rec of records) this.write(rec, this.run);
        setMeta(this.db, 'changes', this.changes + 1);
      })
      .immediate([...this.dirty.values()]);
    this.changes++;
    this.dirty.clear();
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
      let i = 0;
      for (const row of rows) {
        const own: FileRow[] = [];
        while (i < files.length && files[i]!.set_id < row.id) i++;
        while (i < files.length && files[i]!.set_id === row.id) own.push(files[i++]!);
        yield this.dirty.get(row.id) ?? recordOfRow(row, own);
      }
      after = last;
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
