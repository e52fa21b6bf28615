// The engine's record of a set and its verified files (what set-store.ts keeps), and how a
// record maps to the rows of state.db's tables `sets` and `files`. Apart from the store so that
// the legacy import (legacy-logs.ts) writes rows without importing the store that opens it.
import type Database from 'better-sqlite3';
import { inOrder } from '../in-order';
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
  /**
   * What the stages learnt of this version of the file, by stage name (stage_results: JSON only
   * that stage reads): attached by SetStore.all() for the dataset files' writers, absent elsewhere.
   */
  results?: Readonly<Record<string, string>>;
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
  /** The quota group's label for people (the Sets tab's filter); absent in records written before it was kept. */
  label?: string;
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

/**
 * A set's files as [path, entry] by slot: the order of every dataset file's rows (manifest.csv,
 * SHA256SUMS, media.csv, croissant.json). Records read from the state come in path order, which
 * is slot order for the service's names, so the sort is nearly always skipped (in-order.ts).
 */
export function filesBySlot(set: LocalSet): ReadonlyArray<[string, FileEntry]> {
  return inOrder(Object.entries(set.files), bySlot);
}

function bySlot([, a]: [string, FileEntry], [, b]: [string, FileEntry]): number {
  return a.slotIndex - b.slotIndex;
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

/** Records in set-id order, read at once (SetStore.all) or with event-loop turns between them (loop-turns.ts paced). */
export type LocalSets = Iterable<LocalSet> | AsyncIterable<LocalSet>;

/** What `each` makes of every set of `sets`, in order: one writer's rows over records read at once or paced. */
export async function* perSet<T>(sets: LocalSets, each: (set: LocalSet) => Iterable<T>): AsyncGenerator<T> {
  for await (const set of sets) yield* each(set);
}

export function emptyLocalSet(id: number): LocalSet {
  return { id, updatedAt: null, isGold: false, complete: false, files: noFiles() };
}

/**
 * An empty `files` of a record. Its keys are paths no other set shares: on a plain `{}` each new
 * path gives V8 a new hidden class (a transition from the empty object's, kept in old space), and
 * every read of `files[path]` misses its cache; a null-prototype object is a dictionary from the
 * start (issue 21: 100,000 records of 4 files read back by recordOfRow in 0.45-0.56 s this way,
 * against 0.83-1.0 s).
 */
export function noFiles(): Record<string, FileEntry> {
  return Object.create(null) as Record<string, FileEntry>;
}


/**
 * Sets read per query by all(): a page's records and files cost a few hundred kB at most, and a
 * page is read (and parsed) in one synchronous stretch of the event loop, a few ms at 128 sets
 * (512 measured at ~30-130 ms on a busy machine: the app's window froze for that long).
 */
export const PAGE = 128;

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

/**
 * A files row read as an array, in FILE_COLUMNS' order (better-sqlite3's raw()): the store reads
 * every file of a dataset this way at the end of a sync, and an array costs under half of a row
 * object with fifteen named columns (40,000 rows: 100-140 ms against 250-350 ms).
 */
export type FileTuple = [
  set_id: number,
  path: string,
  file_id: number,
  slot_index: number,
  slot_key: string,
  size_bytes: number,
  sha256: string,
  mtime_ms: number,
  stamp: string | null,
  participant_refs: string,
  is_gold: number,
  accepted_at: string | null,
  updated_at: string,
  downloaded_at: string,
  changed_run: number,
];

export function entryOfRow(r: FileTuple): FileEntry {
  const e: FileEntry = {
    setId: r[0],
    fileId: r[2],
    slotIndex: r[3],
    slotKey: r[4],
    sizeBytes: r[5],
    sha256: r[6],
    mtimeMs: r[7],
    participantRefs: r[9],
    isGold: r[10] !== 0,
    acceptedAt: r[11],
    updatedAt: r[12],
    downloadedAt: r[13],
  };
  if (r[8] !== null) e.stamp = r[8];
  return e;
}

export function recordOfRow(r: SetRow, files: FileTuple[]): LocalSet {
  const rec: LocalSet = { id: r.id, updatedAt: r.updated_at, isGold: r.is_gold !== 0, complete: r.complete !== 0, files: noFiles() };
  if (r.left_accepted !== null) rec.leftAccepted = r.left_accepted;
  if (r.participants !== null) rec.participants = JSON.parse(r.participants) as ParticipantEntry[];
  for (const f of files) rec.files[f[1]] = entryOfRow(f);
  return rec;
}

export const SET_COLUMNS = 'id, updated_at, is_gold, complete, left_accepted, first_files_run, participants';
/** The files columns in FileTuple's order (the writer's insert binds them in this order too). */
export const FILE_COLUMNS =
  'set_id, path, file_id, slot_index, slot_key, size_bytes, sha256, mtime_ms, stamp, participant_refs, is_gold, accepted_at, updated_at, downloaded_at, changed_run';

/**
 * Writes records (inside the caller's transaction): a set's file rows are replaced whole; a
 * file keeps the run that verified it while its sha256 and download time stay the same.
 * `mayHaveRows` false: the caller knows the set has no row yet, so nothing is read or deleted first.
 */
export function recordWriter(db: Database.Database): (rec: LocalSet, run: number, mayHaveRows?: boolean) => void {
  const previous = db.prepare<[number], { path: string; sha256: string; downloaded_at: string; changed_run: number }>(
    'SELECT path, sha256, downloaded_at, changed_run FROM files WHERE set_id = ?',
  );
  const firstFilesRun = db.prepare<[number], number | null>('SELECT first_files_run FROM sets WHERE id = ?').pluck();
  const deleteFiles = db.prepare('DELETE FROM files WHERE set_id = ?');
  // Positional parameters: no object of sixteen named fields built and read back per file (10,000 sets x 4
  // files: 573-670 ms to write every record, against 730-835 ms binding by name).
  const insertFile = db.prepare<unknown[]>(`INSERT INTO files (${FILE_COLUMNS}) VALUES (${FILE_COLUMNS.split(', ').map(() => '?').join(', ')})`);
  const upsertSet = db.prepare<unknown[]>(
    `INSERT INTO sets (${SET_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, is_gold = excluded.is_gold, complete = excluded.complete,
       left_accepted = excluded.left_accepted, first_files_run = excluded.first_files_run,
       participants = excluded.participants`,
  );
  return (rec, run, mayHaveRows = true) => {
    const before = new Map(mayHaveRows ? previous.all(rec.id).map((p) => [p.path, p]) : undefined);
    const firstRun = mayHaveRows ? firstFilesRun.get(rec.id) : undefined;
    const paths = Object.keys(rec.files);
    if (mayHaveRows) deleteFiles.run(rec.id);
    for (const rel of paths) {
      const e = rec.files[rel]!;
      const old = before.get(rel);
      const same = old !== undefined && old.sha256 === e.sha256 && old.downloaded_at === e.downloadedAt;
      // In FILE_COLUMNS' order.
      insertFile.run(
        rec.id,
        rel,
        e.fileId,
        e.slotIndex,
        e.slotKey,
        e.sizeBytes,
        e.sha256,
        e.mtimeMs,
        e.stamp ?? null,
        e.participantRefs,
        e.isGold ? 1 : 0,
        e.acceptedAt,
        e.updatedAt,
        e.downloadedAt,
        same ? old.changed_run : run,
      );
    }
    // In SET_COLUMNS' order.
    upsertSet.run(
      rec.id,
      rec.updatedAt,
      rec.isGold ? 1 : 0,
      rec.complete ? 1 : 0,
      rec.leftAccepted ?? null,
      firstRun ?? (paths.length > 0 ? run : null),
      rec.participants ? JSON.stringify(rec.participants) : null,
    );
  };
}

