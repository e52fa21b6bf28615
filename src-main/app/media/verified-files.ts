// The one place the app asks "is this a verified file of this dataset, and where is it?" for
// previews and playback. It asks the engine's store (state.db) for the one file: a record there
// is a file the engine verified, with the size and sha256 it was verified at; nothing reads
// manifest.csv per request. Nothing here trusts a path from a request: the set id and file name
// are looked up in the records, and only the recorded path is opened.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { queryState, relFilePath, stateDir } from '../../sync/engine';

export interface VerifiedFile {
  setId: number;
  filename: string;
  /** Relative to DEST, as the engine records it ("sets/12/set_12_slot_01.mp4"). */
  relPath: string;
  absPath: string;
  sizeBytes: number;
  sha256: string;
}

/** Why a file is not served; the protocol answers 404 for every one (nothing to learn from the difference). */
export type RefusalReason = 'bad_name' | 'not_listed' | 'missing' | 'not_regular' | 'outside' | 'changed';

export type Lookup = { ok: true; file: VerifiedFile } | { ok: false; reason: RefusalReason };

/** A file name as the engine writes it (names.ts checked it): one path part, no separators, no dot-only names. */
export function isPlainFileName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && name !== '.' && name !== '..' && !/[\\/\0]/.test(name) && !path.isAbsolute(name);
}

/** The engine's record of the file at `relPath` (one primary-key seek in state.db); null when none or unreadable. */
function recorded(dest: string, relPath: string): { sha256: string; sizeBytes: number } | null {
  try {
    return queryState(stateDir(dest), (q) => q.filesAt([relPath])[0] ?? null);
  } catch {
    return null; // a damaged state.db: nothing is served until a sync repairs it
  }
}

/**
 * The verified file `filename` of set `setId` in the dataset folder `dest`, or why not: recorded
 * by the engine as verified, a regular file (not a symlink) whose real path is inside DEST, with the size
 * it was verified at (bytes changed since, as far as a stat can tell, are refused).
 */
export async function findVerifiedFile(dest: string, setId: number, filename: string): Promise<Lookup> {
  if (!Number.isSafeInteger(setId) || setId < 1 || !isPlainFileName(filename)) return { ok: false, reason: 'bad_name' };
  const relPath = relFilePath(setId, filename);
  const listed = recorded(dest, relPath);
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
