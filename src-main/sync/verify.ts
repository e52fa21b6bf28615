// `verify`: re-hashes every file listed in manifest.csv and reports missing, changed and extra
// files (files under sets/ that the manifest does not list; set.json files are ours, not extra).
// Only regular files are read: anything else in a listed file's place is reported as changed.
import type { VerifyReport } from '../../src-shared/sync-events';
import { parseManifest } from './dataset';
import { DestinationError, type Destination } from './destination/destination';
import { keyProblem } from './destination/key-rules';
import { createLocalFolder } from './destination/local/local-folder';
import { createSha256Stream } from './sha256-stream';

/**
 * Files under sets/ that are not set.json: listed by the destination, never followed (a set
 * folder swapped for a link is listed itself, as `sets/<id>`).
 */
async function listSetFiles(dest: Destination): Promise<string[]> {
  const out: string[] = [];
  for await (const o of dest.list('sets/')) {
    if (/^sets\/[^/]+\/set\.json$/.test(o.key)) continue;
    out.push(o.key);
  }
  return out;
}

/**
 * SHA-256 of the object at `key` when it is `size` bytes: null when it is another size (read
 * nothing) or turned out longer while read (at most size + 1 bytes are read). Throws when it is
 * absent (code ENOENT) or not a regular file (read refuses it).
 */
async function hashObject(dest: Destination, key: string, size: number): Promise<{ sha256: string | null; bytes: number }> {
  const info = await dest.stat(key);
  if (info === null) throw new DestinationError('io', `${key} is not there`, 'ENOENT');
  if (info.size !== size) return { sha256: null, bytes: 0 };
  const hash = createSha256Stream(size, 0);
  let bytes = 0;
  try {
    for await (const chunk of dest.read(key)) {
      const take = Math.min(chunk.length, size + 1 - bytes);
      hash.update(take === chunk.length ? chunk : chunk.subarray(0, take));
      bytes += take;
      if (bytes > size) break;
    }
    return { sha256: bytes === size ? await hash.digest() : null, bytes };
  } finally {
    hash.discard();
  }
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
 * verify only reads, so nothing is left half-done. A destination with no manifest.csv throws
 * DestinationError with code ENOENT.
 */
export async function verifyDataset(dest: Destination, onProgress?: (checked: number, total: number, step: VerifyStep) => void, signal?: AbortSignal): Promise<VerifyReport> {
  const text = await dest.readText('manifest.csv');
  if (text === null) throw new DestinationError('io', `${dest.label} has no manifest.csv`, 'ENOENT');
  const rows = parseManifest(text);
  const step: VerifyStep = { bytesChecked: 0, bytesTotal: rows.reduce((n, r) => n + r.sizeBytes, 0), bytesHashed: 0 };
  const report: VerifyReport = { dest: dest.label, filesChecked: 0, ok: 0, missing: [], changed: [], extra: [], bytesHashed: 0 };
  const listed = new Set<string>();
  for (const row of rows) {
    signal?.throwIfAborted();
    step.bytesChecked += row.sizeBytes;
    listed.add(row.path);
    // The manifest is a file a user could edit: a path that breaks the key rules or lies outside sets/ is never followed.
    if (keyProblem(row.path) !== null || !row.path.startsWith('sets/')) {
      report.changed.push(row.path);
      continue;
    }
    report.filesChecked++;
    try {
      // Only regular files are read (a folder: a link, FIFO or device in place of a listed
      // file, or of a folder on its way, is refused and reported as changed).
      const { sha256, bytes } = await hashObject(dest, row.path, row.sizeBytes);
      report.bytesHashed += bytes;
      if (sha256 === row.sha256) report.ok++;
      else report.changed.push(row.path);
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') report.missing.push(row.path);
      else report.changed.push(row.path);
    }
    step.bytesHashed = report.bytesHashed;
    onProgress?.(report.filesChecked, rows.length, step);
  }
  for (const f of await listSetFiles(dest)) if (!listed.has(f)) report.extra.push(f);
  return report;
}

/** verifyDataset of the dataset folder at `dir` (the CLI and the app verify folders). */
export async function verifyFolder(dir: string, onProgress?: (checked: number, total: number, step: VerifyStep) => void, signal?: AbortSignal): Promise<VerifyReport> {
  const dest = createLocalFolder(dir);
  try {
    return await verifyDataset(dest, onProgress, signal);
  } finally {
    await dest.close();
  }
}
