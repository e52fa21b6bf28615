// The dataset files under DEST (docs/contracts.md §1): collection.json, sets/<id>/set.json (pseudonymous),
// manifest.csv and SHA256SUMS (replaced atomically, listing exactly the verified files present),
// each written whole through Destination.writeAtomic (a folder: temp file + rename), or, when a
// sync only added sets above every set listed, extended by their rows (appendManifestAndSums).
import { hashedAsWritten, ResumableSha256, type TableHash } from './table-hash';
import { csvBody } from './csv-body';
import { datasetCsvText } from './dataset-csv';
import { TEXT_CHUNK_CHARS } from './text-chunk';
import { inRoleOrder } from './participants-file';
import type { CollectionDetail, SetRecord } from '../../src-shared/delivery-api';
import type { Destination, ObjectInfo } from './destination/destination';
import { filesBySlot, type LocalSet, type LocalSets } from './state/records';
import type { FileFingerprint, IndexFingerprint } from './state/head';

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

/** The named parts of each allowed object, listed once: Object.entries per object picked was most of a set.json's cost. */
const fieldsOfAllowed = new WeakMap<object, ReadonlyArray<[string, Allowed]>>();

function allowedFields(allowed: { readonly [field: string]: Allowed }): ReadonlyArray<[string, Allowed]> {
  let fields = fieldsOfAllowed.get(allowed);
  if (fields === undefined) fieldsOfAllowed.set(allowed, (fields = Object.entries(allowed)));
  return fields;
}

