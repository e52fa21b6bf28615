// The head state's row in state.db (table `head`): one JSON document, the EngineState, written in
// the same transaction as the records it vouches for (engine-store.ts). It replaced the head file
// `.dataset-sync/state.json`, which a folder's first sync after the upgrade imports
// (published-head.ts); a destination shared across machines still carries a copy of it.
import type Database from 'better-sqlite3';
import { parseHead, type EngineState } from './head';

const KEY = 'head';

/** The head as last committed; null when none was ever written (a new folder, or one not synced since the upgrade). */
export function readHeadRow(db: Database.Database): EngineState | null {
  const text = db.prepare<[string], string>('SELECT value FROM head WHERE key = ?').pluck().get(KEY);
  return text === undefined ? null : parseHead(text).state;
}

/** Writes the head (inside the caller's transaction). */
export function writeHeadRow(db: Database.Database, head: EngineState): void {
  db.prepare('INSERT INTO head (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(KEY, JSON.stringify(head));
}
