// Folders below DEST are created part by part and each part is checked with lstat: a symbolic
// link planted inside DEST (sets/<id> -> /elsewhere, .dataset-sync/partial -> /elsewhere) must
// never lead a sync to write outside the dataset folder.
import { promises as fs, realpath } from 'node:fs';
import { promisify } from 'node:util';
import path from 'node:path';
import { partialDir, replacedDir, scratchDir } from '../../layout';

/** realpath(3), as realpathSync.native was, on the thread pool. */
const realpathNative = promisify(realpath.native);

export class UnsafeFolderError extends Error {
  readonly code = 'EUNSAFEDIR';
  constructor(readonly path: string, what: string) {
    super(`${path} is ${what}; refusing to follow it out of the dataset folder (remove it and sync again)`);
    this.name = 'UnsafeFolderError';
  }
}

/**
 * Creates `rel` (relative, server-free parts only) below `root`; every part must be a real folder. Returns the absolute path.
 * `checked` (optional, one per sync) remembers folders already made and checked in this sync, so
 * thousands of sets do not re-walk sets/ part by part for every write (bench scenario 2).
 * `made` (optional) hears of each folder this call created (it was not there before).
 */
export async function ensureRealDir(root: string, rel: string, checked?: Set<string>, made?: (dir: string) => void): Promise<string> {
  let current = root;
  for (const part of rel.split(/[\\/]+/).filter((p) => p !== '')) {
    current = path.join(current, part);
    if (checked?.has(current)) continue;
    // Asynchronous calls only: creating a folder cost ~0.5 ms of kernel time here (ext4), which
    // would block the event loop; the lstat below is rare (only for folders already there).
    let created = true;
    try {
      await fs.mkdir(current);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      created = false;
    }
    // A folder mkdir just made is a real folder (mkdir never follows a final symlink: that is
    // EEXIST); only something already there needs the lstat check.
    if (created) made?.(current);
    else {
      const st = await fs.lstat(current);
      if (st.isSymbolicLink()) throw new UnsafeFolderError(current, 'a symbolic link');
      if (!st.isDirectory()) throw new UnsafeFolderError(current, 'not a folder');
    }
    checked?.add(current);
  }
  return current;
}

/** The error for a folder found not to be a real folder on a key's way (`dir`: what the file writer's lstat check named). */
export async function unsafeFolderError(dir: string): Promise<UnsafeFolderError> {
  const st = await fs.lstat(dir).catch(() => undefined);
  return new UnsafeFolderError(dir, st === undefined || st.isSymbolicLink() ? 'a symbolic link' : 'not a folder');
}

/** Empties DEST/.dataset-sync/tmp (temp files a killed sync left behind); call with the lock held. */
export async function resetScratchDir(dest: string): Promise<void> {
  // Checked (a link in its place is refused, never followed), then emptied in place: the folder
  // itself stays, so a sync still in prepare() (before the lock) never finds it gone
  // (lock-race.test.ts: a loser that checked tmp/ while the winner removed it failed with ENOENT
  // instead of "locked").
  const dir = await ensureRealDir(dest, path.relative(dest, scratchDir(dest)));
  for (const name of await fs.readdir(dir)) await fs.rm(path.join(dir, name), { recursive: true, force: true });
}

/**
 * Makes a dataset folder usable (LocalFolder.prepare): the folder itself (and its parents), then
 * .dataset-sync/, its partial/, tmp/ and replaced/ folders part by part with lstat, so a symlinked
 * .dataset-sync or partial folder never takes our writes elsewhere. Returns the folder's real path.
 */
export async function prepareDatasetFolder(root: string): Promise<string> {
  await fs.mkdir(root, { recursive: true });
  const checked = new Set<string>(); // .dataset-sync is made and checked once for both
  await ensureRealDir(root, path.relative(root, partialDir(root)), checked);
  await ensureRealDir(root, path.relative(root, scratchDir(root)), checked);
  await ensureRealDir(root, path.relative(root, replacedDir(root)), checked);
  return realpathNative(root);
}

/** The real path of `p` now (links resolved). */
export function realPathNow(p: string): Promise<string> {
  return realpathNative(p);
}
