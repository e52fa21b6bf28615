// The engine's own records of a destination — set records with their verified files, past
// syncs — in one SQLite database, state.db in Destination.stateDir (DEST/.dataset-sync for a
// folder, the local state folder of a bucket). SQLite (better-sqlite3, synchronous and
// in-process) replaces sets.jsonl and history.jsonl: a record is read by its key instead of a
// log scanned whole on every sync, a batch of changes is one transaction, and the app can ask
// questions (queries.ts) without knowing a file format.
//
// WAL journal: the app reads while a sync writes, and a crash at any point leaves the last
// committed transaction. synchronous=NORMAL: a commit is not synced on its own (a process crash
// loses nothing; a power cut may drop the last commits, never half of one). The head (whose
// watermark vouches for the records) is committed with them, and a save (RunState) commits under
// FULL (SetStore.flushDurably): that fsync of the WAL covers every commit before it, so a power cut
// never keeps a watermark while losing the records behind it (the sets it covers would be missing
// from manifest.csv until a --full sync). One fsync per save, not one per commit: a first sync
// commits every 64 sets (flushInTurns), and each fsync holds the engine's thread while the kernel
// writes back the files just downloaded (a million files: ~4,350 fsyncs, 3.8 s, up to 57 ms each).
//
// On first open an existing sets.jsonl / history.jsonl is imported (legacy-logs.ts).
import Database from 'better-sqlite3';
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { importLegacyLogs } from './legacy-logs';
import { metaValue, setMeta } from './meta';

export const DB_NAME = 'state.db';
/**
 * 2: a stage's results (the media check's) moved from files.media to the generic table
 * stage_results, which the store keeps without knowing any stage's types (stage-results.ts), and
 * the head state moved from state.json into the table head (head-table.ts).
 */
