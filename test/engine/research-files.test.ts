// participants.csv, croissant.json and the summary's consentMissingSets, against the reference
// service's demo collection (24 accepted sets, every fifth with a participant B without a consent),
// read back by Python's csv and json modules as a researcher's notebook would.
import { editHead } from '../support/head';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MANIFEST_COLUMNS } from '../../src-main/sync/dataset';
import { createLocalFolder } from '../../src-main/sync/destination/local/local-folder';
import { PARTICIPANTS_COLUMNS, writeParticipantsCsv } from '../../src-main/sync/participants-file';
import type { LocalSet } from '../../src-main/sync/state/set-store';
import { CROISSANT_CONFORMS_TO, fileObjectMember } from '../../src-main/sync/croissant-file';
import { sync, tempDir, useService } from './helpers';
import { servedPage } from './pages';

const env = useService({ sets: 24, slots: 2, fileSize: 2048 });
const HAS_PYTHON = spawnSync('python3', ['--version']).status === 0;

type ServedParticipant = { role: string; participant_ref: string; age?: number; gender?: string; ethnicity?: string; skin_tone?: string | null; quota_group: { group: string; value: string }; consent: unknown };
type ServedSet = { id: number; participants: ServedParticipant[]; files: Array<{ filename: string; sha256: string; size_bytes: number }> };

