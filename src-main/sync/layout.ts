// Where things live on disk (docs/contracts.md §1). Every path part taken from the server has been
// checked by names.ts before it reaches these helpers.
import path from 'node:path';

/** The folder beside `dest` (resolved) with `suffix` added to its name: `DEST.consents`, `DEST.withdrawn`. */
export function siblingFolder(dest: string, suffix: string): string {
  const abs = path.resolve(dest);
  return path.join(path.dirname(abs), `${path.basename(abs)}${suffix}`);
}

export function defaultConsentsDir(dest: string): string {
  return siblingFolder(dest, '.consents');
}

export const STATE_DIR = '.dataset-sync';

export function stateDir(dest: string): string {
  return path.join(dest, STATE_DIR);
}

// Part files are DEST/.dataset-sync/partial/<resumeKey>.part (destination/local/part-upload.ts),
// the resume key `${setId}-${fileId}-${sha256}` (file-download.ts resumeKeyOf).

/** Temp files of atomic writes under DEST; emptied at the start of every sync (a crash may leave some). */
export function scratchDir(dest: string): string {
  return path.join(dest, STATE_DIR, 'tmp');
}

/**
 * The previous versions of the index files a sync extended (manifest.csv, SHA256SUMS...): a hard
 * link to each, kept so the rename over it frees no blocks in that sync's time; the next sync
 * removes them (destination/local/replaced.ts).
 */
export function replacedDir(dest: string): string {
  return path.join(dest, STATE_DIR, 'replaced');
}

export function partialDir(dest: string): string {
  return path.join(dest, STATE_DIR, 'partial');
}

/** Relative to DEST, with forward slashes as in manifest.csv and SHA256SUMS. */
export function relFilePath(setId: number, filename: string): string {
  return `sets/${setId}/${filename}`;
}