const SCHEMA_VERSION = 2;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sets (
  id INTEGER PRIMARY KEY,
  updated_at TEXT,
  is_gold INTEGER NOT NULL,
  complete INTEGER NOT NULL,
  left_accepted TEXT,
  -- The set's participants as participants.csv lists them (JSON array of ParticipantEntry); null: not kept yet.
  participants TEXT,
  -- The run (meta 'run') in which the set first had a verified file: tells new sets from edited ones.
  first_files_run INTEGER
);
-- Narrow, so that count(*) scans it (2 MB at 250,000 sets) instead of the rows, which the
-- participants make 100 MB: that one count held the engine's thread for 0.6-2.7 s at the end of
-- a first sync of a million files (disk-check.ts recordedFilesOf). Built once on an older
-- database (0.18 s at 250,000 sets); older versions of the engine keep it up to date unknowingly.
CREATE INDEX IF NOT EXISTS sets_complete ON sets (complete);
CREATE TABLE IF NOT EXISTS files (
  set_id INTEGER NOT NULL,
  path TEXT NOT NULL,
  file_id INTEGER NOT NULL,
  slot_index INTEGER NOT NULL,
  slot_key TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  mtime_ms REAL NOT NULL,
  stamp TEXT,
  participant_refs TEXT NOT NULL,
  is_gold INTEGER NOT NULL,
  accepted_at TEXT,
  updated_at TEXT NOT NULL,
  downloaded_at TEXT NOT NULL,
  -- The run that verified this content (new file, or a new sha256 / download).
  changed_run INTEGER NOT NULL,
  PRIMARY KEY (set_id, path)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS files_changed_run ON files (changed_run);
CREATE TABLE IF NOT EXISTS history (seq INTEGER PRIMARY KEY, summary TEXT NOT NULL);
-- The head state (head-table.ts): watermark, binding, subset, pending sets, the dataset files' fingerprints.
CREATE TABLE IF NOT EXISTS head (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
-- The stages (stages/) by number: a stage's name is stored once.
CREATE TABLE IF NOT EXISTS stages (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
-- What a stage learnt of one version of a file (its set, its id in the listing, the first 16 hex
-- digits of its sha256): opaque JSON only that stage reads (stage-results.ts). A row of another
-- version than the file's is stale, never trusted; a file without a row of its version owes the stage.
-- Keyed set first: the end of a sync reads a page of sets' results (a range of set ids), a set
-- that leaves deletes its own; with the stage first either was a scan of every row (at 100,000
-- sets, 15 s more at the end of a first sync).
CREATE TABLE IF NOT EXISTS stage_results (
  set_id INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  stage INTEGER NOT NULL,
  version TEXT NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (set_id, file_id, stage)
) WITHOUT ROWID;
`;

/**
 * Schema 1 kept the media check's result in files.media (a MediaEntry's JSON): moved to
 * stage_results as the stage 'media', except results that only said no prober ran ('unprobed'),
 * which a file without a row says now. Runs before SCHEMA's CREATE statements touch files.
 */
function migrateFromSchema1(db: Database.Database): void {
  const hasMediaColumn = (db.prepare("SELECT count(*) FROM pragma_table_info('files') WHERE name = 'media'").pluck().get() as number) > 0;
  if (!hasMediaColumn) return;
  db.transaction(() => {
    db.exec("INSERT OR IGNORE INTO stages (name) VALUES ('media')");
    db.exec(`INSERT OR REPLACE INTO stage_results (stage, set_id, file_id, version, json)
             SELECT (SELECT id FROM stages WHERE name = 'media'), set_id, file_id, substr(json_extract(media, '$.sha256'), 1, 16), media FROM files
             WHERE media IS NOT NULL AND json_valid(media) AND json_extract(media, '$.result') <> 'unprobed'
               AND json_extract(media, '$.sha256') = sha256`);
    db.exec('ALTER TABLE files DROP COLUMN media');
    setMeta(db, 'schema', 2);
  }).immediate();
}

/** A state folder entry planted as a symlink is refused: the engine's writes never go through it. */
export function refuseLinks(stateDir: string): void {
  for (const name of [DB_NAME, `${DB_NAME}-wal`, `${DB_NAME}-shm`]) {
    const file = path.join(stateDir, name);
    let isLink = false;
    try {
      isLink = lstatSync(file).isSymbolicLink();
    } catch {
      // absent: created by SQLite
    }
    if (isLink) throw Object.assign(new Error(`ELOOP: ${file} is a symbolic link; the engine state is never written through a link`), { code: 'ELOOP' });
  }
}

export { metaValue, setMeta } from './meta';

/** Opens (creating and migrating) the state database of `stateDir` for writing. */
export function openStateDb(stateDir: string): Database.Database {
  refuseLinks(stateDir);
  const db = new Database(path.join(stateDir, DB_NAME));
  try {
    db.pragma('journal_mode = WAL');
    // Synced at once: the schema, and the import of legacy logs, which are renamed after its commit.
    db.pragma('synchronous = FULL');
    // The app reads (and appends history) beside a running sync: wait for a writer, never fail at once.
    db.pragma('busy_timeout = 10000');
    db.exec(SCHEMA);
    const version = metaValue(db, 'schema');
    if (version > SCHEMA_VERSION) throw new Error(`${path.join(stateDir, DB_NAME)} was written by a newer Dataset Sync (schema ${version}); update this one`);
    if (version === 1) migrateFromSchema1(db);
    if (version === 0) setMeta(db, 'schema', SCHEMA_VERSION);
    importLegacyLogs(db, stateDir);
    db.pragma('synchronous = NORMAL');
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/** Opens an existing state database read-only (the app's questions); null when there is none yet. */
export function openStateDbReadOnly(stateDir: string): Database.Database | null {
  const file = path.join(stateDir, DB_NAME);
  let db: Database.Database;
  try {
    refuseLinks(stateDir);
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 10000');
  } catch {
    return null;
  }
  let schema: number;
  try {
    schema = metaValue(db, 'schema');
  } catch {
    return db; // not a database: the caller's questions fail, and say so, as they would have
  }
  if (schema >= SCHEMA_VERSION) return db;
  // Written by an older version (the app asks before a sync has run): migrated once, by a writer.
  db.close();
  try {
    openStateDb(stateDir).close();
  } catch {
    // not writable here: the questions below fail on what is missing, as for a damaged state
  }
  db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 10000');
  return db;
}
