// Answers outside the API contract (admin `body` fault): the sync ends with a clear error that
// names the field, never crashes, and writes nothing from the bad answer; the next sync with a
// healthy service completes.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectDatasetMatches, listFiles, sync, tempDir, useService } from '../engine/helpers';
import { servedPage, type PageJson } from '../engine/pages';

const env = useService({ sets: 3, fileSize: 8 * 1024, slots: 2, seed: 83 });

// A malformed record inside a sound page (a missing field, a wrong type, a bad sha256 or size)
// fails only its set: test/chaos/hostile-records.test.ts.
const CASES: Array<{ name: string; body: (page: PageJson) => string; field: RegExp }> = [
  { name: 'invalid JSON', body: () => '{"sets": [', field: /not valid JSON/ },
  { name: 'not JSON at all', body: () => '<html>gateway</html>', field: /not valid JSON/ },
  {
    name: 'has_more as a string',
    body: (p) => JSON.stringify({ ...p, has_more: 'no' }),
    field: /has_more/,
  },
  {
    name: 'a huge page (5,000 sets when 200 were asked)',
    body: (p) => {
      // Minimal valid sets (no files, no participants) keep the body under the admin's 1 MiB cap.
      const sets = Array.from({ length: 5000 }, (_, i) => ({
        id: 1_000_000 + i,
        status: 'accepted',
        submitted_at: '2024-01-01T00:00:00Z',
        accepted_at: null,
        updated_at: '2024-01-01T00:00:00Z',
        is_gold: false,
        participants: [],
        files: [],
      }));
      return JSON.stringify({ ...p, sets, total: 5000, per_page: 200, has_more: false });
    },
    field: /5000 sets.*200/,
  },
];

describe('malformed sets pages', () => {
  for (const c of CASES) {
    it(`${c.name}: exit 4, the field named, nothing written from it`, async () => {
      const { svc, collectionId } = env;
      const outer = await tempDir('dsync-malformed-');
      const dest = path.join(outer, 'ds');
      try {
        await svc.admin.addFault({ path: '/sets$' }, { type: 'body', status: 200, contentType: 'application/json', body: c.body(await servedPage(svc)) }, 1);
        const { summary, events } = await sync(svc, dest);
        expect(summary.exitCode).toBe(4);
        expect(summary.fatal?.kind).toBe('malformed');
        expect(summary.fatal?.message).toMatch(c.field);
        expect(events.at(-1)?.type).toBe('summary');
        // Nothing from the bad page: no set folder, an empty manifest, no consent.
        expect(await listFiles(path.join(dest, 'sets'))).toEqual([]);
        expect((await fs.readFile(path.join(dest, 'manifest.csv'), 'utf8')).trim().split('\n')).toHaveLength(1);
        expect(await listFiles(`${dest}.consents`)).toEqual([]);
        for (const f of await listFiles(outer)) expect(f.startsWith('ds/') || f.startsWith('ds.consents/'), f).toBe(true);
        // The next sync against a healthy service completes.
        expect((await sync(svc, dest)).summary.exitCode).toBe(0);
        await expectDatasetMatches(svc, dest, collectionId);
      } finally {
        await fs.rm(outer, { recursive: true, force: true });
      }
    });
  }
});

describe('malformed consent bodies', () => {
  for (const [name, body] of [
    ['without id', { consent: { version: 'v1', signed_at: '2024-01-01T00:00:00Z', signer_name: 'Mallory Example' } }],
    ['with a string id', { consent: { id: '../../x', version: 'v1', signed_at: '2024-01-01T00:00:00Z', signer_name: 'Mallory Example' } }],
    ['naming another consent id', { consent: { id: 999_999, version: 'v1', signed_at: '2024-01-01T00:00:00Z', signer_name: 'Mallory Example' } }],
    ['not wrapped in "consent"', { id: 1, version: 'v1', signed_at: '2024-01-01T00:00:00Z', signer_name: 'Mallory Example' }],
  ] as const) {
    it(`${name}: its sets fail (exit 1) with a clear reason, no consent file written; the next sync completes`, async () => {
      const { svc } = env;
      const outer = await tempDir('dsync-malformed-');
      const dest = path.join(outer, 'ds');
      try {
        await svc.admin.addFault({ path: '^/consents/' }, { type: 'body', status: 200, contentType: 'application/json', body: JSON.stringify(body) });
        const { summary } = await sync(svc, dest);
        expect(summary.exitCode).toBe(1);
        expect(summary.fatal).toBeUndefined();
        expect(summary.setsFailed).toBeGreaterThan(0);
        expect(summary.failures.map((f) => f.reason).join(' ')).toMatch(/consent \d+: .*consent/);
        expect(await listFiles(`${dest}.consents`)).toEqual([]);
        // Media files were verified and kept.
        expect(summary.filesDownloaded).toBe(6);
        const all = (await listFiles(outer)).join('\n');
        expect(all).not.toMatch(/x\.json/);
        await svc.admin.clearFaults();
        const again = await sync(svc, dest);
        expect(again.summary.exitCode).toBe(0);
        expect(again.summary.filesDownloaded).toBe(0);
        expect((await listFiles(`${dest}.consents`)).length).toBeGreaterThan(0);
      } finally {
        await fs.rm(outer, { recursive: true, force: true });
      }
    });
  }
});
