// The head state a destination carries itself, `.dataset-sync/state.json`: a destination shared
// across machines (a bucket) publishes a copy of its head there at every save, so another machine
// knows whom the dataset belongs to and (by the generation) whether its own records match; and a
// folder synced by a version before state.db held the head has its head there, imported once.
// Also the peek at the head before the lock (run.ts asks for page 1 with its watermark first).
import Database from 'better-sqlite3';
import path from 'node:path';
import type { Destination } from '../destination/destination';
import { parseHead, type EngineState, type LegacyState } from './head';
import { readHeadRow } from './head-table';
import { readLocalGeneration } from './local-generation';
import { DB_NAME, refuseLinks } from './state-db';

/** The head's key in the destination. */
export const STATE_KEY = '.dataset-sync/state.json';
/** A folder's state.json once imported: kept beside, read by nothing (a user downgrading finds it). */
export const MIGRATED_STATE_KEY = '.dataset-sync/state.json.migrated';

/** The head the destination carries (a bucket's copy, or a folder's from before the upgrade); null when none. */
export async function readPublishedHead(dest: Destination): Promise<{ state: EngineState; legacy?: LegacyState } | null> {
  const text = await dest.readText(STATE_KEY);
  return text === null ? null : parseHead(text);
}

/** Publishes the head (a destination shared across machines, at every save). */
export async function publishHead(dest: Destination, head: EngineState): Promise<void> {
  await dest.writeAtomic(STATE_KEY, JSON.stringify(head, null, 2) + '\n');
}

/**
 * The head committed in the state database of `stateDir`; null when there is none. Opened for
 * writing but only read: a read-only connection to a WAL database leaves its -wal and -shm files
 * behind, where a writer's close removes them, so a sync refused before its lock touches nothing.
 */
export function peekHeadRow(stateDir: string): EngineState | null {
  let db: Database.Database | undefined;
  try {
    refuseLinks(stateDir);
    db = new Database(path.join(stateDir, DB_NAME), { fileMustExist: true });
    db.pragma('busy_timeout = 10000');
    return readHeadRow(db);
  } catch {
    return null; // no database yet, one written before the head moved in, or one that is damaged: the run says which
  } finally {
    db?.close();
  }
}

/**
 * The head as it is now, read without the lock (another sync may be writing it): a guess, checked
 * once the lock is held. A shared destination's published copy; a folder's row in state.db, read
 * synchronously (the first asynchronous read of a process costs ~10 ms of thread-pool start-up,
 * a round trip's share the guess is there to save), else its state.json from before the upgrade
 * (Destination.peekText). Null when there is none or it cannot be read.
 */
export function peekHead(dest: Destination): EngineState | null | Promise<EngineState | null> {
  if (dest.sharedAcrossMachines) return readPublishedHead(dest).then((h) => h?.state ?? null, () => null);
  const row = peekHeadRow(dest.stateDir);
  if (row) return row;
  if (dest.peekText) {
    try {
      const text = dest.peekText(STATE_KEY);
      return text === null ? null : parseHead(text).state;
    } catch {
      return null;
    }
  }
  return readPublishedHead(dest).then((h) => h?.state ?? null, () => null);
}

/**
 * Whether this machine's records match a peeked head (run-state.ts decides it again under the
 * lock): always for a destination of one machine; for a shared one, when the generation this
 * machine last committed is the head's.
 */
export function peekRecordsMatch(dest: Destination, head: Pick<EngineState, 'watermark' | 'generation'>): boolean {
  if (!dest.sharedAcrossMachines || head.watermark === null) return true;
  const local = peekHeadRow(dest.stateDir)?.generation ?? readLocalGeneration(dest.stateDir);
  return local !== null && local === (head.generation ?? null);
}