/** Picks the allowed parts of `value`; undefined when it is not of the allowed kind (the field is then left out). */
function pickAllowed(value: unknown, allowed: Allowed): unknown {
  if (allowed === 'value') {
    return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
  }
  if (isList(allowed)) {
    if (!Array.isArray(value)) return undefined;
    const out: unknown[] = [];
    for (const v of value) {
      const picked = pickAllowed(v, allowed[0]);
      if (picked !== undefined) out.push(picked);
    }
    return out;
  }
  if (value === null) return null; // e.g. a participant's consent
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [field, part] of allowedFields(allowed as Record<string, Allowed>)) {
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

function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

/**
 * sets/<id>/set.json. A folder makes sets/ and sets/<id> part by part with lstat (a symlinked
 * one must not take the set's files elsewhere) and writes this small file with synchronous calls
 * (thousands per sync, bench scenario 2); the set folder is where the set's files are committed.
 */
export async function writeSetJson(dest: Destination, set: SetRecord): Promise<void> {
  await dest.writeAtomic(setJsonKey(set.id), jsonText(pseudonymousSet(set)));
}

/**
 * sets/<id>/set.json as the dataset holds it, parsed; null when it is missing, unreadable or not
 * JSON. Written by us, but a file on disk: readers check each field they take from it.
 */
export async function readSetJson(dest: Destination, setId: number): Promise<unknown> {
  try {
    const text = await dest.readText(setJsonKey(setId));
    return text === null ? null : (JSON.parse(text) as unknown);
  } catch {
    return null;
  }
}

function setJsonKey(setId: number): string {
  return `sets/${setId}/set.json`;
}

export async function writeCollectionJson(dest: Destination, collection: CollectionDetail): Promise<void> {
  await dest.writeAtomic('collection.json', jsonText(datasetCollection(collection)));
}

export function participantRefs(set: SetRecord): string {
  return inRoleOrder(set.participants)
    .map((p) => p.participant_ref)
    .join(';');
}

/**
 * Bumped when the bytes written for the same rows change (2: csv-stringify with neutralised
 * cells), so a dataset indexed by an older version gets its manifest rewritten once.
 */
const MANIFEST_FORMAT = 2;

/** Every cell as a string, so the formula rule (dataset-csv.ts) applies to each cell the same way. */
function manifestRow(rel: string, f: LocalSet['files'][string]): string[] {
  return [f.setId, f.slotIndex, f.slotKey, rel, f.sizeBytes, f.sha256, f.participantRefs, f.isGold, f.acceptedAt, f.updatedAt, f.downloadedAt].map((v) =>
    v === null ? '' : String(v),
  );
}

/** manifest.csv's bytes, streamed a batch of rows at a time (csv-body.ts). */
function manifestBody(sets: LocalSets): AsyncIterable<Buffer> {
  return csvBody(sets, (set) => filesBySlot(set).map(([rel, f]) => manifestRow(rel, f)), MANIFEST_COLUMNS);
}

/** SHA256SUMS's text in chunks (text-chunk.ts): the strings held at once stay small whatever the file count. */
async function* sumsBody(sets: LocalSets): AsyncGenerator<string> {
  let sums = '';
  for await (const set of sets) {
    for (const [rel, f] of filesBySlot(set)) sums += `${f.sha256}  ${rel}\n`;
    if (sums.length >= TEXT_CHUNK_CHARS) {
      yield sums;
      sums = '';
    }
  }
  if (sums) yield sums;
}

/** What the head state records of an object we wrote: its size and stamp. */
export function fingerprintOf(info: ObjectInfo): FileFingerprint {
  return { size: info.size, stamp: info.stamp };
}

/** manifest.csv as written whole: its fingerprint for the head state, and its bytes' size and SHA-256 (croissant.json names them) with the state that continues it (table-hash.ts). */
export interface ManifestWritten {
  fingerprint: IndexFingerprint;
  manifest: { info: ObjectInfo; hash: TableHash };
}

/**
 * Writes manifest.csv and SHA256SUMS at once, each atomically (Destination.writeAtomic: a folder
 * writes a temp file under DEST/.dataset-sync/tmp, then renames), streamed. `manifestSets` and
 * `sumsSets` give the same records in set-id order (two readers of one SharedPass, or two reads of
 * SetStore.all()); rows are sorted by slot within a set, so the files are stable across syncs.
 * Returns their size and stamp as written, so a later sync can tell they are still exactly what
 * we wrote, and the manifest's SHA-256, hashed as it was written.
 */
export async function writeManifestAndSums(dest: Destination, manifestSets: LocalSets, sumsSets: LocalSets): Promise<ManifestWritten> {
  let lastSetId = 0;
  async function* noted(): AsyncGenerator<LocalSet> {
    for await (const set of sumsSets) {
      if (set.id > lastSetId && Object.keys(set.files).length > 0) lastSetId = set.id;
      yield set;
    }
  }
  const hash = await ResumableSha256.start();
  const [manifest, sums] = await Promise.all([
    dest.writeAtomic('manifest.csv', hashedAsWritten(manifestBody(manifestSets), hash)),
    dest.writeAtomic('SHA256SUMS', sumsBody(noted())),
  ]);
  return {
    fingerprint: { manifest: fingerprintOf(manifest), sums: fingerprintOf(sums), manifestFormat: MANIFEST_FORMAT, lastSetId },
    manifest: { info: manifest, hash: hash.finish() },
  };
}

/**
 * New sets appended at once (their rows held as one string); above this a sync writes the files
 * whole, streamed, whose cost is then of the order of what changed anyway.
 */
const APPEND_MAX_SETS = 20_000;

/**
 * Appends the rows of `sets` to manifest.csv and SHA256SUMS as `base` describes them, when that
 * gives exactly the bytes writeManifestAndSums would write: every set is above base.lastSetId
 * (rows are in set-id order, so the new rows come after every row there), the manifest was
 * written in today's format, and the destination can extend an object (a folder:
 * extendAtomicFile, atomic for readers). Returns the new fingerprint and the manifest's appended
 * bytes (its hash is continued over them: table-hash.ts), or null when the files must be written
 * whole (a bucket, an older index, a set at or below lastSetId, a file no longer as recorded).
 * `sets` must be in ascending id order.
 */
export async function appendManifestAndSums(dest: Destination, base: IndexFingerprint, sets: readonly LocalSet[]): Promise<{ fingerprint: IndexFingerprint; manifestTail: string } | null> {
  const extend = dest.extendAtomic?.bind(dest);
  const lastSetId = base.lastSetId;
  if (!extend || lastSetId === undefined || base.manifestFormat !== MANIFEST_FORMAT || sets.length > APPEND_MAX_SETS) return null;
  let previous = lastSetId;
  for (const set of sets) {
    // A set at or below lastSetId may have rows there (changed, or lost its files): only a full rewrite is exact.
    if (set.id <= previous) return null;
    // One above it has none (lastSetId is the highest set id with rows), so a set still without files stays appendable later.
    if (Object.keys(set.files).length > 0) previous = set.id;
  }
  const rows: string[][] = [];
  let sums = '';
  for (const set of sets) {
    for (const [rel, f] of filesBySlot(set)) {
      rows.push(manifestRow(rel, f));
      sums += `${f.sha256}  ${rel}\n`;
    }
  }
  const manifestTail = datasetCsvText(MANIFEST_COLUMNS, rows, false);
  // Both at once: each is a copy of the file inside the kernel (hundreds of MB at a million files).
  const [manifest, sumsInfo] = await Promise.all([extend('manifest.csv', base.manifest, manifestTail), extend('SHA256SUMS', base.sums, sums)]);
  // One could not take its rows (no longer as recorded): the caller writes both whole.
  if (!manifest || !sumsInfo) return null;
  return { fingerprint: { manifest: fingerprintOf(manifest), sums: fingerprintOf(sumsInfo), manifestFormat: MANIFEST_FORMAT, lastSetId: previous }, manifestTail };
}

/** True when manifest.csv and SHA256SUMS are still what writeManifestAndSums returned (same size and stamp: a folder's regular file of that mtime). */
export async function indexUnchanged(dest: Destination, fp: IndexFingerprint | undefined): Promise<boolean> {
  if (!fp || fp.manifestFormat !== MANIFEST_FORMAT) return false;
  return asWritten(await dest.stat('manifest.csv'), fp.manifest) && asWritten(await dest.stat('SHA256SUMS'), fp.sums);
}

/**
 * Whether an object (`info`: its ObjectInfo, or a fingerprint of it; null when absent) has the size
 * and stamp recorded when we wrote it (`f`); false too when `f` was recorded before the seam (an
 * mtime only).
 */
export function asWritten(info: FileFingerprint | null, f: FileFingerprint | undefined): boolean {
  return typeof f?.stamp === 'string' && info !== null && info.size === f.size && info.stamp === f.stamp;
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

/** RFC 4180 rows as the engine writes them (manifest.csv, media.csv). */
export function parseCsv(text: string): string[][] {
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
