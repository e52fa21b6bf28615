// Paths of keys under a folder, joined by string concatenation instead of path.join. The inputs
// need no normalising: the root is absolute and normalised (createLocalFolder resolves it; a real
// root comes from realpath, a temp folder from path.join) and a key keeps the key rules
// (key-rules.ts: no empty, '.' or '..' segment, no backslash): LocalFolder checks every key it is
// given, and the disk check's keys are the engine's own records (relFilePath of checked names). path.join's normalising pass
// cost about 2 us a call here, several calls per small file and one per file of the disk check.
import path from 'node:path';

/** `root` followed by `rel`, a relative '/'-separated path that keeps the key rules. */
export function pathUnder(root: string, rel: string): string {
  const base = root.endsWith(path.sep) ? root : root + path.sep;
  return base + (path.sep === '/' ? rel : rel.replaceAll('/', path.sep));
}

/** Every folder from `root` down to `root/dirParts...`, outermost first (the folders a commit checks). */
export function foldersDown(root: string, dirParts: readonly string[]): string[] {
  const folders: string[] = [];
  let at = root;
  for (const part of dirParts) folders.push((at = pathUnder(at, part)));
  return folders;
}

/** A small object's commit through the file writer: the folders it checks around the rename, and its target path. */
export function commitPaths(realRoot: string, dirParts: readonly string[], name: string): { folders: string[]; target: string } {
  const folders = foldersDown(realRoot, dirParts);
  return { folders, target: pathUnder(folders.at(-1) ?? realRoot, name) };
}
