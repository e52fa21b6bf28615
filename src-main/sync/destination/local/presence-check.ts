// The disk check of a folder (Destination.checkPresence, docs/contracts.md §4), for LocalFolder
// (local-folder.ts): one lstat per recorded file and per folder on its way, in batches off the
// event loop (the thread pool, or the file writer's thread: file-writer.ts lstatMany), nothing
// looked at below a folder that is not a real one. A no-op sync runs it over every file (a
// million at the largest benchmark): records go PRESENCE_BATCH at a time, one StatBatch each, and
// the next batch is read and sent while the current one's lstat calls run.
import { lstat } from 'node:fs';
import type { ExpectedObject, PresenceProblem } from '../destination';
import { fileWriter, PATH_FILE, PATH_FOLDER, PATH_OTHER, PATH_SKIPPED, STAT_FIELDS } from './file-writer';
import { pathUnder } from './key-paths';

/** Records checked per round of the disk check: their lstat calls are queued at once. */
const PRESENCE_BATCH = 256;

/** What the disk check needs of an lstat: nothing there (or an error), the kind, size and mtime, or not looked at (its folder is not a real one). */
export type PathStat = { kind: 'file' | 'folder' | 'other'; size: number; mtimeMs: number } | 'skipped' | undefined;

/**
 * lstat of a batch of paths, in order. `gates[i]`, when 0 or more, is the index of an earlier path
 * (a folder) that must be missing or a real folder for path i to be looked at; else path i is
 * 'skipped', and so are the paths it gates: nothing is stat'ed through a link.
 */
export type StatBatch = (paths: readonly string[], gates: readonly number[]) => Promise<PathStat[]>;

function blocks(st: PathStat): boolean {
  return st === 'skipped' || (st !== undefined && st.kind !== 'folder');
}

/**
 * StatBatch on libuv's thread pool, in parallel (the callback API: one small request object per
 * call, cheaper than a promise each), a wave per level of gates.
 */
export async function lstatOnThreadPool(paths: readonly string[], gates: readonly number[]): Promise<PathStat[]> {
  const out = new Array<PathStat>(paths.length).fill(undefined);
  /** Paths whose answer is known (looked at, or skipped): the paths they gate may go next. */
  const settled = new Array<boolean>(paths.length).fill(false);
  let left = paths.length;
  while (left > 0) {
    const wave: number[] = [];
    for (let i = 0; i < paths.length; i++) {
      const gate = gates[i]!;
      if (settled[i] || (gate >= 0 && !settled[gate])) continue;
      if (gate >= 0 && blocks(out[gate])) {
        out[i] = 'skipped';
        settled[i] = true;
        left--;
      } else wave.push(i);
    }
    if (wave.length === 0) continue; // only skipped paths this pass: the next one takes the paths they gate
    await new Promise<void>((resolve) => {
      let pending = wave.length;
      for (const i of wave) {
        lstat(paths[i]!, (err, st) => {
          out[i] = err ? undefined : { kind: st.isFile() ? 'file' : st.isDirectory() ? 'folder' : 'other', size: st.size, mtimeMs: st.mtimeMs };
          if (--pending === 0) resolve();
        });
      }
    });
    for (const i of wave) settled[i] = true;
    left -= wave.length;
  }
  return out;
}

const KINDS: Record<number, 'file' | 'folder' | 'other'> = { [PATH_FILE]: 'file', [PATH_FOLDER]: 'folder', [PATH_OTHER]: 'other' };

/**
 * StatBatch on the file writer's thread (started on first use), one message each way
 * (file-writer.ts lstatMany); on the thread pool where that thread cannot start.
 */
export async function lstatOnWriterThread(paths: readonly string[], gates: readonly number[]): Promise<PathStat[]> {
  const writer = fileWriter();
  if (writer === null) return lstatOnThreadPool(paths, gates);
  const stats = await writer.lstatMany(paths, gates);
  const out = new Array<PathStat>(paths.length);
  for (let i = 0; i < paths.length; i++) {
    const code = stats[i * STAT_FIELDS]!;
    const kind = KINDS[code];
    out[i] = code === PATH_SKIPPED ? 'skipped' : kind === undefined ? undefined : { kind, size: stats[i * STAT_FIELDS + 1]!, mtimeMs: stats[i * STAT_FIELDS + 2]! };
  }
  return out;
}

