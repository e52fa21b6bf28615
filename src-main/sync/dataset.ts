// The dataset files under DEST (docs/contracts.md §1): collection.json, sets/<id>/set.json (pseudonymous),
// manifest.csv and SHA256SUMS (rewritten atomically, listing exactly the verified files present).
import { randomBytes } from 'node:crypto';
import { createWriteStream, lstatSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify, type Options as CsvOptions } from 'csv-stringify';
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
 * What may be copied from a server record into a file under DEST: a plain value (string,
 * number, boolean or null), a list of allowed parts, or an object of named allowed parts.
 * Anything not named here is dropped, never copied, whatever the client let through.
 */
type Allowed = 'value' | readonly [Allowed] | { readonly [field: string]: Allowed };

const isList = (a: Allowed): a is readonly [Allowed] => Array.isArray(a);

/** Picks the allowed parts of `value`; undefined when it is not of the allowed kind (the field is then left out). */
function pickAllowed(value: unknown, allowed: Allowed): unknown {
  if (allowed === 'value') {
    return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
  }
  if (isList(allowed)) return Array.isArray(value) ? value.map((v) => pickAllowed(v, allowed[0])).filter((v) => v !== undefined) : undefined;
  if (value === null) return null; // e.g. a participant's consent
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [field, part] of Object.entries(allowed as Record<string, Allowed>)) {
    if (!Object.hasOwn(value, field)) continue;
    const picked = pickAllowed((value as Record<string, unknown>)[field], part);
    if (picked !== undefined) out[field] = picked;
  }
  return out;
}

// The documented fields (as docs/contracts.md §6 records it), record type by record type.
const V = 'value';

const COLLECTION_FIELDS = {
  id: V,
  title: V,
  status: V,
  price_per_set: V,
  currency: V,
  deadline: V,
  created_at: V,
  spec: {
    modality: V,
    participants_per_set: V,
    slots: [{ index: V, key: V, title: V, description: V }],
    media_rules: { min_width: V, min_height: V, min_fps: V, min_duration: V, max_duration: V, formats: [V] },
    participant_fields: [V],
    quota_field: V,
    consent_version: V,
    recruitment_status: V,
  },
  quotas: [{ group: V, value: V, label: V, target: V, accepted: V, reserved: V, available: V, status: V }],
  sets: { accepted: V, in_review: V, in_progress: V },
} as const satisfies Allowed;

/** Pseudonymous: a consent is named by id, version and date; its signer_name (a real name) and url stay out. */
const PARTICIPANT_FIELDS = {
  id: V,
  role: V,
  participant_ref: V,
  age: V,
  gender: V,
  ethnicity: V,
  skin_tone: V,
  quota_group: { group: V, value: V, label: V },
  consent: { id: V, version: V, signed_at: V },
} as const satisfies Allowed;

/** The file's url is an address of the service, not part of the dataset. */
const FILE_FIELDS = {
  id: V,
  slot_index: V,
  slot_key: V,
  filename: V,
  content_type: V,
  size_bytes: V,
  sha256: V,
  media: { width: V, height: V, fps: V, duration: V, codec: V },
  check_status: V,
} as const satisfies Allowed;

const SET_FIELDS = {
  id: V,
  status: V,
  submitted_at: V,
  accepted_at: V,
  updated_at: V,
  is_gold: V,
  participants: [PARTICIPANT_FIELDS],
  files: [FILE_FIELDS],
} as const satisfies Allowed;

/** collection.json: the collection detail's documented fields only. */
export function datasetCollection(collection: CollectionDetail): Record<string, unknown> {
  return pickAllowed(collection, COLLECTION_FIELDS) as Record<string, unknown>;
}

/** set.json: the set's documented fields only, pseudonymous (no signer names, nothing the service adds later). */
export function pseudonymousSet(set: SetRecord): Record<string, unknown> {
  return pickAllowed(set, SET_FIELDS) as Record<string, unknown>;
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
  await writeJsonAtomic(path.join(dest, 'collection.json'), datasetCollection(collection), 0o644, scratchDir(dest));
}

export function participantRefs(set: SetRecord): string {
  return [...set.participants]
    .sort((a, b) => (a.role < b.role ? -1 : a.role > b.role ? 1 : 0))
    .map((p) => p.participant_ref)
    .join(';');
}

