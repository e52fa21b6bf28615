// `verify`: re-hashes every file listed in manifest.csv and reports missing, changed and extra
// files (files under sets/ that the manifest does not list; set.json files are ours, not extra).
import { createHash } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { parseManifest } from './dataset';
import type { VerifyReport } from '../../src-shared/sync-events';

async function hashFile(file: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

async function listSetFiles(dest: string): Promise<string[]> {
  const out: string[] = [];
  const setsDir = path.join(dest, 'sets');
  let setDirs: string[];
  try {
    setDirs = await fs.readdir(setsDir);
  } catch {
    return out;
  }
  for (const d of setDirs) {
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

export async function verifyDataset(dest: string, onProgress?: (checked: number, total: number) => void): Promise<VerifyReport> {
  const root = path.resolve(dest);
  const text = await fs.readFile(path.join(root, 'manifest.csv'), 'utf8');
  const rows = parseManifest(text);
  const report: VerifyReport = { dest: root, filesChecked: 0, ok: 0, missing: [], changed: [], extra: [], bytesHashed: 0 };
  const listed = new Set<string>();
  for (const row of rows) {
    listed.add(row.path);
    // The manifest is a local file a user could edit: never follow a path out of DEST.
    const abs = path.resolve(root, row.path);
    if (!abs.startsWith(root + path.sep) || !row.path.startsWith('sets/')) {
      report.changed.push(row.path);
      continue;
    }
    report.filesChecked++;
    try {
      const { sha256, bytes } = await hashFile(abs);
      report.bytesHashed += bytes;
      if (sha256 === row.sha256 && bytes === row.sizeBytes) report.ok++;
      else report.changed.push(row.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') report.missing.push(row.path);
      else report.changed.push(row.path);
    }
    onProgress?.(report.filesChecked, rows.length);
  }
  for (const f of await listSetFiles(root)) if (!listed.has(f)) report.extra.push(f);
  return report;
}
