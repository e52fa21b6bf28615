// croissant.json (docs/contracts.md §1): Croissant 1.0 metadata (MLCommons, JSON-LD) of the dataset,
// so ML tools (mlcroissant, Hugging Face) can load the folder: the collection's title and a
// description, one cr:FileObject per file of SHA256SUMS (contentUrl = its path, sha256), then the
// FileObjects of manifest.csv and participants.csv, and a cr:RecordSet for each of those two
// tables. The @context is the standard one of the Croissant 1.0 specification's examples.
// Streamed: the file list is as long as the manifest. The tables' FileObjects close the list, so
// a sync that only adds sets replaces the closing part and keeps the rest (appendCroissant).
import type { Destination, ObjectInfo } from './destination/destination';
import { MANIFEST_COLUMNS } from './dataset';
import { inDataset, PARTICIPANTS_COLUMNS } from './participants-file';
import { filesBySlot, perSet, type LocalSet, type LocalSets } from './state/records';
import { TEXT_CHUNK_CHARS } from './text-chunk';

export const CROISSANT_CONFORMS_TO = 'http://mlcommons.org/croissant/1.0';

/** The @context every Croissant 1.0 document carries (the specification's, unchanged). */
export const CROISSANT_CONTEXT = {
  '@language': 'en',
  '@vocab': 'https://schema.org/',
  citeAs: 'cr:citeAs',
  column: 'cr:column',
  conformsTo: 'dct:conformsTo',
  cr: 'http://mlcommons.org/croissant/',
  rai: 'http://mlcommons.org/croissant/RAI/',
  data: { '@id': 'cr:data', '@type': '@json' },
  dataType: { '@id': 'cr:dataType', '@type': '@vocab' },
  dct: 'http://purl.org/dc/terms/',
  examples: { '@id': 'cr:examples', '@type': '@json' },
  extract: 'cr:extract',
  field: 'cr:field',
  fileProperty: 'cr:fileProperty',
  fileObject: 'cr:fileObject',
  fileSet: 'cr:fileSet',
  format: 'cr:format',
  includes: 'cr:includes',
  isLiveDataset: 'cr:isLiveDataset',
  jsonPath: 'cr:jsonPath',
  key: 'cr:key',
  md5: 'cr:md5',
  parentField: 'cr:parentField',
  path: 'cr:path',
  recordSet: 'cr:recordSet',
  references: 'cr:references',
  regex: 'cr:regex',
  repeated: 'cr:repeated',
  replace: 'cr:replace',
  sc: 'https://schema.org/',
  separator: 'cr:separator',
  source: 'cr:source',
  subField: 'cr:subField',
  transform: 'cr:transform',
  wd: 'https://www.wikidata.org/wiki/',
} as const;

/** A table of the dataset as written: its size and SHA-256. */
export interface TableFile {
  size: number;
  sha256: string;
}

/** What croissant.json says of the collection (read from collection.json: title, id, spec). */
export interface CollectionFacts {
  id: number | null;
  title: string;
  modality: string | null;
  slots: string[];
  participantsPerSet: number | null;
}

/** The facts croissant.json needs from collection.json's text; missing or odd fields are left out, never guessed. */
export function collectionFacts(text: string | null): CollectionFacts {
  let c: Record<string, unknown> = {};
  try {
    const parsed: unknown = text === null ? {} : JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) c = parsed as Record<string, unknown>;
  } catch {
    // an unreadable collection.json: a generic title below
  }
  const spec = (c.spec && typeof c.spec === 'object' ? c.spec : {}) as Record<string, unknown>;
  const slots = Array.isArray(spec.slots) ? spec.slots.map((s) => (s && typeof s === 'object' ? (s as Record<string, unknown>).key : undefined)).filter((k): k is string => typeof k === 'string') : [];
  const id = typeof c.id === 'number' ? c.id : null;
  return {
    id,
    title: typeof c.title === 'string' && c.title.trim() ? c.title : `Collection ${id ?? ''}`.trim(),
    modality: typeof spec.modality === 'string' ? spec.modality : null,
    slots,
    participantsPerSet: typeof spec.participants_per_set === 'number' ? spec.participants_per_set : null,
  };
}

