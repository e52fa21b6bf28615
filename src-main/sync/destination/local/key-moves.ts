// Removal and moves of the folder's keys, removal of the whole folder, and its free space, for
// LocalFolder (local-folder.ts). A link is removed or moved as the link, never followed; a move's
// target folders are made part by part and checked (safe-dirs.ts ensureRealDir), so a link planted
// there never takes the file elsewhere.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ensureRealDir } from './safe-dirs';
import { code, keyPath } from './key-reads';

/** Removes the object at `key` (a link as the link); absent is fine. */
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