/**
 * Cells a spreadsheet would evaluate as a formula: those starting with = + - @ tab or CR (and
 * their full-width forms, which some spreadsheets fold to ASCII). OWASP's CSV-injection
 * guidance: prefix such a cell with ' and quote it. Every cell is treated alike, numbers
 * included: no manifest column holds a negative number (ids, slot indexes and sizes are
 * validated), so a leading "-" only ever comes from a server string such as a slot_key.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * manifest.csv is written by csv-stringify: `escape_formulas` adds the ' prefix, and
 * `quoted_match` quotes those cells and any holding a ";" (a spreadsheet in a locale whose
 * separator is ";" would otherwise split the cell there and could start a formula at the split).
 */
const MANIFEST_CSV_OPTIONS: CsvOptions = {
  header: true,
  columns: [...MANIFEST_COLUMNS],
  escape_formulas: true,
  quoted_match: [FORMULA_START, ';'],
};

/**
 * Bumped when the bytes written for the same rows change (2: csv-stringify with neutralised
 * cells), so a dataset indexed by an older version gets its manifest rewritten once.
 */
const MANIFEST_FORMAT = 2;

/** Every cell as a string, so the formula rule above applies to each cell the same way. */
function manifestRow(rel: string, f: LocalSet['files'][string]): string[] {
  return [f.setId, f.slotIndex, f.slotKey, rel, f.sizeBytes, f.sha256, f.participantRefs, f.isGold, f.acceptedAt, f.updatedAt, f.downloadedAt].map((v) =>
    v === null ? '' : String(v),
  );
}

/** SHA256SUMS text buffered per write: keeps the strings held at once small whatever the file count. */
const SUMS_BATCH_CHARS = 256 * 1024;

/**
 * Writes manifest.csv and SHA256SUMS atomically (temp files under DEST/.dataset-sync/tmp, then
 * rename), streamed: the CSV rows flow through csv-stringify into the file with back-pressure,
 * SHA256SUMS is written in batches. `sets` come in set-id order (SetStore.all) and rows are
 * sorted by slot within a set, so the files are stable across syncs. Returns their size and
 * mtime as renamed, so a later sync can tell they are still exactly what we wrote.
 */
export async function writeManifestAndSums(dest: string, sets: Iterable<LocalSet>): Promise<IndexFingerprint> {
  const tag = randomBytes(4).toString('hex');
  const manifestTmp = path.join(scratchDir(dest), `.manifest.csv.${tag}.tmp`);
  const sumsTmp = path.join(scratchDir(dest), `.SHA256SUMS.${tag}.tmp`);
  const manifestPath = path.join(dest, 'manifest.csv');
  const sumsPath = path.join(dest, 'SHA256SUMS');
  let sumsFh;
  try {
    sumsFh = await fs.open(sumsTmp, 'wx', 0o644);
    const sumsOut = sumsFh;
    async function* rows(): AsyncGenerator<string[]> {
      let sums = '';
      for (const set of sets) {
        const entries = Object.entries(set.files).sort(([, a], [, b]) => a.slotIndex - b.slotIndex);
        for (const [rel, f] of entries) {
          yield manifestRow(rel, f);
          sums += `${f.sha256}  ${rel}\n`;
        }
        if (sums.length >= SUMS_BATCH_CHARS) {
          await sumsOut.write(sums);
          sums = '';
        }
      }
      if (sums) await sumsOut.write(sums);
    }
    // 'wx': the temp name is fresh; never write through something planted under it.
    await pipeline(Readable.from(rows()), stringify(MANIFEST_CSV_OPTIONS), createWriteStream(manifestTmp, { flags: 'wx', mode: 0o644 }));
    await sumsFh.close();
    sumsFh = undefined;
    await fs.rename(manifestTmp, manifestPath);
    await fs.rename(sumsTmp, sumsPath);
  } catch (e) {
    await sumsFh?.close().catch(() => undefined);
    await fs.rm(manifestTmp, { force: true }).catch(() => undefined);
    await fs.rm(sumsTmp, { force: true }).catch(() => undefined);
    throw e;
  }
  const [m, s] = await Promise.all([fs.lstat(manifestPath), fs.lstat(sumsPath)]);
  return { manifest: { size: m.size, mtimeMs: m.mtimeMs }, sums: { size: s.size, mtimeMs: s.mtimeMs }, manifestFormat: MANIFEST_FORMAT };
}

/** True when manifest.csv and SHA256SUMS are regular files still matching what writeManifestAndSums returned. */
export function indexUnchanged(dest: string, fp: IndexFingerprint | undefined): boolean {
  if (!fp || fp.manifestFormat !== MANIFEST_FORMAT) return false;
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
