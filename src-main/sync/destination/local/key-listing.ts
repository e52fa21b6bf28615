// Listing of the folder's keys (Destination.list), for LocalFolder (local-folder.ts): a walk of
// real folders in key order; what is not a regular file is listed with a stamp that never matches
// a recorded one, and never followed (a set folder swapped for a link is one such entry).
import { lstatSync, promises as fs, type Stats } from 'node:fs';
import type { ObjectInfo } from '../destination';
import { code, folderInTheWay, infoOf, keyPath } from './key-reads';

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
