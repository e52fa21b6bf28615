// `verify`: re-hashes every file listed in manifest.csv and reports missing, changed and extra
// files (files under sets/ that the manifest does not list; set.json files are ours, not extra).
// Only regular files are read: anything else in a listed file's place is reported as changed.
import { lstatSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { parseManifest } from './dataset';
import type { VerifyReport } from '../../src-shared/sync-events';
import { hashRegularFile, NotRegularFileError, readRegularFile } from './regular-file';

/**
 * Whether every folder between DEST and `rel` is a real folder or missing (lstat: no link leads
 * out of DEST; a missing one makes the file missing). `checked` remembers answers per folder: a
 * set's files share one.
 */
function inRealFolders(root: string, rel: string, checked: Map<string, boolean>): boolean {
  let dir = root;
  for (const part of rel.split('/').slice(0, -1)) {
    dir = path.join(dir, part);
    let real = checked.get(dir);
    if (real === undefined) {
      const st = lstatSync(dir, { throwIfNoEntry: false });
      real = st === undefined || st.isDirectory();
      checked.set(dir, real);
    }
    if (!real) return false;
  }
  return true;
}

async function listSetFiles(dest: string): Promise<string[]> {
  const out: string[] = [];
  const setsDir = path.join(dest, 'sets');
  let setDirs: string[];
  try {
    if (lstatSync(setsDir).isSymbolicLink()) return ['sets'];
    setDirs = await fs.readdir(setsDir);
  } catch {
    return out;
  }
  for (const d of setDirs) {
    // A set folder swapped for a link (or a file) is not ours to list through: it is extra itself.
    if (lstatSync(path.join(setsDir, d), { throwIfNoEntry: false })?.isDirectory() !== true) {
      out.push(`sets/${d}`);
      continue;
    }
    let names: string[];
    try {
      names = await fs.readdir(path.join(setsDir, d));
    } catch {
      out.push(`sets/${d}`);
      continue;
    }
    for (const n of names) if (n !== 'set.json') out.push(`sets/${d}/${n}`);
  }
  return out;
}

/** Where a verify is, after each file: counts and manifest sizes of the files checked (missing ones included). */
export interface VerifyStep {
  bytesChecked: number;
  bytesTotal: number;
  /** Bytes actually read and hashed so far (the report's bytesHashed). */
  bytesHashed: number;
}

/**
 * `signal`: aborting stops before the next file (the promise rejects with the signal's reason);
 * verify only reads, so nothing is left half-done.
 */
export async function verifyDataset(dest: string, onProgress?: (checked: number, total: number, step: VerifyStep) => void, signal?: AbortSignal): Promise<VerifyReport> {
  const root = path.resolve(dest);
  const text = await readRegularFile(path.join(root, 'manifest.csv'));
  const rows = parseManifest(text);
  const step: VerifyStep = { bytesChecked: 0, bytesTotal: rows.reduce((n, r) => n + r.sizeBytes, 0), bytesHashed: 0 };
  const report: VerifyReport = { dest: root, filesChecked: 0, ok: 0, missing: [], changed: [], extra: [], bytesHashed: 0 };
  const listed = new Set<string>();
  const realFolders = new Map<string, boolean>();
  for (const row of rows) {
    signal?.throwIfAborted();
    step.bytesChecked += row.sizeBytes;
    listed.add(row.path);
    // The manifest is a local file a user could edit: never follow a path out of DEST.
    const abs = path.resolve(root, row.path);
    if (!abs.startsWith(root + path.sep) || !row.path.startsWith('sets/')) {
      report.changed.push(row.path);
      continue;
    }
    report.filesChecked++;
    try {
      // Only regular files are read (regular-file.ts): a link, FIFO or device in place of a
      // listed file, or in place of a folder on its way, is reported as changed.
      if (!inRealFolders(root, row.path, realFolders)) throw new NotRegularFileError(abs, 'below a folder that is not a real folder');
      const { sha256, bytes } = await hashRegularFile(abs, row.sizeBytes);
      report.bytesHashed += bytes;
      if (sha256 === row.sha256) report.ok++;
      else report.changed.push(row.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') report.missing.push(row.path);
      else report.changed.push(row.path);
    }
    step.bytesHashed = report.bytesHashed;
    onProgress?.(report.filesChecked, rows.length, step);
  }
  for (const f of await listSetFiles(root)) if (!listed.has(f)) report.extra.push(f);
  return report;
}
