// Past syncs of a DEST, one JSON summary per line in DEST/.dataset-sync/history.jsonl.
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import type { SyncSummary } from '../../src-shared/sync-events';
import { stateDir } from './layout';

const MAX_ENTRIES = 500;

function historyPath(dest: string): string {
  return path.join(stateDir(dest), 'history.jsonl');
}

// O_NOFOLLOW: a history.jsonl planted as a symlink is replaced, never appended through.
const APPEND_NOFOLLOW = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

export async function appendHistory(dest: string, summary: SyncSummary): Promise<void> {
  const line = JSON.stringify(summary) + '\n';
  try {
    await fs.appendFile(historyPath(dest), line, { flag: APPEND_NOFOLLOW });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ELOOP') throw e;
    await fs.rm(historyPath(dest), { force: true });
    await fs.appendFile(historyPath(dest), line, { flag: APPEND_NOFOLLOW });
  }
}

/** Past syncs of DEST, newest first; empty when there are none. */
export async function readHistory(dest: string): Promise<SyncSummary[]> {
  let text: string;
  try {
    text = await fs.readFile(historyPath(dest), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
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