function description(c: CollectionFacts): string {
  const kind = c.modality ? c.modality.charAt(0).toUpperCase() + c.modality.slice(1) : 'Media';
  const people = c.participantsPerSet ? ` of ${c.participantsPerSet} participants per set` : '';
  const slots = c.slots.length ? `, one file per slot (${c.slots.join(', ')})` : '';
  const source = c.id === null ? `the data collection "${c.title}"` : `data collection ${c.id} ("${c.title}")`;
  return (
    `${kind} recordings${people}${slots}: the accepted sets of ${source}, each file verified by its SHA-256 (Dataset Sync). ` +
    'manifest.csv lists the files (one row per file), participants.csv the participants of each set (demographics as the collection asked, quota group, consent signed or missing).'
  );
}

/** Media types by extension (the formats the delivery spec names); anything else is opaque bytes. */
const MEDIA_TYPES: Record<string, string> = {
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  avi: 'video/x-msvideo',
  wav: 'audio/wav',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
};

function encodingFormat(path: string): string {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return MEDIA_TYPES[ext] ?? 'application/octet-stream';
}

/** schema.org types of the columns (what pandas reads them as); cells that may be empty are Text. */
const MANIFEST_TYPES: Record<(typeof MANIFEST_COLUMNS)[number], string> = {
  set_id: 'sc:Integer',
  slot_index: 'sc:Integer',
  slot_key: 'sc:Text',
  path: 'sc:Text',
  size_bytes: 'sc:Integer',
  sha256: 'sc:Text',
  participant_refs: 'sc:Text',
  is_gold: 'sc:Boolean',
  accepted_at: 'sc:Text',
  updated_at: 'sc:Text',
  downloaded_at: 'sc:Text',
};

const PARTICIPANT_TYPES: Record<(typeof PARTICIPANTS_COLUMNS)[number], string> = {
  set_id: 'sc:Integer',
  role: 'sc:Text',
  participant_ref: 'sc:Text',
  // Empty where the collection did not ask for it: Text, so a loader never casts an empty cell to a number.
  age: 'sc:Text',
  gender: 'sc:Text',
  ethnicity: 'sc:Text',
  skin_tone: 'sc:Text',
  quota_group: 'sc:Text',
  quota_value: 'sc:Text',
  consent: 'sc:Text',
};

function recordSet(id: string, fileId: string, desc: string, types: Record<string, string>, key: string[]): Record<string, unknown> {
  return {
    '@type': 'cr:RecordSet',
    '@id': id,
    name: id,
    description: desc,
    key: key.map((k) => ({ '@id': `${id}/${k}` })),
    field: Object.entries(types).map(([column, dataType]) => ({
      '@type': 'cr:Field',
      '@id': `${id}/${column}`,
      name: column,
      dataType,
      source: { fileObject: { '@id': fileId }, extract: { column } },
    })),
  };
}

/** Indents a JSON value by two spaces as a member of the top-level object or of its arrays. */
function json(value: unknown, depth: number): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, '\n' + '  '.repeat(depth));
}

/** What croissant.json says before the first FileObject: the dataset's head and the opening of `distribution`. */
function opening(collection: CollectionFacts): string {
  const head = {
    '@context': CROISSANT_CONTEXT,
    '@type': 'sc:Dataset',
    name: collection.title,
    description: description(collection),
    conformsTo: CROISSANT_CONFORMS_TO,
  };
  return `${JSON.stringify(head, null, 2).replace(/\n}$/, '')},\n  "distribution": [\n`;
}

/** The FileObjects of the sets' files (SHA256SUMS's files, in its order), each followed by a comma: the tables' come after. */
function* fileObjects(sets: Iterable<LocalSet>): Generator<string> {
  for (const set of sets) {
    if (!inDataset(set)) continue;
    // The order of SHA256SUMS (dataset.ts): by slot within the set.
    for (const [rel, f] of filesBySlot(set)) yield fileObjectMember(rel, f.sizeBytes, f.sha256, encodingFormat(rel)) + ',\n';
  }
}

/**
 * A FileObject as a member of `distribution` (indented two levels, as JSON.stringify with two
 * spaces would, without a comma after it), from one template: it runs once per file of the dataset
 * at the end of a sync that writes croissant.json whole, where building an object and indenting
 * its JSON took about a tenth of that end (issue 21). `desc`: the tables' FileObjects describe
 * themselves.
 */
