// Past syncs of a destination, one JSON summary per row of the table `history` in the state
// database (state-db.ts: state.db in Destination.stateDir, DEST/.dataset-sync for a folder).
// Before the database they were lines of history.jsonl: a folder not yet synced by this version
// is still read from there (the next sync imports it, state-migration.ts).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SyncSummary } from '../../../src-shared/sync-events';
import { stateDir } from '../layout';
import { LEGACY_HISTORY } from './legacy-logs';
import { openStateDb, openStateDbReadOnly } from './state-db';

const MAX_ENTRIES = 500;

/** Records a finished sync in the state database of `stateFolder` (Destination.stateDir). */
export async function appendHistory(stateFolder: string, summary: SyncSummary): Promise<void> {
  const db = openStateDb(stateFolder);
  try {
    db.prepare('INSERT INTO history (summary) VALUES (?)').run(JSON.stringify(summary));
  } finally {
    db.close();
  }
}

/** Past syncs of the dataset folder `dest`, newest first; empty when there are none. */
export async function readHistory(dest: string): Promise<SyncSummary[]> {
  return readHistoryIn(stateDir(dest));
}

/** Past syncs recorded in `stateFolder` (Destination.stateDir), newest first. */
export async function readHistoryIn(stateFolder: string): Promise<SyncSummary[]> {
  // history.jsonl stays authoritative until the import commits and renames it.
  const legacy = await readLegacyHistory(stateFolder);
  if (legacy) return legacy;
  const db = openStateDbReadOnly(stateFolder);
  if (!db) return [];
  try {
    const rows = db.prepare<[number], string>('SELECT summary FROM history ORDER BY seq DESC LIMIT ?').pluck().all(MAX_ENTRIES);
    const out: SyncSummary[] = [];
    for (const row of rows) {
      try {
        out.push(JSON.parse(row) as SyncSummary);
      } catch {
        // written by us as JSON: never expected, and one bad row hides nothing else
      }
    }
    return out;
  } catch (e) {
    // A database without the table yet (opened by a sync that has not finished creating it).
    if (/no such table/.test((e as Error).message)) return [];
    throw e;
  } finally {
    db.close();
  }
}

/** history.jsonl not yet imported, newest first; null when there is none. */
async function readLegacyHistory(stateFolder: string): Promise<SyncSummary[] | null> {
  const file = path.join(stateFolder, LEGACY_HISTORY);
  let text: string;
  try {
    // A history.jsonl planted as a link is not the engine's: never read through it.
    if (!(await fs.lstat(file)).isFile()) return null;
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  const out: SyncSummary[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as SyncSummary);
    } catch {
      // A line cut by a crash is skipped; the others stay readable.
    }
  }
  return out.reverse().slice(0, MAX_ENTRIES);
}
