// Stat and reads of the folder's keys, for LocalFolder (local-folder.ts): keys become paths under
// the folder, and what anyone with access to the folder could have swapped is never followed: a
// link, FIFO or device in place of a file is reported (stat; list and the disk check do the same:
// key-listing.ts, presence-check.ts) or refused (read), never read through. Also the adoption
// check of a file already there (verifiedFile), and the helpers the folder's other modules share:
// a key's path, what a stat says of a key, the folders on its way (key-listing.ts, key-moves.ts).
// Stat and the text reads are synchronous calls on purpose (their comments say why).
import { createHash } from 'node:crypto';
import { lstat, lstatSync, readFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { ObjectInfo, ReadOptions } from '../destination';
import { DestinationError } from '../destination';
import { pathUnder } from './key-paths';
import { NotRegularFileError, openRegularFile, readRegularFileSync } from './regular-file';

/**
 * Stamps of what is at a key but is not a regular file reached through real folders: they never
 * equal a recorded stamp (a number's decimal string), so the engine takes such an object as changed.
 */
export const NOT_REGULAR_STAMP = 'not-a-regular-file';
export const LINKED_STAMP = 'reached-through-a-link';

/** A key's path under the folder `root` (key-paths.ts: by concatenation). */
export function keyPath(root: string, key: string): string {
  return pathUnder(root, key);
}

/** The errno code of a caught error (ENOENT, EXDEV...), if it has one. */
export function code(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/** What an lstat of a key says of it: a regular file's size and mtime stamp, anything else NOT_REGULAR_STAMP. */
export function infoOf(key: string, st: Stats): ObjectInfo {
  return st.isFile() ? { key, size: st.size, stamp: String(st.mtimeMs) } : { key, size: st.size, stamp: NOT_REGULAR_STAMP };
}

/** The first folder between the root and `key` that is not a real folder (relative, '/'-separated); null when all are, 'missing' when one is not there. */
export function folderInTheWay(root: string, key: string): string | null | 'missing' {
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
 * A regular file at `file` of `size` bytes whose SHA-256 is `sha256`: its info, else null.
 * An lstat first (usually the file is simply absent); hashed through openRegularFile,
 * so a link or FIFO swapped in after the lstat is refused, never read.
 */
export async function verifiedFile(key: string, file: string, size: number, sha256: string): Promise<ObjectInfo | null> {
  // On the thread pool: this runs once for every file a first sync fetches (file-download.ts adoptExisting).
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
