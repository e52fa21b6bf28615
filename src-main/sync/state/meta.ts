// The `meta` table of state.db: small named counters (schema version, run number, change count).
import type Database from 'better-sqlite3';

export function metaValue(db: Database.Database, key: string): number {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: number } | undefined;
  return row?.value ?? 0;
}

export function setMeta(db: Database.Database, key: string, value: number): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
}
