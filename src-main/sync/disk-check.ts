// Every sync checks every recorded file cheaply (docs/contracts.md §4): a regular file (lstat, so a link is
// never taken for it) with the size and mtime recorded at verification. Nothing is hashed; a file
// that passes is trusted (`verify` is the command that re-hashes). A set with a file that fails
// becomes pending, so this sync fetches it again (GET /sets/:id unless the walk returns it) and
// downloads only the files that failed.
import type { Destination, ExpectedObject, PresenceProblem } from './destination/destination';
import type { Clock } from './clock';
import type { RunState } from './run-state';
import { entryStamp, type FileEntry } from './state/records';
import type { SetView } from './state/engine-store';

export type FileProblem = 'missing on disk' | 'changed on disk';

/** One recorded file now (Destination.stat): gone, or not the regular file of the recorded size and stamp. */
export async function filePresence(dest: Destination, rel: string, entry: Pick<FileEntry, 'sizeBytes' | 'mtimeMs' | 'stamp'>): Promise<FileProblem | null> {
  const info = await dest.stat(rel);
  if (info === null) return 'missing on disk';
  return info.size === entry.sizeBytes && info.stamp === entryStamp(entry) ? null : 'changed on disk';
}

export interface DiskCheck {
  files: number;
  missing: number;
  changed: number;
  durationMs: number;
  /** Set id -> what is wrong with its files ("sets/1/x.mp4 missing on disk; ..."), for its events. */
  damaged: Map<number, string>;
}

/** The set a recorded key belongs to: keys of set files are sets/<id>/<name> (layout.ts relFilePath). */
function setIdOfKey(key: string): number {
  const m = /^sets\/(\d+)\//.exec(key);
  return m ? Number(m[1]) : 0;
}

/** What the engine expects of every file of `sets`. */
function* expectedFiles(sets: Iterable<SetView>): Generator<ExpectedObject> {
  for (const local of sets) {
    for (const [key, entry] of Object.entries(local.files)) yield { key, size: entry.sizeBytes, stamp: entryStamp(entry) };
  }
}

/** Counts what passes through. */
function* counted<T>(items: Iterable<T>, count: { files: number }): Generator<T> {
  for (const item of items) {
    count.files++;
    yield item;
  }
}

/** A problem in the words of the file events ('missing on disk', ...). */
function problemWords(p: PresenceProblem): string {
  if (p.problem === 'missing') return `${p.key} missing on disk`;
  if (p.problem === 'changed') return `${p.key} changed on disk`;
  return `${p.key} reached through a link (${p.detail ?? 'its folder'} is not a real folder)`;
}

/**
 * Checks every file of every set record (Destination.checkPresence: a folder does one lstat per
 * file and per set folder); sets with a damaged file are made pending.
 */
export async function checkRecordedFiles(dest: Destination, state: RunState, clock: Clock): Promise<DiskCheck> {
  const started = clock.now();
  const check: DiskCheck = { files: 0, missing: 0, changed: 0, durationMs: 0, damaged: new Map() };
  const problems = new Map<number, string[]>();
  for await (const p of dest.checkPresence(counted(state.store.recordedFiles(), check))) {
    if (p.problem === 'missing') check.missing++;
    else check.changed++; // a link on the way counts as changed
    const id = setIdOfKey(p.key);
    let list = problems.get(id);
    if (!list) problems.set(id, (list = []));
    list.push(problemWords(p));
  }
  for (const [id, list] of problems) {
    check.damaged.set(id, list.length <= 3 ? list.join('; ') : `${list.slice(0, 3).join('; ')} and ${list.length - 3} more`);
    state.store.addPending(id);
  }
  check.durationMs = clock.now() - started;
  return check;
}

/**
 * The end of the sync, for the sets the check found damaged and the sets this sync worked on: the
 * entries whose file is missing or changed now (its download failed, the set is no longer served,
 * or the file went after it was verified; a set folder swapped for a link loses every entry), as
 * set id -> keys. Changes nothing, so it may run beside the pass that writes the dataset files
 * (run-finish.ts), which are written again in the rare sync where it finds one (dropEntries). Every file
 * goes through one checkPresence (a folder's lstat calls batched, on the file writer thread), not
 * one set after the other: at 100,000 sets the set-by-set round trips were most of the time
 * between the last download and the manifest.
 */
export async function findUnhealedEntries(dest: Destination, state: RunState, setIds: Iterable<number>): Promise<Map<number, string[]>> {
  const ids = new Set(setIds);
  const gone = new Map<number, string[]>();
  for await (const p of dest.checkPresence(recordedFilesOf(state, ids))) {
    const id = setIdOfKey(p.key);
    let keys = gone.get(id);
    if (!keys) gone.set(id, (keys = []));
    keys.push(p.key);
  }
  return gone;
}

/**
 * Takes the entries findUnhealedEntries found out of the records, so manifest.csv and SHA256SUMS
 * list only verified files present. Returns the sets that lost an entry: they are no longer
 * complete, and the caller makes the ones still wanted pending so the next sync fetches them.
 */
export function dropEntries(state: RunState, gone: ReadonlyMap<number, readonly string[]>): number[] {
  const lost: number[] = [];
  for (const [id, keys] of gone) {
    if (!state.store.get(id)) continue;
    state.store.dropFiles(id, keys, 'lost');
    lost.push(id);
  }
  return lost;
}

/** Above this share of the known sets, one scan of every recorded file's row costs less than a record read per set. */
const SCAN_SHARE = 0.25;
/** Below this many sets a record read per set is cheap whatever the share. */
const SCAN_MIN_SETS = 256;

/** What the engine expects of the files of the sets `ids`: the lean rows of one scan when they are many (a first sync: all), else each set's record. */
function* recordedFilesOf(state: RunState, ids: ReadonlySet<number>): Generator<ExpectedObject> {
  if (ids.size >= SCAN_MIN_SETS && ids.size >= state.store.count() * SCAN_SHARE) {
    for (const f of state.store.recordedFiles()) if (ids.has(setIdOfKey(f.key))) yield f;
    return;
  }
  for (const id of ids) {
    const local = state.store.get(id);
    if (local) yield* expectedFiles([local]);
  }
}