/** What Python's csv.reader and json.load make of the dataset's tables (the reader a notebook uses). */
function readWithPython(dest: string): { manifest: string[][]; participants: string[][]; croissant: Record<string, unknown> } {
  const script = [
    'import csv, json, sys',
    'd = sys.argv[1]',
    'rows = lambda n: list(csv.reader(open(d + "/" + n, newline="", encoding="utf-8")))',
    'print(json.dumps({"manifest": rows("manifest.csv"), "participants": rows("participants.csv"), "croissant": json.load(open(d + "/croissant.json", encoding="utf-8"))}))',
  ].join('\n');
  const out = spawnSync('python3', ['-c', script, dest], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (out.status !== 0) throw new Error(`python3 could not read the dataset: ${out.stderr}`);
  return JSON.parse(out.stdout) as ReturnType<typeof readWithPython>;
}

function expectedRows(sets: ServedSet[]): string[][] {
  const rows: string[][] = [];
  for (const s of [...sets].sort((a, b) => a.id - b.id)) {
    for (const p of [...s.participants].sort((a, b) => (a.role < b.role ? -1 : 1))) {
      const opt = (v: unknown) => (v === undefined || v === null ? '' : String(v));
      rows.push([String(s.id), p.role, p.participant_ref, opt(p.age), opt(p.gender), opt(p.ethnicity), opt(p.skin_tone), p.quota_group.group, p.quota_group.value, p.consent === null ? 'missing' : 'signed']);
    }
  }
  return rows;
}

describe('participants.csv, croissant.json and consentMissingSets', () => {
  it.skipIf(!HAS_PYTHON)(`lists every participant and every file, counts the sets lacking a consent, and Python reads them back (${HAS_PYTHON ? 'python3 present' : 'python3 not installed'})`, async () => {
    const outer = await tempDir('dsync-research-');
    const dest = path.join(outer, 'ds');
    try {
      const served = (await servedPage(env.svc)).sets as unknown as ServedSet[];
      expect(served).toHaveLength(24);
      const lacking = served.filter((s) => s.participants.some((p) => p.consent === null)).length;
      expect(lacking).toBe(4); // the demo's truth (demo-data.ts: every fifth accepted set)

      const first = await sync(env.svc, dest);
      expect(first.summary.exitCode).toBe(0);
      expect(first.summary.consentMissingSets).toBe(lacking);

      const { manifest, participants, croissant } = readWithPython(dest);
      expect(participants[0]).toEqual([...PARTICIPANTS_COLUMNS]);
      expect(participants.slice(1)).toEqual(expectedRows(served));
      // The demo asks for age, gender and ethnicity, never skin tone: that column stays empty.
      expect(participants.slice(1).every((r) => r[6] === '' && r[3] !== '')).toBe(true);
      expect(manifest[0]).toEqual([...MANIFEST_COLUMNS]);

      // Croissant: every file of SHA256SUMS exactly once with its hash, plus the two tables.
      expect(croissant.conformsTo).toBe(CROISSANT_CONFORMS_TO);
      expect((croissant['@context'] as Record<string, unknown>).cr).toBe('http://mlcommons.org/croissant/');
      expect(croissant['@type']).toBe('sc:Dataset');
      expect(croissant.name).toBe('Household manipulation, two-person scenes');
      expect(typeof croissant.description).toBe('string');
      const dist = croissant.distribution as Array<Record<string, string>>;
      const sums = (await fs.readFile(path.join(dest, 'SHA256SUMS'), 'utf8')).trim().split('\n');
      expect(sums).toHaveLength(48);
      const byUrl = new Map<string, Array<Record<string, string>>>();
      for (const fo of dist) byUrl.set(fo.contentUrl!, [...(byUrl.get(fo.contentUrl!) ?? []), fo]);
      for (const line of sums) {
        const [sha, rel] = line.split('  ') as [string, string];
        expect(byUrl.get(rel)?.map((fo) => [fo['@type'], fo.sha256])).toEqual([['cr:FileObject', sha]]);
      }
      const { createHash } = await import('node:crypto');
      for (const table of ['manifest.csv', 'participants.csv']) {
        const bytes = await fs.readFile(path.join(dest, table));
        expect(byUrl.get(table)?.map((fo) => [fo.sha256, fo.contentSize])).toEqual([[createHash('sha256').update(bytes).digest('hex'), `${bytes.length} B`]]);
      }
      expect(dist).toHaveLength(sums.length + 2);
      const ids = dist.map((fo) => fo['@id']);
      expect(new Set(ids).size).toBe(ids.length);

      // Record sets: the manifest's and participants' columns, each read from its table's column.
      const recordSets = croissant.recordSet as Array<{ '@id': string; field: Array<{ name: string; source: { fileObject: { '@id': string }; extract: { column: string } } }> }>;
      const fieldsOf = (id: string) => recordSets.find((r) => r['@id'] === id)?.field.map((f) => [f.name, f.source.fileObject['@id'], f.source.extract.column]);
      expect(fieldsOf('files')).toEqual(MANIFEST_COLUMNS.map((c) => [c, 'manifest.csv', c]));
      expect(fieldsOf('participants')).toEqual(PARTICIPANTS_COLUMNS.map((c) => [c, 'participants.csv', c]));
      // The 1.0 specification's structure: every @id unique in the document, every source and key names a node that exists.
      const everyId = [...ids, ...recordSets.map((r) => r['@id']), ...recordSets.flatMap((r) => r.field.map((f) => (f as unknown as { '@id': string })['@id']))];
      expect(new Set(everyId).size).toBe(everyId.length);
      for (const r of recordSets as unknown as Array<{ '@type': string; key: Array<{ '@id': string }>; field: Array<{ '@type': string; dataType: string; source: { fileObject: { '@id': string } } }> }>) {
        expect(r['@type']).toBe('cr:RecordSet');
        for (const k of r.key) expect(everyId).toContain(k['@id']);
        for (const f of r.field) {
          expect(f['@type']).toBe('cr:Field');
          expect(f.dataType).toMatch(/^sc:(Text|Integer|Boolean)$/);
          expect(ids).toContain(f.source.fileObject['@id']);
        }
      }

      // A no-op sync rewrites neither file and still reports the count.
      const before = await Promise.all(['participants.csv', 'croissant.json'].map((f) => fs.stat(path.join(dest, f))));
      const again = await sync(env.svc, dest);
      expect(again.summary.consentMissingSets).toBe(lacking);
      const after = await Promise.all(['participants.csv', 'croissant.json'].map((f) => fs.stat(path.join(dest, f))));
      expect(after.map((s) => s.mtimeMs)).toEqual(before.map((s) => s.mtimeMs));
    } finally {
      await fs.rm(outer, { recursive: true, force: true });
    }
  });

  it('fetches again a set whose record was kept before participants were, then lists its participants', async () => {
    const outer = await tempDir('dsync-research-');
    const dest = path.join(outer, 'ds');
    try {
      await sync(env.svc, dest);
      // A legacy record (kept before participants were) is fetched again and then listed.
      const db = new Database(path.join(dest, '.dataset-sync', 'state.db'));
      const legacyId = db.prepare('SELECT MIN(id) FROM sets').pluck().get() as number; // the oldest set: outside the walk's overlap window
      db.prepare('UPDATE sets SET participants = NULL WHERE id = ?').run(legacyId);
      db.close();
      editHead(dest, (head) => {
        delete head.research;
        delete head.index;
      });

      const noted = await sync(env.svc, dest);
      expect(noted.summary.exitCode).toBe(0);
      const csv1 = await fs.readFile(path.join(dest, 'participants.csv'), 'utf8');
      expect(csv1.split('\n').some((l) => l.startsWith(`${legacyId},`))).toBe(false);
      const healed = await sync(env.svc, dest);
      expect(healed.summary.exitCode).toBe(0);
      expect(healed.summary.filesDownloaded).toBe(0);
      const csv2 = await fs.readFile(path.join(dest, 'participants.csv'), 'utf8');
      expect(csv2.split('\n').filter((l) => l.startsWith(`${legacyId},`))).toHaveLength(2);
    } finally {
      await fs.rm(outer, { recursive: true, force: true });
    }
  });

  it.skipIf(!HAS_PYTHON)('neutralises cells a spreadsheet would evaluate, as the manifest does, and Python reads the values back', async () => {
    const outer = await tempDir('dsync-research-');
    const folder = createLocalFolder(path.join(outer, 'ds'));
    try {
      await folder.prepare();
      const file = { setId: 7, fileId: 1, slotIndex: 1, slotKey: 'a', sizeBytes: 1, sha256: 'a'.repeat(64), mtimeMs: 1, participantRefs: 'r', isGold: false, acceptedAt: null, updatedAt: 'u', downloadedAt: 'd' };
      const set: LocalSet = {
        id: 7,
        updatedAt: null,
        isGold: false,
        complete: true,
        files: { 'sets/7/set_7_slot_01.mp4': file },
        participants: [
          { role: 'B', ref: '=HYPERLINK("http://x")', gender: '+1', ethnicity: 'a;b', group: 'gender', value: '-x', signed: false },
          { role: 'A', ref: 'pr_1', age: 30, skinTone: null, group: 'gender', value: 'female', signed: true },
        ],
      };
      const empty: LocalSet = { id: 8, updatedAt: null, isGold: false, complete: false, files: {}, participants: [{ role: 'A', ref: 'pr_2', group: 'g', value: 'v', signed: true }] };
      await writeParticipantsCsv(folder, [set, empty]);
      const text = await fs.readFile(path.join(outer, 'ds', 'participants.csv'), 'utf8');
      expect(text).toContain(`"'=HYPERLINK(""http://x"")"`);
      const rows = spawnSync('python3', ['-c', 'import csv,json,sys; print(json.dumps(list(csv.reader(open(sys.argv[1], newline="")))))', path.join(outer, 'ds', 'participants.csv')], { encoding: 'utf8' });
      expect(JSON.parse(rows.stdout)).toEqual([
        [...PARTICIPANTS_COLUMNS],
        // Role order within the set; a set without files in the dataset is not listed.
        ['7', 'A', 'pr_1', '30', '', '', '', 'gender', 'female', 'signed'],
        ['7', 'B', `'=HYPERLINK("http://x")`, '', "'+1", 'a;b', '', 'gender', "'-x", 'missing'],
      ]);
    } finally {
      await folder.close();
      await fs.rm(outer, { recursive: true, force: true });
    }
  });
});

describe('a FileObject in croissant.json', () => {
  it('is the member JSON.stringify would indent, for names that need escaping, every media type and a description', () => {
    const sha = 'ab'.repeat(32);
    const cases: Array<[string, string, string?]> = [
      ['sets/1/set_1_slot_01.mp4', 'video/mp4'],
      ['sets/2/clip "take 2".MOV', 'video/quicktime'],
      ['sets/3/back\\slash\ttab.mkv', 'video/x-matroska'],
      ['sets/4/ünïcödé 視頻.webm', 'video/webm'],
      ['sets/5/line\u2028sep.bin', 'application/octet-stream'],
      ['sets/6/no-extension', 'application/octet-stream'],
      ['manifest.csv', 'text/csv', 'One row per file of the "dataset".'],
    ];
    for (const [rel, type, desc] of cases) {
      const member = { '@type': 'cr:FileObject', '@id': rel, name: rel, ...(desc ? { description: desc } : {}), contentUrl: rel, contentSize: '1234 B', encodingFormat: type, sha256: sha };
      // The general way: the object's JSON indented as an element of `distribution` (two levels deep).
      const expected = '    ' + JSON.stringify(member, null, 2).replace(/\n/g, '\n    ');
      const written = fileObjectMember(rel, 1234, sha, type, desc);
      expect(written).toBe(expected);
      expect(JSON.parse(written)).toEqual(member);
    }
  });
});
