// Past syncs of a destination, one JSON summary per line in history.jsonl of its state folder
// (Destination.stateDir: DEST/.dataset-sync for a folder).
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import type { SyncSummary } from '../../../src-shared/sync-events';
import { stateDir } from '../layout';

const MAX_ENTRIES = 500;

function historyPath(stateFolder: string): string {
  return path.join(stateFolder, 'history.jsonl');
}

// O_NOFOLLOW: a history.jsonl planted as a symlink is replaced, never appended through.
const APPEND_NOFOLLOW = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/** Appends to history.jsonl in `stateFolder` (Destination.stateDir). */
export async function appendHistory(stateFolder: string, summary: SyncSummary): Promise<void> {
  const line = JSON.stringify(summary) + '\n';
  const file = historyPath(stateFolder);
  try {
    await fs.appendFile(file, line, { flag: APPEND_NOFOLLOW });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ELOOP') throw e;
    await fs.rm(file, { force: true });
    await fs.appendFile(file, line, { flag: APPEND_NOFOLLOW });
  }
}

/** Past syncs of the dataset folder `dest`, newest first; empty when there are none. */
export async function readHistory(dest: string): Promise<SyncSummary[]> {
  return readHistoryIn(stateDir(dest));
}

/** Past syncs recorded in `stateFolder` (Destination.stateDir), newest first. */
export async function readHistoryIn(stateFolder: string): Promise<SyncSummary[]> {
  let text: string;
  try {
    text = await fs.readFile(historyPath(stateFolder), 'utf8');
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
