// What the window shows about a collection's dataset on disk: files and bytes (from
// manifest.csv, which the engine writes atomically, so it is read safely during a sync too),
// free space, the consents folder, the last verify and what the last sync changed per set.
// The app's own notes (last verify, last changes) live in DEST/.dataset-sync/app-notes.json:
// they describe that folder, so they move and vanish with it.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { DatasetCard, DatasetChanges, DatasetFileRow, HistoryEntry, LastVerified, VerifyRun } from '../../src-shared/ipc-contract';
import type { SyncSummary, VerifyReport } from '../../src-shared/sync-events';
import { verifyVerdict } from '../../src-shared/verify-verdict';
import { parseManifest } from '../sync/dataset';
import { defaultConsentsDir, stateDir } from '../sync/layout';

/** The Files table after a restart lists at most this many of the last run's files. */
export const MAX_CARD_FILES = 2000;

/** Bounds the notes: the damaged paths the Files table marks, and the runs history lists. */
const MAX_DAMAGED = 2000;
const MAX_RUNS = 500;

interface AppNotes {
  lastVerified?: LastVerified & {
    /** What that verify found damaged, until a sync or repair has been at it since. */
    damaged?: Array<{ path: string; why: 'missing' | 'changed' }>;
    beforeSync?: boolean;
  };
  lastChanges?: DatasetChanges;
  /** Verifies of this folder, oldest first (the engine's history.jsonl has syncs only). */
  verifies?: VerifyRun[];
  /** Start times of the engine's history entries that were repairs (a repair's summary is a sync's). */
  repairs?: string[];
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

/** A verify's result: the card's "Last verified", the Files table's damaged rows, a history row. */
export async function recordVerified(dest: string, report: VerifyReport, startedAt: string): Promise<void> {
  const finishedAt = new Date().toISOString();
  const counts = { missing: report.missing.length, changed: report.changed.length, extra: report.extra.length };
  const damaged = [...report.missing.map((path) => ({ path, why: 'missing' as const })), ...report.changed.map((path) => ({ path, why: 'changed' as const }))].slice(0, MAX_DAMAGED);
  const run: VerifyRun = { kind: 'verify', startedAt, finishedAt, durationMs: Date.parse(finishedAt) - Date.parse(startedAt), filesChecked: report.filesChecked, ok: report.ok, ...counts, bytesHashed: report.bytesHashed };
  const notes = await readNotes(dest);
  await updateNotes(dest, {
    lastVerified: { at: finishedAt, ok: verifyVerdict(counts).ok, ...counts, damaged },
    verifies: [...(notes.verifies ?? []), run].slice(-MAX_RUNS),
  });
}

/**
 * A run ended: a repair that failed nothing fixed what the last verify found (it verified first
 * and hash-checked every file it fetched); a sync re-checked sizes and dates only, so problems
 * found before it are no longer known to be there: the card says to verify again.
 */
export async function recordRunEnded(dest: string, summary: SyncSummary, kind: 'sync' | 'repair'): Promise<void> {
  if (summary.cancelled || summary.fatal) return;
  const notes = await readNotes(dest);
  const patch: AppNotes = {};
  if (kind === 'repair') patch.repairs = [...(notes.repairs ?? []), summary.startedAt].slice(-MAX_RUNS);
  const last = notes.lastVerified;
  if (last && !last.ok) {
    if (kind === 'repair' && summary.exitCode === 0) patch.lastVerified = { at: last.at, ok: true, missing: 0, changed: 0, extra: last.extra ?? 0, repairedAt: summary.finishedAt };
    else if (kind === 'sync') patch.lastVerified = { ...last, damaged: [], beforeSync: true };
  }
  if (Object.keys(patch).length > 0) await updateNotes(dest, patch);
}

/** The folder's syncs, repairs and verifies, newest first. */
export async function readRunHistory(dest: string, syncs: SyncSummary[]): Promise<HistoryEntry[]> {
  const notes = await readNotes(dest);
  const repairs = new Set(notes.repairs ?? []);
  const entries: HistoryEntry[] = [...syncs.map((s) => ({ ...s, kind: repairs.has(s.startedAt) ? ('repair' as const) : ('sync' as const) })), ...(notes.verifies ?? [])];
  return entries.sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt));
}

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

const DAMAGE_REASON = {
  missing: 'missing on disk: found by Verify; Repair downloads it again',
  changed: 'changed on disk since it was verified: found by Verify; Repair downloads it again',
} as const;

/** The last run's files as the Files table shows them after a restart (bounded); what the last verify found damaged says so. */
function lastRunFiles(entries: ManifestEntry[], last: SyncSummary | null, damaged: ReadonlyMap<string, 'missing' | 'changed'>): { files: DatasetFileRow[]; truncated: boolean } {
  const files: DatasetFileRow[] = [];
  for (const e of entries) {
    const why = damaged.get(e.path);
    if (why) files.push({ setId: e.setId, path: e.path, sizeBytes: e.sizeBytes, state: 'failed', reason: DAMAGE_REASON[why] });
  }
  entries = entries.filter((e) => !damaged.has(e.path));
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
  const { damaged: damagedList, ...lastVerified } = notes.lastVerified ?? {};
  const damaged = new Map((damagedList ?? []).map((d) => [d.path, d.why]));
  const { files, truncated } = lastRunFiles(entries, last, damaged);
  // What the last verify found missing is not on disk, whatever manifest.csv lists.
  const present = entries.filter((e) => damaged.get(e.path) !== 'missing');
  return {
    dest,
    consentsDir: last?.consentsDir ?? dataset.consentsDir ?? defaultConsentsDir(dest),
    filesOnDisk: read ? present.length : null,
    bytesOnDisk: read ? present.reduce((n, e) => n + e.sizeBytes, 0) : null,
    setsOnDisk: read ? new Set(present.map((e) => e.setId)).size : null,
    freeBytes: free,
    lastVerified: notes.lastVerified ? (lastVerified as LastVerified & { beforeSync?: boolean }) : null,
    lastChanges: notes.lastChanges ?? null,
    lastRunFiles: files,
    lastRunFilesTruncated: truncated,
  };
}
