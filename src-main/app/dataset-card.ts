// What the window shows about a collection's dataset on disk: files and bytes, what the last
// run changed and its files (asked of the engine's records, sync/state/queries.ts: one indexed
// query each, read beside a running sync), free space, the consents folder, the last verify.
// The app's own notes (last verify, last changes) live in DEST/.dataset-sync/app-notes.json:
// they describe that folder, so they move and vanish with it.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { DatasetCard, DatasetChanges, DatasetFileRow, HistoryEntry, LastVerified, VerifyRun } from '../../src-shared/ipc-contract';
import type { SyncSummary, VerifyReport } from '../../src-shared/sync-events';
import { verifyVerdict } from '../../src-shared/verify-verdict';
import { defaultConsentsDir, queryState, stateDir, type StateCounts, type StateQueries } from '../sync/engine';

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
  await writeNotesAtomic(notesPath(dest), JSON.stringify(next)).catch(() => undefined);
}

/**
 * Temp file beside the notes, then rename: a crash or a full disk mid-write leaves the previous
 * notes whole, never half a JSON document. Not in the engine's tmp/ (a sync empties it when it
 * starts); 'wx': never written through something planted under the temp name.
 */
async function writeNotesAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
  try {
    await fs.writeFile(tmp, text, { mode: 0o644, flag: 'wx' });
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
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

/** The engine's counts of the folder's records; zeros before the first sync; null when they cannot be read. */
export function readCounts(dest: string): StateCounts | null {
  try {
    return queryState(stateDir(dest), (q) => q.counts());
  } catch {
    return null; // a damaged state.db: the next sync says why
  }
}

/** Records which sets the finished run added, changed or saw leave "accepted" (the engine tells which run verified each file). */
export async function recordChanges(dest: string, summary: SyncSummary): Promise<void> {
  if (summary.fatal) return;
  const changes = queryState(stateDir(dest), (q) => q.lastRunChanges(0));
  await updateNotes(dest, {
    lastChanges: {
      at: summary.finishedAt,
      newSets: changes.newSets,
      editedSets: changes.editedSets,
      leftAccepted: [...summary.setsNotServed].sort((a, b) => a - b),
    },
  });
}

/**
 * The app's notes after a run of a folder dataset: a sync's changes (the card keeps the last
 * sync's: a repair re-fetches files damaged here, not sets the service changed), and the run's
 * kind and "Last verified". Failures are ignored (the notes are a convenience). Run where the
 * engine ran (its engine thread in the app): the changes are one query over the run's sets.
 */
export async function recordRunNotes(dest: string, summary: SyncSummary, kind: 'sync' | 'repair'): Promise<void> {
  if (kind === 'sync') await recordChanges(dest, summary).catch(() => undefined);
  await recordRunEnded(dest, summary, kind).catch(() => undefined);
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

/**
 * The last run's files as the Files table shows them after a restart (bounded): what the last
 * verify found damaged, the run's failures, the files it verified, then the rest (up to date).
 * After a verify newer than the run (`verifiedSinceRun`), every file it found intact is verified:
 * it hashed them all, so a repair's few "verified" beside "up to date" would tell an older story.
 */
function lastRunFiles(q: StateQueries, counts: StateCounts, last: SyncSummary | null, damaged: ReadonlyMap<string, 'missing' | 'changed'>, verifiedSinceRun: boolean): { files: DatasetFileRow[]; truncated: boolean } {
  const files: DatasetFileRow[] = [];
  for (const e of q.filesAt([...damaged.keys()])) files.push({ setId: e.setId, path: e.path, sizeBytes: e.sizeBytes, state: 'failed', reason: DAMAGE_REASON[damaged.get(e.path)!], damage: damaged.get(e.path)! });
  for (const f of last?.failures ?? []) {
    if (f.path !== undefined) files.push({ setId: f.setId, path: f.path, sizeBytes: 0, state: 'failed', reason: f.reason });
  }
  const room = () => MAX_CARD_FILES + damaged.size - files.length;
  for (const e of q.lastRunChanges(room()).files) if (!damaged.has(e.path)) files.push({ setId: e.setId, path: e.path, sizeBytes: e.sizeBytes, state: 'verified' });
  const rest = verifiedSinceRun ? 'verified' : 'up_to_date';
  if (room() > 0) for (const e of q.otherFiles(0, room())) if (!damaged.has(e.path)) files.push({ setId: e.setId, path: e.path, sizeBytes: e.sizeBytes, state: rest });
  const total = counts.files + (last?.failures ?? []).filter((f) => f.path !== undefined).length;
  return { files: files.slice(0, MAX_CARD_FILES), truncated: total > MAX_CARD_FILES };
}

/** What the card shows of the records: counts less what the last verify found missing, and the Files rows. */
function readRecords(dest: string, last: SyncSummary | null, damaged: ReadonlyMap<string, 'missing' | 'changed'>, verifiedSinceRun: boolean) {
  try {
    return queryState(stateDir(dest), (q) => {
      const counts = q.counts();
      // What the last verify found missing is not on disk, whatever the records say.
      const missing = q.filesAt([...damaged].filter(([, why]) => why === 'missing').map(([p]) => p));
      const missingBySet = new Map<number, number>();
      for (const m of missing) missingBySet.set(m.setId, (missingBySet.get(m.setId) ?? 0) + 1);
      let setsGone = 0;
      for (const [id, n] of missingBySet) if (q.filesOfSet(id).length === n) setsGone++;
      return {
        filesOnDisk: counts.files - missing.length,
        bytesOnDisk: counts.bytes - missing.reduce((n, m) => n + m.sizeBytes, 0),
        setsOnDisk: counts.setsWithFiles - setsGone,
        ...lastRunFiles(q, counts, last, damaged, verifiedSinceRun),
      };
    });
  } catch {
    return null; // a damaged state.db: the next sync says why
  }
}

export async function readDatasetCard(dataset: { dest: string; consentsDir?: string }, last: SyncSummary | null): Promise<DatasetCard> {
  const { dest } = dataset;
  const [notes, free] = await Promise.all([readNotes(dest), readFreeBytes(dest)]);
  const { damaged: damagedList, ...lastVerified } = notes.lastVerified ?? {};
  const damaged = new Map((damagedList ?? []).map((d) => [d.path, d.why]));
  // A verify after the last run (sync or repair) is the newer word on every file.
  const verifiedSinceRun = notes.lastVerified !== undefined && (last === null || Date.parse(notes.lastVerified.at) > Date.parse(last.finishedAt));
  const records = readRecords(dest, last, damaged, verifiedSinceRun);
  return {
    dest,
    consentsDir: last?.consentsDir ?? dataset.consentsDir ?? defaultConsentsDir(dest),
    filesOnDisk: records?.filesOnDisk ?? null,
    bytesOnDisk: records?.bytesOnDisk ?? null,
    setsOnDisk: records?.setsOnDisk ?? null,
    freeBytes: free,
    lastVerified: notes.lastVerified ? (lastVerified as LastVerified & { beforeSync?: boolean }) : null,
    lastChanges: notes.lastChanges ?? null,
    lastRunFiles: records?.files ?? [],
    lastRunFilesTruncated: records?.truncated ?? false,
    lastRunFilesFrom: verifiedSinceRun ? 'verify' : 'run',
  };
}
