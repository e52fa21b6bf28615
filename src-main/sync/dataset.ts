// The dataset files under DEST (DESIGN 1.1): collection.json, sets/<id>/set.json (pseudonymous),
// manifest.csv and SHA256SUMS (rewritten atomically, listing exactly the verified files present).
import { randomBytes } from 'node:crypto';
import { lstatSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { CollectionDetail, SetRecord } from '../../src-shared/delivery-api';
import { writeJsonAtomic, writeJsonAtomicSync } from './atomic';
import { scratchDir, setDir } from './layout';
import { ensureRealDir } from './safe-dirs';
import type { LocalSet } from './set-store';
import type { FileFingerprint, IndexFingerprint } from './state';

export const MANIFEST_COLUMNS = [
  'set_id',
  'slot_index',
  'slot_key',
  'path',
  'size_bytes',
  'sha256',
  'participant_refs',
  'is_gold',
  'accepted_at',
  'updated_at',
  'downloaded_at',
] as const;

/**
 * The set as stored under DEST. Built field by field from known fields (never spread) so that
 * signer names, and anything personal the service might add later, stay out of the dataset.
 */
export function pseudonymousSet(set: SetRecord): Record<string, unknown> {
  return {
    id: set.id,
    status: set.status,
    submitted_at: set.submitted_at,
    accepted_at: set.accepted_at,
    updated_at: set.updated_at,
    is_gold: set.is_gold,
    participants: set.participants.map((p) => {
      const out: Record<string, unknown> = { id: p.id, role: p.role, participant_ref: p.participant_ref };
      if (p.age !== undefined) out.age = p.age;
      if (p.gender !== undefined) out.gender = p.gender;
      if (p.ethnicity !== undefined) out.ethnicity = p.ethnicity;
      if (p.skin_tone !== undefined) out.skin_tone = p.skin_tone;
      out.quota_group = { group: p.quota_group.group, value: p.quota_group.value, label: p.quota_group.label };
      out.consent = p.consent === null ? null : { id: p.consent.id, version: p.consent.version, signed_at: p.consent.signed_at };
      return out;
    }),
    files: set.files.map((f) => ({
      id: f.id,
      slot_index: f.slot_index,
      slot_key: f.slot_key,
      filename: f.filename,
      content_type: f.content_type,
      size_bytes: f.size_bytes,
      sha256: f.sha256,
      media: { width: f.media.width, height: f.media.height, fps: f.media.fps, duration: f.media.duration, codec: f.media.codec },
      check_status: f.check_status,
    })),
  };
}

export async function writeSetJson(dest: string, set: SetRecord, checkedDirs?: Set<string>): Promise<void> {
  // Part by part with lstat: a symlinked sets/ or sets/<id> must not take the set's files elsewhere.
  // Only sets/ is remembered in `checkedDirs`: each set folder is visited once per sync, so
  // remembering those too would only make memory grow with the set count.
  const setsDir = await ensureRealDir(dest, path.relative(dest, path.dirname(setDir(dest, set.id))), checkedDirs);
  const dir = await ensureRealDir(setsDir, String(set.id));
  // Synchronous: a small file per set, thousands per sync (bench scenario 2).
  writeJsonAtomicSync(path.join(dir, 'set.json'), pseudonymousSet(set), 0o644, scratchDir(dest));
}

export async function writeCollectionJson(dest: string, collection: CollectionDetail): Promise<void> {
  await writeJsonAtomic(path.join(dest, 'collection.json'), collection, 0o644, scratchDir(dest));
}

export function participantRefs(set: SetRecord): string {
  return [...set.participants]
    .sort((a, b) => (a.role < b.role ? -1 : a.role > b.role ? 1 : 0))
    .map((p) => p.participant_ref)
    .join(';');
}

export function csvField(v: string | number | boolean | null): string {
  const s = v === null ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Rows buffered per write: keeps the strings held at once small whatever the file count. */
const INDEX_BATCH_ROWS = 2000;

/**
 * Writes manifest.csv and SHA256SUMS atomically (temp files under DEST/.dataset-sync/tmp, then
 * rename), streamed in batches of rows. `sets` come in set-id order (SetStore.all) and rows are
 * sorted by slot within a set, so the files are stable across syncs. Returns their size and
 * mtime as renamed, so a later sync can tell they are still exactly what we wrote.
 */
export async function writeManifestAndSums(dest: string, sets: Iterable<LocalSet>): Promise<IndexFingerprint> {
  const tag = randomBytes(4).toString('hex');
  const manifestTmp = path.join(scratchDir(dest), `.manifest.csv.${tag}.tmp`);
  const sumsTmp = path.join(scratchDir(dest), `.SHA256SUMS.${tag}.tmp`);
  const manifestPath = path.join(dest, 'manifest.csv');
  const sumsPath = path.join(dest, 'SHA256SUMS');
  const csvFh = await fs.open(manifestTmp, 'wx', 0o644);
  let sumsFh;
  try {
    sumsFh = await fs.open(sumsTmp, 'wx', 0o644);
    let csv = MANIFEST_COLUMNS.join(',') + '\n';
    let sums = '';
    let rows = 0;
    for (const set of sets) {
      const entries = Object.entries(set.files).sort(([, a], [, b]) => a.slotIndex - b.slotIndex);
      for (const [rel, f] of entries) {
        csv +=
          [f.setId, f.slotIndex, f.slotKey, rel, f.sizeBytes, f.sha256, f.participantRefs, f.isGold, f.acceptedAt, f.updatedAt, f.downloadedAt]
            .map(csvField)
            .join(',') + '\n';
        sums += `${f.sha256}  ${rel}\n`;
        rows++;
      }
      if (rows >= INDEX_BATCH_ROWS) {
        await csvFh.write(csv);
        await sumsFh.write(sums);
        csv = '';
        sums = '';
        rows = 0;
      }
    }
    if (csv) await csvFh.write(csv);
    if (sums) await sumsFh.write(sums);
    await csvFh.close();
    await sumsFh.close();
    await fs.rename(manifestTmp, manifestPath);
    await fs.rename(sumsTmp, sumsPath);
  } catch (e) {
    await csvFh.close().catch(() => undefined);
    await sumsFh?.close().catch(() => undefined);
    await fs.rm(manifestTmp, { force: true }).catch(() => undefined);
    await fs.rm(sumsTmp, { force: true }).catch(() => undefined);
    throw e;
  }
  const [m, s] = await Promise.all([fs.lstat(manifestPath), fs.lstat(sumsPath)]);
  return { manifest: { size: m.size, mtimeMs: m.mtimeMs }, sums: { size: s.size, mtimeMs: s.mtimeMs } };
}

/** True when manifest.csv and SHA256SUMS are regular files still matching what writeManifestAndSums returned. */
export function indexUnchanged(dest: string, fp: IndexFingerprint | undefined): boolean {
  if (!fp) return false;
  const same = (p: string, f: FileFingerprint): boolean => {
    const st = lstatSync(p, { throwIfNoEntry: false });
    return st !== undefined && st.isFile() && st.size === f.size && st.mtimeMs === f.mtimeMs;
  };
  return same(path.join(dest, 'manifest.csv'), fp.manifest) && same(path.join(dest, 'SHA256SUMS'), fp.sums);
}

/** Parses manifest.csv (as written above) into path -> {sha256, size}; used by verify. */
export function parseManifest(text: string): Array<{ path: string; sha256: string; sizeBytes: number }> {
  const rows = parseCsv(text);
  const header = rows.shift() ?? [];
  const iPath = header.indexOf('path');
  const iSha = header.indexOf('sha256');
  const iSize = header.indexOf('size_bytes');
  if (iPath < 0 || iSha < 0 || iSize < 0) throw new Error('manifest.csv has no path, sha256 or size_bytes column');
  return rows.filter((r) => r.length > 1).map((r) => ({ path: r[iPath] ?? '', sha256: r[iSha] ?? '', sizeBytes: Number(r[iSize]) }));
}

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else if (c !== '\r') field += c;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
