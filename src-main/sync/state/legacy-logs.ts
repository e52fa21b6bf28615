// The JSON-lines state that state.db replaced (state-migration.ts lists every earlier layout):
// sets.jsonl (one JSON line per set record, the newest line of a set winning, a torn last line
// dropped) and history.jsonl (one summary per line). They are imported in one transaction when
// the database is first opened, and only then renamed to *.migrated: a crash before the commit
// leaves the old files authoritative (imported again next time), a crash after it leaves the
// database complete (the files are only renamed then; the import is not repeated).
import type Database from 'better-sqlite3';
import { closeSync, constants, lstatSync, openSync, readSync, renameSync } from 'node:fs';
import path from 'node:path';
import { isPositiveId } from '../names';
import { metaValue, setMeta } from './meta';
import { recordWriter, type LocalSet } from './records';

export const LEGACY_SET_LOG = 'sets.jsonl';
export const LEGACY_HISTORY = 'history.jsonl';
export const MIGRATED_SUFFIX = '.migrated';

function isRegularFile(file: string): boolean {
  try {
    return lstatSync(file).isFile(); // a planted symlink is neither read nor renamed
  } catch {
    return false;
  }
}

/** The complete lines of `file`, a chunk at a time (a log of hundreds of MB is never held whole); a torn last line is dropped. */
export function* legacyLines(file: string): Generator<string> {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    let buf = Buffer.alloc(1024 * 1024);
    let filled = 0;
    for (;;) {
      if (filled === buf.length) {
        const bigger = Buffer.alloc(buf.length * 2); // one line longer than the buffer
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
      const n = readSync(fd, buf, filled, buf.length - filled, null);
      if (n === 0) return;
      filled += n;
      let start = 0;
      for (let nl = buf.indexOf(0x0a, start); nl !== -1 && nl < filled; nl = buf.indexOf(0x0a, start)) {
        yield buf.toString('utf8', start, nl);
        start = nl + 1;
      }
      buf.copy(buf, 0, start, filled);
      filled -= start;
    }
  } finally {
    closeSync(fd);
  }
}

function parseRecord(line: string): LocalSet | null {
  try {
    const rec = JSON.parse(line) as LocalSet;
    return rec && isPositiveId(rec.id) && typeof rec.files === 'object' && rec.files !== null ? rec : null;
  } catch {
    return null; // unreadable: its files are adopted by hash on the next sync, as before
  }
}

/**
 * Imports sets.jsonl and history.jsonl of `stateDir` into `db` (once: meta 'imported'), then
 * renames them to *.migrated. Imported files count as verified by no run (run 0): the first
 * sync after the upgrade does not report them as its changes.
 */
export function importLegacyLogs(db: Database.Database, stateDir: string): void {
  const setLog = path.join(stateDir, LEGACY_SET_LOG);
  const history = path.join(stateDir, LEGACY_HISTORY);
  const present = [setLog, history].filter(isRegularFile);
  if (present.length === 0) return;
  db.transaction(() => {
    if (metaValue(db, 'imported') !== 0) return; // committed before a crash kept the renames from happening
    if (present.includes(setLog)) {
      const write = recordWriter(db);
      // Line by line, the newest line of a set replacing the older ones as it did in the log.
      for (const line of legacyLines(setLog)) {
        const rec = parseRecord(line);
        if (rec) write(rec, 0);
      }
      setMeta(db, 'changes', metaValue(db, 'changes') + 1);
    }
    if (present.includes(history)) {
      const insert = db.prepare('INSERT INTO history (summary) VALUES (?)');
      for (const line of legacyLines(history)) {
        if (!line.trim()) continue;
        try {
          insert.run(JSON.stringify(JSON.parse(line)));
        } catch {
          // a line cut by a crash was skipped before too
        }
      }
    }
    setMeta(db, 'imported', 1);
  }).immediate();
  for (const file of present) {
    try {
      renameSync(file, file + MIGRATED_SUFFIX);
    } catch (e) {
      // Another opener (the app's queries beside a sync) renamed it first.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}
