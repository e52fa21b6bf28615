// The POSIX calls behind LocalFolder (local-folder.ts): keys become paths under the folder, and
// what anyone with access to the folder could have swapped is never followed: a link, FIFO or
// device in place of a file is reported (stat, list, checkPresence) or refused (read), never read
// through; folders below the root are made part by part and checked (safe-dirs.ts).
import { createHash } from 'node:crypto';
import { constants as fsConstants, createWriteStream, lstat, lstatSync, promises as fs, readFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ExpectedObject, ObjectInfo, PresenceProblem, ReadOptions } from '../destination';
import { DestinationError } from '../destination';
import { keepReplacedVersion } from './replaced';
import { tempPathFor, writeFileAtomic, writeSmallFileAtomic, type WrittenFile } from './atomic';
import { fileWriter, PATH_FILE, PATH_FOLDER, PATH_OTHER, PATH_SKIPPED, STAT_FIELDS } from './file-writer';
import { pathUnder } from './key-paths';
import { ensureRealDir } from './safe-dirs';
import { NotRegularFileError, openRegularFile, readRegularFileSync } from './regular-file';

/**
 * Stamps of what is at a key but is not a regular file reached through real folders: they never
 * equal a recorded stamp (a number's decimal string), so the engine takes such an object as changed.
 */
export const NOT_REGULAR_STAMP = 'not-a-regular-file';
export const LINKED_STAMP = 'reached-through-a-link';

/** Bodies up to this size are written from memory in one write, Stats by fstat (set.json, consent records; bench scenario 2). */
const SMALL_WRITE_MAX_BYTES = 1024 * 1024;

export function keyPath(root: string, key: string): string {
  return pathUnder(root, key);
}

