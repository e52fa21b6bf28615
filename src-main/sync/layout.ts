// Where things live on disk (docs/contracts.md §1). Every path part taken from the server has been
// checked by names.ts before it reaches these helpers.
import path from 'node:path';

export function defaultConsentsDir(dest: string): string {
  const abs = path.resolve(dest);
  return path.join(path.dirname(abs), `${path.basename(abs)}.consents`);
}

export const STATE_DIR = '.dataset-sync';

export function stateDir(dest: string): string {
  return path.join(dest, STATE_DIR);
}

/** Temp files of atomic writes under DEST; emptied at the start of every sync (a crash may leave some). */
export function scratchDir(dest: string): string {
  return path.join(dest, STATE_DIR, 'tmp');
}

export function partialDir(dest: string): string {
  return path.join(dest, STATE_DIR, 'partial');
}

/** Relative to DEST, with forward slashes as in manifest.csv and SHA256SUMS. */
export function relFilePath(setId: number, filename: string): string {
  return `sets/${setId}/${filename}`;
}

export function setDir(dest: string, setId: number): string {
  return path.join(dest, 'sets', String(setId));
}

/**
 * A partial download is keyed by set id, file id and expected hash: an edited file never resumes
 * on old bytes, and two transfers never share a part file (a file id listed in two sets gets two;
 * the same id twice in one set fails the set, collisions.ts).
 */
export function partialPath(dest: string, setId: number, fileId: number, sha256: string): string {
  return path.join(partialDir(dest), `${setId}-${fileId}-${sha256}.part`);
}

/** The part file name before set ids were part of it: claimed (by rename, so by one transfer only) to resume after an upgrade. */
export function legacyPartialPath(dest: string, fileId: number, sha256: string): string {
  return path.join(partialDir(dest), `${fileId}-${sha256}.part`);
}