/** One batch of the disk check: its records, the folders it judges and the lstat calls in flight. */
interface PresenceRound {
  batch: ExpectedObject[];
  /** Folders judged by this round (relative) -> their index in its lstat batch. */
  folderAt: Map<string, number>;
  /** Per record: the index of its file in the lstat batch, or -1 when a folder on its way was already known not to be a real one (then in `linkedBy`). */
  fileAt: number[];
  linkedBy: Map<number, string>;
  stats: Promise<PathStat[]>;
}

/**
 * The disk check (docs/contracts.md §4): one lstat per recorded file and one per folder on its way (a set
 * folder swapped for a link would otherwise pass its files off as present; nothing below such a
 * folder is looked at). Off the event loop: records are taken PRESENCE_BATCH at a time and each
 * batch's lstat calls go out in one StatBatch (the first on the thread pool, the next ones by
 * `statMore` when given: the file writer's thread, one message per batch). The next batch is
 * read and sent before the answers of the current one are judged, so reading the records and the
 * lstat calls overlap; the main process (the app's window) never waits on the disk. Problems come
 * out in record order. Folders judged are remembered in a small map (a folder at the edge of two
 * batches may be judged twice).
 */
export async function* presenceProblems(root: string, expected: Iterable<ExpectedObject>, statMore: StatBatch = lstatOnThreadPool): AsyncIterable<PresenceProblem> {
  /** Folder (relative) -> whether it is a real folder or missing (a missing one makes its files missing). */
  const folders = new Map<string, boolean>();
  const iterator = expected[Symbol.iterator]();
  // A check of a few files stays on the thread pool: the writer thread is worth starting for many.
  let statBatch: StatBatch = lstatOnThreadPool;
  const nextRound = (): PresenceRound | null => {
    const batch: ExpectedObject[] = [];
    for (let next = iterator.next(); !next.done; next = iterator.next()) {
      batch.push(next.value);
      if (batch.length >= PRESENCE_BATCH) break;
    }
    if (batch.length === 0) return null;
    if (folders.size >= 1024) folders.clear(); // memory stays flat in the set count
    const paths: string[] = [];
    const gates: number[] = [];
    const folderAt = new Map<string, number>();
    const linkedBy = new Map<number, string>();
    // Per record, its folders not judged yet (sets/, sets/<id>: outermost first, each gated by the
    // nearest one above it this round judges), then its file, gated by the innermost of them (an
    // outer folder may be judged here while an inner one is still remembered from before the map
    // was cleared).
    const fileAt = batch.map((e, i) => {
      let gate = -1;
      for (const folder of foldersOnTheWay(e.key)) {
        const known = folders.get(folder);
        if (known === false) {
          linkedBy.set(i, folder); // below a folder known not to be real: nothing is looked at
          return -1;
        }
        if (known === true) continue;
        let at = folderAt.get(folder);
        if (at === undefined) {
          folderAt.set(folder, (at = paths.length));
          paths.push(pathUnder(root, folder));
          gates.push(gate);
        }
        gate = at;
      }
      paths.push(pathUnder(root, e.key));
      gates.push(gate);
      return paths.length - 1;
    });
    const stats = statBatch(paths, gates);
    stats.catch(() => undefined); // awaited later; a round left behind by a consumer that stopped early rejects unobserved
    statBatch = statMore;
    return { batch, folderAt, fileAt, linkedBy, stats };
  };
  let round = nextRound();
  while (round !== null) {
    const { batch, folderAt, fileAt, linkedBy } = round;
    const upcoming = nextRound(); // read and sent while this round's lstat calls run
    const stats = await round.stats;
    for (const [folder, at] of folderAt) folders.set(folder, !blocks(stats[at]));
    for (let i = 0; i < batch.length; i++) {
      const e = batch[i]!;
      const at = fileAt[i]!;
      const st = at === -1 ? 'skipped' : stats[at];
      if (st === 'skipped') {
        // Its gate, a folder this round judged, is now known not to be real (the outermost such folder is named).
        const detail = linkedBy.get(i) ?? foldersOnTheWay(e.key).find((f) => folders.get(f) === false) ?? e.key;
        yield { key: e.key, problem: 'linked', detail };
      } else if (st === undefined) yield { key: e.key, problem: 'missing' };
      else if (!(st.kind === 'file' && st.size === e.size && String(st.mtimeMs) === e.stamp)) yield { key: e.key, problem: 'changed' };
    }
    round = upcoming;
  }
}

/** The folders between the root and `key`, outermost first ('sets', 'sets/12'). */
function foldersOnTheWay(key: string): string[] {
  const out: string[] = [];
  for (let at = key.indexOf('/'); at !== -1; at = key.indexOf('/', at + 1)) out.push(key.slice(0, at));
  return out;
}