function code(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

function infoOf(key: string, st: Stats): ObjectInfo {
  return st.isFile() ? { key, size: st.size, stamp: String(st.mtimeMs) } : { key, size: st.size, stamp: NOT_REGULAR_STAMP };
}

/** The first folder between the root and `key` that is not a real folder (relative, '/'-separated); null when all are, 'missing' when one is not there. */
function folderInTheWay(root: string, key: string): string | null | 'missing' {
  const parts = key.split('/');
  let dir = root;
  for (let i = 0; i < parts.length - 1; i++) {
    dir = path.join(dir, parts[i]!);
    let st: Stats | undefined;
    try {
      st = lstatSync(dir, { throwIfNoEntry: false });
    } catch {
      return 'missing';
    }
    if (st === undefined) return 'missing';
    if (!st.isDirectory()) return parts.slice(0, i + 1).join('/');
  }
  return null;
}

/**
 * stat's contract for a folder: null when nothing is at the key (or a folder on its way is
 * missing); a regular file reached through real folders only: its size and mtime (ms, as a
 * decimal string); anything else at the key (a link, FIFO, folder, device) has the stamp
 * NOT_REGULAR_STAMP, and a key reached through a folder that is not a real folder (a link) the
 * stamp LINKED_STAMP: both never match a recorded stamp. Synchronous lstat calls (one per folder
 * on the way and one for the key): each is a few microseconds, an asynchronous one a thread-pool hop.
 */
export function statKey(root: string, key: string): ObjectInfo | null {
  const inTheWay = folderInTheWay(root, key);
  if (inTheWay === 'missing') return null;
  if (inTheWay !== null) return { key, size: 0, stamp: LINKED_STAMP };
  let st: Stats | undefined;
  try {
    st = lstatSync(keyPath(root, key), { throwIfNoEntry: false });
  } catch {
    return null; // e.g. ENOTDIR
  }
  return st === undefined ? null : infoOf(key, st);
}

/** The object's bytes: a regular file only, reached through real folders only, opened without following a link (regular-file.ts). */
export async function* readKey(root: string, key: string, options: ReadOptions = {}): AsyncIterable<Buffer> {
  const file = keyPath(root, key);
  const inTheWay = folderInTheWay(root, key);
  if (inTheWay === 'missing') throw new DestinationError('io', `${file} is not there`, 'ENOENT');
  if (inTheWay !== null) throw new NotRegularFileError(file, `below ${inTheWay}, a folder that is not a real folder`);
  let opened;
  try {
    opened = await openRegularFile(file);
  } catch (e) {
    if (code(e) === 'ENOENT') throw new DestinationError('io', `${file} is not there`, 'ENOENT');
    throw e;
  }
  const { fh } = opened;
  try {
    const stream = fh.createReadStream({ highWaterMark: options.chunkBytes ?? 1024 * 1024, start: options.start ?? 0, autoClose: false });
    for await (const chunk of stream as AsyncIterable<Buffer>) yield chunk;
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/**
 * The whole text of a regular file; null when absent; anything but a regular file is refused
 * (NotRegularFileError). Synchronous calls: the texts read are state.json (on the way to the
 * first request of a sync, where every thread-pool hop shows) and manifest.csv (once per verify).
 */
export async function readTextKey(root: string, key: string): Promise<string | null> {
  const file = keyPath(root, key);
  const inTheWay = folderInTheWay(root, key);
  if (inTheWay === 'missing') return null;
  if (inTheWay !== null) throw new NotRegularFileError(file, `below ${inTheWay}, a folder that is not a real folder`);
  try {
    return readRegularFileSync(file);
  } catch (e) {
    if (code(e) === 'ENOENT') return null;
    throw e;
  }
}

/**
 * Synchronous read, without the lock: the first asynchronous read of a process costs ~10 ms of
 * thread-pool start-up (see state.ts peekState). Null when absent or unreadable.
 */
export function peekTextKey(root: string, key: string): string | null {
  try {
    return readFileSync(keyPath(root, key), 'utf8');
  } catch {
    return null;
  }
}

/**
 * Every entry below `prefix`, recursively, in key order. Real folders are walked; a regular file
 * is an object; anything else (a link, a FIFO; a set folder swapped for a link) is listed as an
 * object of its own with NOT_REGULAR_STAMP and is never followed.
 */
export async function* listKeys(root: string, prefix: string): AsyncIterable<ObjectInfo> {
  // The folder to walk: the prefix up to its last '/', the rest filters names.
  const slash = prefix.lastIndexOf('/');
  const dirKey = slash < 0 ? '' : prefix.slice(0, slash);
  if (dirKey !== '') {
    const inTheWay = folderInTheWay(root, `${dirKey}/x`);
    if (inTheWay !== null) return;
    const st = lstatSync(keyPath(root, dirKey), { throwIfNoEntry: false });
    if (!st?.isDirectory()) return;
  }
  yield* walk(root, dirKey, prefix);
}

async function* walk(root: string, dirKey: string, prefix: string): AsyncIterable<ObjectInfo> {
  let entries;
  try {
    entries = await fs.readdir(dirKey === '' ? root : keyPath(root, dirKey), { withFileTypes: true });
  } catch (e) {
    if (code(e) === 'ENOENT' || code(e) === 'ENOTDIR') return;
    throw e;
  }
  // Key order: a folder's keys continue with '/', so it sorts as its name + '/'.
  const named = entries.map((d) => ({ d, sortKey: d.isDirectory() ? `${d.name}/` : d.name }));
  named.sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
  for (const { d } of named) {
    const key = dirKey === '' ? d.name : `${dirKey}/${d.name}`;
    if (d.isDirectory()) {
      if (`${key}/`.startsWith(prefix) || prefix.startsWith(`${key}/`)) yield* walk(root, key, prefix);
      continue;
    }
    if (!key.startsWith(prefix)) continue;
    let st: Stats | undefined;
    try {
      st = lstatSync(keyPath(root, key), { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    if (st !== undefined) yield infoOf(key, st);
  }
}

export async function removeKey(root: string, key: string): Promise<void> {
  await fs.rm(keyPath(root, key), { force: true });
}

/**
 * Moves DEST/`key` to `targetRoot`/`targetKey` (a sibling folder such as DEST.withdrawn): the
 * target root is created when missing, the folders under it part by part (ensureRealDir: a link
 * planted there never takes the file elsewhere); rename, or copy and remove across file systems.
 * A link at the source is moved as the link (rename never follows it). False when nothing is at `key`.
 */
export async function moveKey(root: string, key: string, targetRoot: string, targetKey: string): Promise<boolean> {
  const from = keyPath(root, key);
  try {
    await fs.lstat(from);
  } catch (e) {
    if (code(e) === 'ENOENT') return false;
    throw e;
  }
  await fs.mkdir(targetRoot, { recursive: true });
  const parts = targetKey.split('/');
  const dir = parts.length > 1 ? await ensureRealDir(targetRoot, parts.slice(0, -1).join('/')) : targetRoot;
  const to = path.join(dir, parts.at(-1)!);
  try {
    await fs.rename(from, to);
  } catch (e) {
    if (code(e) !== 'EXDEV') throw e;
    await fs.copyFile(from, to);
    await fs.rm(from, { force: true });
  }
  // The source's folder goes with its last object (a set folder leaves sets/ whole); never the root.
  if (key.includes('/')) await fs.rmdir(path.dirname(from)).catch(() => undefined);
  return true;
}

/** Removes the folder and all it holds (links inside are removed, never followed); absent is fine. */
export async function removeTree(root: string): Promise<void> {
  await fs.rm(root, { recursive: true, force: true });
}

/** Free bytes for an unprivileged writer on the folder's file system. */
export async function freeSpaceOf(root: string): Promise<number> {
  const s = await fs.statfs(root);
  return s.bavail * s.bsize;
}

/**
 * Writes `body` to `target` atomically: a temp file under `tmpDir` (opened 'wx', never through
 * something planted under its name), then rename. A small string or buffer is written in one
 * call; a large one or an iterable is streamed with back-pressure (manifest.csv at a million rows).
 */
export async function writeAtomicFile(
  target: string,
  body: string | Buffer | AsyncIterable<string | Buffer>,
  mode: number,
  tmpDir: string,
  /** Small bodies through the file writer thread (LocalFolder decides once: file-writer.ts fileWriterWanted). */
  writerWanted: boolean,
): Promise<WrittenFile> {
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    const bytes = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    if (bytes <= SMALL_WRITE_MAX_BYTES) {
      return writeSmallFileAtomic(target, body, mode, tmpDir, writerWanted);
    }
    await writeFileAtomic(target, body, mode, tmpDir);
    return fs.lstat(target);
  }
  const tmp = tempPathFor(target, tmpDir);
  try {
    await pipeline(Readable.from(body), createWriteStream(tmp, { flags: 'wx', mode }));
    if (mode !== 0o644) await fs.chmod(tmp, mode); // the umask may have masked it at creation
    await fs.rename(tmp, target);
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
  return fs.lstat(target);
}

/**
 * Writes atomically, at `target`, the regular file now there followed by `tail`, provided that
 * file is still of `expect`'s size and stamp; null when it is not (or is not a regular file).
 *
 * Why a copy and not an append in place: a reader (sha256sum -c, a spreadsheet, verify) may open
 * the file while a sync runs, and Linux grows a file's size page by page during one write, so an
 * in-place append could show a reader half a row. Instead the file is cloned into the scratch
 * folder (copyFile with COPYFILE_FICLONE: a reflink on btrfs/XFS, else copy_file_range, a copy
 * inside the kernel: 67 MB in ~30 ms on ext4 here, where rebuilding the rows from every record took
 * over a second), the tail is appended to the clone, and the clone renamed over the target:
 * readers see the old bytes or the new, as with writeAtomicFile. No JavaScript touches the
 * existing rows. The target is checked (lstat: a regular file, same inode, size and mtime) before
 * and after the copy, so a file swapped or edited meanwhile is never extended: null, and the
 * caller writes it whole. `keep` (default: all of it) cuts the clone to its first `keep` bytes before
 * the tail is appended: croissant.json replaces its closing part (the tables' FileObjects and the
 * record sets) after the last file's FileObject. `made`: a copy copyForExtension made earlier in
 * the sync (LocalFolder.warmExtensions), used when the file it copied is still the expected one,
 * unchanged since; else removed, and the copy made here.
 */
export async function extendAtomicFile(
  target: string,
  expect: { size: number; stamp: string },
  tail: string | Buffer,
  mode: number,
  tmpDir: string,
  keep = expect.size,
  made?: ExtensionCopy | null,
  keepOldIn?: string,
): Promise<Stats | null> {
  const asExpected = (st: Stats | undefined): st is Stats => st !== undefined && st.isFile() && st.size === expect.size && String(st.mtimeMs) === expect.stamp;
  if (!Number.isInteger(keep) || keep < 0 || keep > expect.size) {
    if (made) await fs.rm(made.tmp, { force: true });
    return null;
  }
  // One look at the target, which must be the expected file. A copy made ahead (copyForExtension)
  // serves when it copied this very file, unchanged since (inode, size, mtime: sameFile); else it
  // is removed and the copy is made here, from the file this lstat saw.
  const now = await fs.lstat(target).catch(() => undefined);
  let copy = made ?? null;
  if (copy !== null && !(asExpected(now) && sameFile(copy.before, now))) {
    await fs.rm(copy.tmp, { force: true });
    copy = null;
  }
  if (!asExpected(now)) return null;
  copy ??= await copyForExtension(target, tmpDir, now);
  if (copy === null) return null;
  const { tmp } = copy;
  try {
    const fh = await fs.open(tmp, fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_NOFOLLOW);
    try {
      const copied = await fh.stat();
      if (copied.size !== expect.size) {
        await fs.rm(tmp, { force: true });
        return null;
      }
      await fh.chmod(mode); // copyFile copies the source's mode; the target's is ours to set
      if (keep < expect.size) await fh.truncate(keep); // O_APPEND: the tail then goes right after `keep`
      await fh.writeFile(tail);
    } finally {
      await fh.close();
    }
    if (keepOldIn !== undefined) await keepReplacedVersion(target, keepOldIn);
    await fs.rename(tmp, target);
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
  return fs.lstat(target);
}

/** A copy of a file in the scratch folder, made for an extension, and the file it copied as lstat saw it (the same before and after the copy). */
export interface ExtensionCopy {
  tmp: string;
  before: Stats;
}

const sameFile = (a: Stats, b: Stats): boolean => a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeMs === b.mtimeMs;

/**
 * Copies the regular file at `target` into `tmpDir` (a reflink where the file system has them,
 * else a copy inside the kernel) for extendAtomicFile. null when there is no regular file, or it
 * changed during the copy (the lstat after must match `before`, or the one taken here).
 */
export async function copyForExtension(target: string, tmpDir: string, seen?: Stats): Promise<ExtensionCopy | null> {
  const before = seen ?? (await fs.lstat(target).catch(() => undefined));
  if (before === undefined || !before.isFile()) return null;
  const tmp = tempPathFor(target, tmpDir);
  try {
    await fs.copyFile(target, tmp, fsConstants.COPYFILE_EXCL | fsConstants.COPYFILE_FICLONE);
    const after = await fs.lstat(target).catch(() => undefined);
    if (after === undefined || !sameFile(before, after)) {
      await fs.rm(tmp, { force: true });
      return null;
    }
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
  return { tmp, before };
}

/**
 * A regular file at `file` of `size` bytes whose SHA-256 is `sha256`: its info, else null.
 * An lstat first (usually the file is simply absent); hashed through openRegularFile,
 * so a link or FIFO swapped in after the lstat is refused, never read.
 */
export async function verifiedFile(key: string, file: string, size: number, sha256: string): Promise<ObjectInfo | null> {
  // On the thread pool: this runs once for every file a first sync fetches (set-plan.ts adoptExisting).
  const st = await lstatOrNull(file);
  if (!st || !st.isFile() || st.size !== size) return null;
  let opened;
  try {
    opened = await openRegularFile(file);
  } catch {
    return null; // gone or no longer a regular file: the download replaces it by rename
  }
  const { fh } = opened;
  try {
    if (opened.size !== size) return null;
    const hash = createHash('sha256');
    let bytes = 0;
    // At most size + 1 bytes: a file growing while it is hashed cannot keep the read going.
    for await (const chunk of fh.createReadStream({ start: 0, end: size, highWaterMark: 1024 * 1024, autoClose: false }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
    }
    return bytes === size && hash.digest('hex') === sha256 ? { key, size, stamp: String(st.mtimeMs) } : null;
  } catch {
    return null;
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/** lstat by the callback API (no promise rejection for the usual absent file); null for any error. */
function lstatOrNull(p: string): Promise<Stats | null> {
  return new Promise((resolve) => lstat(p, (err, st) => resolve(err ? null : st)));
}

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
