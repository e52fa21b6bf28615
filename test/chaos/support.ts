// Shared checks of the chaos and security tests: a seeded random source, and invariants of a
// dataset folder that must hold at every instant (after a crash too), not only after a sync.
import { createHash } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { parseManifest } from '../../src-main/sync/dataset';
import { createPrng } from '../../src-service/prng';
import { listFiles, servedSets, type Service } from '../engine/helpers';

/** Seeded, so kill moments are reproducible: the reference service's own generator. */
export const seededRandom = createPrng;

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

export async function exists(p: string): Promise<boolean> {
  return fs.lstat(p).then(
    () => true,
    () => false,
  );
}

/** path relative to DEST -> sha256, for every file the service serves as accepted in the collection. */
export async function servedFileHashes(svc: Service, collectionId: number): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const s of await servedSets(svc, collectionId)) for (const f of s.files) out.set(`sets/${s.id}/${f.filename}`, f.sha256);
  return out;
}

/**
 * Invariants that must hold whenever no sync is running, even right after a SIGKILL:
 * - DEST holds only collection.json, manifest.csv, SHA256SUMS, participants.csv, croissant.json, media.csv, sets/ and .dataset-sync/;
 * - croissant.json, when present, is whole JSON; participants.csv ends with a newline (written whole);
 * - every media file under sets/ is a served file with exactly the served bytes (nothing partial under a final name);
 * - manifest.csv and SHA256SUMS, when present, parse completely, agree with each other, and
 *   every file they list exists and matches its listed sha256.
 * Returns the number of verified media files under sets/.
 */
export async function checkDatasetInvariants(dest: string, served: Map<string, string>): Promise<number> {
  const media = (await listFiles(path.join(dest, 'sets'))).filter((f) => !f.endsWith('/set.json')).map((f) => `sets/${f}`);
  for (const rel of media) {
    const want = served.get(rel);
    if (want === undefined) throw new Error(`${rel} is under sets/ but is not a served file`);
    const got = await sha256File(path.join(dest, rel));
    if (got !== want) throw new Error(`${rel} under its final name does not match its sha256 (partial or corrupt)`);
  }
  for (const f of await listFiles(path.join(dest, 'sets'))) {
    if (f.endsWith('/set.json')) JSON.parse(await fs.readFile(path.join(dest, 'sets', f), 'utf8'));
  }

  // Nothing but the layout's own entries at the top of DEST (no temp file left by a crash mid-write).
  const top = await fs.readdir(dest).catch(() => [] as string[]);
  for (const name of top) {
    if (!['collection.json', 'manifest.csv', 'SHA256SUMS', 'participants.csv', 'croissant.json', 'media.csv', 'sets', '.dataset-sync'].includes(name)) throw new Error(`unexpected ${name} at the top of DEST`);
  }
  if (top.includes('collection.json')) JSON.parse(await fs.readFile(path.join(dest, 'collection.json'), 'utf8'));
  if (top.includes('croissant.json')) JSON.parse(await fs.readFile(path.join(dest, 'croissant.json'), 'utf8'));
  if (top.includes('participants.csv') && !(await fs.readFile(path.join(dest, 'participants.csv'), 'utf8')).endsWith('\n')) throw new Error('participants.csv is cut short (no final newline)');

  const manifestPath = path.join(dest, 'manifest.csv');
  const sumsPath = path.join(dest, 'SHA256SUMS');
  const haveManifest = await exists(manifestPath);
  const haveSums = await exists(sumsPath);
  if (haveManifest !== haveSums) throw new Error('manifest.csv and SHA256SUMS must appear together');
  if (haveManifest) {
    const manifestText = await fs.readFile(manifestPath, 'utf8');
    if (manifestText !== '' && !manifestText.endsWith('\n')) throw new Error('manifest.csv is cut short (no final newline)');
    const rows = parseManifest(manifestText);
    const sumsText = await fs.readFile(sumsPath, 'utf8');
    if (sumsText !== '' && !sumsText.endsWith('\n')) throw new Error('SHA256SUMS is cut short (no final newline)');
    const sums = sumsText
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => {
        const m = /^([0-9a-f]{64}) {2}(sets\/\d+\/[^/]+)$/.exec(l);
        if (!m) throw new Error(`SHA256SUMS line is not "<sha256>  sets/<id>/<name>": ${JSON.stringify(l)}`);
        return { sha256: m[1]!, path: m[2]! };
      });
    if (rows.length !== sums.length) throw new Error(`manifest.csv lists ${rows.length} files, SHA256SUMS ${sums.length}`);
    for (const [i, row] of rows.entries()) {
      if (row.path !== sums[i]!.path || row.sha256 !== sums[i]!.sha256) throw new Error(`manifest.csv row ${i + 1} and SHA256SUMS disagree`);
      if (!/^[0-9a-f]{64}$/.test(row.sha256) || !Number.isSafeInteger(row.sizeBytes)) throw new Error(`manifest.csv row ${i + 1} is not whole`);
      const abs = path.join(dest, row.path);
      const st = await fs.stat(abs).catch(() => null);
      if (!st?.isFile()) throw new Error(`${row.path} is listed but missing`);
      if (st.size !== row.sizeBytes) throw new Error(`${row.path} has ${st.size} bytes, listed ${row.sizeBytes}`);
      if ((await sha256File(abs)) !== row.sha256) throw new Error(`${row.path} does not match its listed sha256`);
    }
  }
  return media.length;
}
