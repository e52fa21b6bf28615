// The head state of a dataset folder as tests read and edit it: a row of state.db since the head
// moved out of .dataset-sync/state.json (src-main/sync/state/head-table.ts). Editing it by hand
// stands for a damaged or hand-edited state, as editing state.json did.
import Database from 'better-sqlite3';
import path from 'node:path';
import type { EngineState } from '../../src-main/sync/state/head';
import { readHeadRow, writeHeadRow } from '../../src-main/sync/state/head-table';
import { DB_NAME } from '../../src-main/sync/state/state-db';

const dbOf = (dest: string) => path.join(dest, '.dataset-sync', DB_NAME);

/** The head committed in DEST's state (throws when there is none). */
export function readHead(dest: string): EngineState & Record<string, unknown> {
  const db = new Database(dbOf(dest), { readonly: true, fileMustExist: true });
  try {
    const head = readHeadRow(db);
    if (!head) throw new Error(`no head in ${dbOf(dest)}`);
    return head as EngineState & Record<string, unknown>;
  } finally {
    db.close();
  }
}

/** Rewrites DEST's head as `edit` leaves it (any shape: a test may write what the engine never would). */
export function editHead(dest: string, edit: (head: EngineState & Record<string, unknown>) => void): void {
  const db = new Database(dbOf(dest), { fileMustExist: true });
  try {
    const head = readHeadRow(db) as (EngineState & Record<string, unknown>) | null;
    if (!head) throw new Error(`no head in ${dbOf(dest)}`);
    edit(head);
    writeHeadRow(db, head);
  } finally {
    db.close();
  }
}
