// The one place the app asks "is this a verified file of this dataset, and where is it?" for
// previews and playback. Today it answers from manifest.csv (written atomically by the engine,
// listing exactly the verified files present); when the engine's store offers a lookup by set
// and file, only this module changes. Nothing here trusts a path from a request: the set id and
// file name are looked up in the listing, and only the listing's own path is opened.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parseManifest } from '../../sync/dataset';
import { relFilePath } from '../../sync/layout';

export interface VerifiedFile {
  setId: number;
  filename: string;
  /** Relative to DEST, as in manifest.csv ("sets/12/set_12_slot_01.mp4"). */
  relPath: string;
  absPath: string;
  sizeBytes: number;
  sha256: string;
}

/** Why a file is not served; the protocol answers 404 for every one (nothing to learn from the difference). */
export type RefusalReason = 'bad_name' | 'not_listed' | 'missing' | 'not_regular' | 'outside' | 'changed' | 'no_manifest';

export type Lookup = { ok: true; file: VerifiedFile } | { ok: false; reason: RefusalReason };

interface ManifestIndex {
  stamp: string;
  byPath: Map<string, { sha256: string; sizeBytes: number }>;
}

// One parsed manifest per dataset folder, reused while manifest.csv is unchanged (a video's
// Range requests come many a second; a 10,000-set manifest takes tens of ms to parse).
const cache = new Map<string, ManifestIndex>();

/** A file name as the engine writes it (names.ts checked it): one path part, no separators, no dot-only names. */
export function isPlainFileName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && name !== '.' && name !== '..' && !/[\\/\0]/.test(name) && !path.isAbsolute(name);
}

async function manifestIndex(dest: string): Promise<ManifestIndex | null> {
  const file = path.join(dest, 'manifest.csv');
  const info = await fs.stat(file).catch(() => null);
  if (!info) return null;
  const stamp = `${info.size}:${info.mtimeMs}`;
  const known = cache.get(dest);
  if (known?.stamp === stamp) return known;
  let rows;
  try {
    rows = parseManifest(await fs.readFile(file, 'utf8'));
  } catch {
    return null; // unreadable until the next sync rewrites it: nothing is served meanwhile
  }
  const index: ManifestIndex = { stamp, byPath: new Map(rows.map((r) => [r.path, { sha256: r.sha256, sizeBytes: r.sizeBytes }])) };
  cache.set(dest, index);
  return index;
}

/**
 * The verified file `filename` of set `setId` in the dataset folder `dest`, or why not: listed
 * in manifest.csv, a regular file (not a symlink) whose real path is inside DEST, with the size
 * it was verified at (bytes changed since, as far as a stat can tell, are refused).
 */
export async function findVerifiedFile(dest: string, setId: number, filename: string): Promise<Lookup> {
  if (!Number.isSafeInteger(setId) || setId < 1 || !isPlainFileName(filename)) return { ok: false, reason: 'bad_name' };
  const index = await manifestIndex(dest);
  if (!index) return { ok: false, reason: 'no_manifest' };
  const relPath = relFilePath(setId, filename);
  const listed = index.byPath.get(relPath);
  if (!listed) return { ok: false, reason: 'not_listed' };
  const absPath = path.join(dest, ...relPath.split('/'));
  const info = await fs.lstat(absPath).catch(() => null);
  if (!info) return { ok: false, reason: 'missing' };
  if (!info.isFile()) return { ok: false, reason: 'not_regular' };
  // A symlinked parent (sets/12 -> elsewhere) would pass the lstat above: compare real paths.
  const [realDest, realFile] = await Promise.all([fs.realpath(dest).catch(() => null), fs.realpath(absPath).catch(() => null)]);
  if (!realDest || !realFile || !realFile.startsWith(realDest + path.sep)) return { ok: false, reason: 'outside' };
  if (info.size !== listed.sizeBytes) return { ok: false, reason: 'changed' };
  return { ok: true, file: { setId, filename, relPath, absPath, sizeBytes: listed.sizeBytes, sha256: listed.sha256 } };
}