export function fileObjectMember(id: string, size: number, sha256: string, format: string, desc?: string): string {
  const q = JSON.stringify(id);
  const described = desc ? `      "description": ${JSON.stringify(desc)},\n` : '';
  return (
    `    {\n      "@type": "cr:FileObject",\n      "@id": ${q},\n      "name": ${q},\n${described}      "contentUrl": ${q},\n` +
    `      "contentSize": "${size} B",\n      "encodingFormat": ${JSON.stringify(format)},\n      "sha256": ${JSON.stringify(sha256)}\n    }`
  );
}

/**
 * What follows the last file's FileObject: the tables' FileObjects (their hashes change with every
 * change, so they close the list, and a sync that adds files replaces only this part), the record sets
 * and the closing brackets.
 */
function closing(manifest: TableFile, participants: TableFile): string {
  const recordSets = [
    recordSet('files', 'manifest.csv', 'The files of the dataset, one record per file (manifest.csv); path is the FileObject of the file.', MANIFEST_TYPES, ['path']),
    recordSet('participants', 'participants.csv', 'The participants of the sets, one record per participant (participants.csv); consent is "signed" or "missing".', PARTICIPANT_TYPES, ['set_id', 'role']),
  ];
  return (
    fileObjectMember('manifest.csv', manifest.size, manifest.sha256, 'text/csv', 'One row per file of the dataset.') +
    ',\n' +
    fileObjectMember('participants.csv', participants.size, participants.sha256, 'text/csv', 'One row per participant of the sets in the dataset.') +
    '\n  ],\n  "recordSet": ' +
    json(recordSets, 1) +
    '\n}\n'
  );
}

/** croissant.json's text, streamed in chunks of about TEXT_CHUNK_CHARS: one FileObject per file of the sets, then the closing part (`end()`, awaited last). */
async function* croissantBody(collection: CollectionFacts, files: AsyncIterable<string>, end: () => Promise<string>): AsyncGenerator<string> {
  let out = opening(collection);
  for await (const fo of files) {
    out += fo;
    if (out.length >= TEXT_CHUNK_CHARS) {
      yield out;
      out = '';
    }
  }
  yield out + (await end());
}

/** croissant.json as written, and the bytes of its closing part (what an append replaces). */
export interface CroissantWritten {
  info: ObjectInfo;
  closingBytes: number;
}

/**
 * Writes croissant.json atomically. `tables`: manifest.csv and participants.csv as written,
 * awaited once every FileObject is out (they may be written in the same pass over the records).
 */
export async function writeCroissant(
  dest: Destination,
  collection: CollectionFacts,
  tables: Promise<{ manifest: TableFile; participants: TableFile }>,
  sets: LocalSets,
): Promise<CroissantWritten> {
  let end = '';
  const closingPart = async () => {
    const { manifest, participants } = await tables;
    end = closing(manifest, participants);
    return end;
  };
  const info = await dest.writeAtomic('croissant.json', croissantBody(collection, perSet(sets, (set) => fileObjects([set])), closingPart));
  return { info, closingBytes: Buffer.byteLength(end) };
}

/**
 * Adds the FileObjects of `sets` (above every set described) to croissant.json as `expect`
 * describes it, whose closing part is `closingBytes` long: the file is cloned without that part,
 * the new FileObjects and the new closing part appended, and the clone renamed over it
 * (Destination.extendAtomic), the bytes writeCroissant would write. null when the destination
 * cannot or the file is no longer as recorded: the caller writes it whole.
 */
export async function appendCroissant(
  dest: Destination,
  expect: { size: number; stamp: string },
  closingBytes: number,
  manifest: TableFile,
  participants: TableFile,
  sets: readonly LocalSet[],
): Promise<CroissantWritten | null> {
  if (!dest.extendAtomic || closingBytes > expect.size) return null;
  const end = closing(manifest, participants);
  const info = await dest.extendAtomic('croissant.json', expect, [...fileObjects(sets)].join('') + end, expect.size - closingBytes);
  return info === null ? null : { info, closingBytes: Buffer.byteLength(end) };
}
