// What the window shows about a collection's dataset on disk: files and bytes (from
// manifest.csv, which the engine writes atomically, so it is read safely during a sync too),
// free space, the consents folder, the last verify and what the last sync changed per set.
// The app's own notes (last verify, last changes) live in DEST/.dataset-sync/app-notes.json:
// they describe that folder, so they move and vanish with it.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { DatasetCard, DatasetChanges, DatasetFileRow } from '../../src-shared/ipc-contract';
import type { SyncSummary } from '../../src-shared/sync-events';
import { parseManifest } from '../sync/dataset';
import { defaultConsentsDir, stateDir } from '../sync/layout';

/** The Files table after a restart lists at most this many of the last run's files. */
export const MAX_CARD_FILES = 2000;

interface AppNotes {
  lastVerified?: { at: string; ok: boolean };
  lastChanges?: DatasetChanges;
}

export interface ManifestEntry {
  setId: number;
  path: string;
  sizeBytes: number;
  downloadedAt: string;
}

const notesPath = (dest: string) => path.join(stateDir(dest), 'app-notes.json');

async function readNotes(dest: string): Promise<AppNotes> {
  try {
    const parsed = JSON.parse(await fs.readFile(notesPath(dest), 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as AppNotes) : {};
  } catch {
    return {}; // missing or unreadable notes only hide two lines of the card
  }
}

async function updateNotes(dest: string, patch: AppNotes): Promise<void> {
  const next = { ...(await readNotes(dest)), ...patch };
  // The state dir exists once a sync ran; before that there is nothing to note.
  await fs.writeFile(notesPath(dest), JSON.stringify(next), { mode: 0o644 }).catch(() => undefined);
}

export const recordVerified = (dest: string, ok: boolean) => updateNotes(dest, { lastVerified: { at: new Date().toISOString(), ok } });

/** Every file manifest.csv lists; empty before the first sync; null when it is there but unreadable. */
export async function readManifestEntries(dest: string): Promise<ManifestEntry[] | null> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dest, 'manifest.csv'), 'utf8');
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? [] : null;
  }
  return entriesOf(text);
}

function entriesOf(text: string): ManifestEntry[] | null {
  // parseManifest gives path and size; the set is in the path (sets/<id>/...), and downloaded_at
  // is the row's last column (never quoted: an ISO time), read from the same line.
  const lines = text.split('\n').slice(1).filter((line) => line.trim());
  let basics;
  try {
    basics = parseManifest(text);
  } catch {
    return null; // edited by hand or cut short: the next sync rewrites it
  }
  return basics.map((b, i) => {
    const line = lines[i] ?? '';
    return {
      setId: Number(/^sets\/(\d+)\//.exec(b.path)?.[1] ?? 0),
      path: b.path,
      sizeBytes: b.sizeBytes,
      downloadedAt: line.includes(b.path) ? line.slice(line.lastIndexOf(',') + 1).trim() : '',
    };
  });
}

/** Set ids with files on disk: taken before a sync so its changes can be told apart (new vs edited). */
export async function setIdsOnDisk(dest: string): Promise<Set<number>> {
  return new Set(((await readManifestEntries(dest)) ?? []).map((e) => e.setId));
}

/** Records which sets the finished run added, changed or saw leave "accepted". */
export async function recordChanges(dest: string, before: ReadonlySet<number>, summary: SyncSummary): Promise<void> {
  if (summary.fatal) return;
  const touched = new Set<number>();
  for (const e of (await readManifestEntries(dest)) ?? []) if (e.downloadedAt >= summary.startedAt) touched.add(e.setId);
  const sorted = (ids: Iterable<number>) => [...ids].sort((a, b) => a - b);
  await updateNotes(dest, {
    lastChanges: {
      at: summary.finishedAt,
      newSets: sorted([...touched].filter((id) => !before.has(id))),
      editedSets: sorted([...touched].filter((id) => before.has(id))),
      leftAccepted: sorted(summary.setsNotServed),
    },
  });
}

/** Free space on the disk that holds `dest` (or would hold it); null when it cannot be read. */
export async function readFreeBytes(dest: string): Promise<number | null> {
  // The folder may not exist before the first sync: ask its nearest existing parent.
  for (let dir = dest; ; dir = path.dirname(dir)) {
    try {
      const s = await fs.statfs(dir);
      return s.bavail * s.bsize;
    } catch {
      if (path.dirname(dir) === dir) return null;
    }
  }
}

/** The last run's files as the Files table shows them after a restart (bounded). */
function lastRunFiles(entries: ManifestEntry[], last: SyncSummary | null): { files: DatasetFileRow[]; truncated: boolean } {
  const files: DatasetFileRow[] = [];
  for (const f of last?.failures ?? []) {
    if (f.path !== undefined) files.push({ setId: f.setId, path: f.path, sizeBytes: 0, state: 'failed', reason: f.reason });
  }
  const since = last?.startedAt ?? '';
  // Downloaded by the last run first, then the rest (up to date).
  const downloaded = entries.filter((e) => e.downloadedAt >= since);
  const rest = entries.filter((e) => e.downloadedAt < since);
  for (const e of downloaded) files.push({ setId: e.setId, path: e.path, sizeBytes: e.sizeBytes, state: 'verified' });
  for (const e of rest) files.push({ setId: e.setId, path: e.path, sizeBytes: e.sizeBytes, state: 'up_to_date' });
  return { files: files.slice(0, MAX_CARD_FILES), truncated: files.length > MAX_CARD_FILES };
}

export async function readDatasetCard(dataset: { dest: string; consentsDir?: string }, last: SyncSummary | null): Promise<DatasetCard> {
  const { dest } = dataset;
  const [read, notes, free] = await Promise.all([readManifestEntries(dest), readNotes(dest), readFreeBytes(dest)]);
  const entries = read ?? [];
  const { files, truncated } = lastRunFiles(entries, last);
  return {
    dest,
    consentsDir: last?.consentsDir ?? dataset.consentsDir ?? defaultConsentsDir(dest),
    filesOnDisk: read ? entries.length : null,
    bytesOnDisk: read ? entries.reduce((n, e) => n + e.sizeBytes, 0) : null,
    setsOnDisk: read ? new Set(entries.map((e) => e.setId)).size : null,
    freeBytes: free,
    lastVerified: notes.lastVerified ?? null,
    lastChanges: notes.lastChanges ?? null,
    lastRunFiles: files,
    lastRunFilesTruncated: truncated,
  };
}
