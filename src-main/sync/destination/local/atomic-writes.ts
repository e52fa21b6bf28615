// Atomic whole-file writes of the folder and their extension by a tail (Destination.writeAtomic and
// extendAtomic), for LocalFolder (local-folder.ts): readers of a file see its old bytes or its new
// ones, never a part. A write goes to a temp file (opened 'wx', so never through something planted
// under its name; atomic.ts), then a rename. An extension copies the file inside the kernel and
// appends to the copy (extendAtomicFile says why not in place); the copies can be made ahead,
// while the sync runs (WarmCopies: LocalFolder.warmExtensions), since at a million files they are
// hundreds of MB. What is extended must be the regular file expected, checked by lstat before and
// after the copy, and the copy is opened with O_NOFOLLOW.
import { constants as fsConstants, createWriteStream, promises as fs, type Stats } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkKey } from '../key-rules';
import { keepReplacedVersion } from './replaced';
import { tempPathFor, writeFileAtomic, writeSmallFileAtomic, type WrittenFile } from './atomic';
import { keyPath } from './key-reads';
import { removeTree } from './key-moves';

/** Bodies up to this size are written from memory in one write, Stats by fstat (set.json, consent records; bench scenario 2). */
const SMALL_WRITE_MAX_BYTES = 1024 * 1024;

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
 * The copies LocalFolder.warmExtensions begins, by key, until its extendAtomic takes them or it
 * is closed.
 */
export class WarmCopies {
  private readonly copies = new Map<string, Promise<ExtensionCopy | null>>();

  /**
   * Copies the files at `keys` (under `root`) into `tmpDir` for extendAtomic, one after the other
   * (in the order the end of a sync extends them) and after `after` (the removal of the versions
   * the last sync kept), while the sync goes on: at a million files the five index files are
   * 776 MB, and their copies took most of the end of a sync that brings 10 new sets
   * (croissant.json's 355 MB alone 0.75-0.9 s here, nearly all of it the kernel's memcpy).
   * extendAtomic takes a copy only if the file it copied is still the one expected, unchanged;
   * otherwise it copies again. A key already being copied is not copied twice.
   */
  begin(root: string, keys: readonly string[], tmpDir: string, after: Promise<unknown>): void {
    let previous: Promise<unknown> = after;
    for (const key of keys) {
      checkKey(key);
      if (this.copies.has(key)) continue;
      const copy = previous.then(() => copyForExtension(keyPath(root, key), tmpDir)).catch(() => null);
      this.copies.set(key, copy);
      previous = copy;
    }
  }

  /** The copy begun for `key`, if any, handed over (extendAtomicFile uses it or removes it). */
  take(key: string): Promise<ExtensionCopy | null> | undefined {
    const warm = this.copies.get(key);
    this.copies.delete(key);
    return warm;
  }

  /**
   * Copies no extension took (the sync wrote the file whole, or stopped first): removed now, not
   * left for the next sync's lock, since they may be hundreds of MB.
   */
  async removeUnused(): Promise<void> {
    const unused = [...this.copies.values()];
    this.copies.clear();
    for (const copy of await Promise.all(unused)) if (copy) await removeTree(copy.tmp).catch(() => undefined);
  }
}
