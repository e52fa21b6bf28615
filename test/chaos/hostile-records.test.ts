// Hostile or inconsistent records are isolated to their set (issue 12): a sets page whose
// envelope is sound but one set record is malformed fails that set (reason in its `set` event and
// in the summary, exit 1) while every other set syncs; only an unreadable page or envelope is
// fatal (test/chaos/malformed.test.ts). Needs the client's per-record validation
// (SetsPage.rejected): with a client that refuses the whole page these cases end with exit 4.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectDatasetMatches, sha256sumCheck, sync, useService } from '../engine/helpers';
import { servedPage, withTempDest } from '../engine/pages';

const env = useService({ sets: 3, fileSize: 8 * 1024, slots: 2, seed: 1204 });

/** A set record as JSON, to be spoiled with values of any type. */
type LooseSet = Record<string, unknown> & { files: Array<Record<string, unknown>> };

const CASES: Array<{ name: string; spoil: (set: LooseSet) => void; field: RegExp; keepsId: boolean }> = [
  { name: 'a size as a string', spoil: (s) => void (s.files[0]!.size_bytes = String(s.files[0]!.size_bytes)), field: /size_bytes/, keepsId: true },
  { name: 'an upper-case sha256', spoil: (s) => void (s.files[1]!.sha256 = String(s.files[1]!.sha256).toUpperCase()), field: /sha256/, keepsId: true },
  { name: 'a set id of 1.5', spoil: (s) => void (s.id = 1.5), field: /id/, keepsId: false },
  { name: 'a missing field', spoil: (s) => void delete s.files[0]!.sha256, field: /files\[0\]\.sha256/, keepsId: true },
  { name: 'a wrong type', spoil: (s) => void (s.updated_at = 1718000000), field: /updated_at/, keepsId: true },
  { name: 'a sha256 that is not hex', spoil: (s) => void (s.files[1]!.sha256 = 'z'.repeat(64)), field: /files\[1\]\.sha256/, keepsId: true },
  { name: 'a negative size', spoil: (s) => void (s.files[0]!.size_bytes = -5), field: /files\[0\]\.size_bytes/, keepsId: true },
];

describe('one malformed set record in a sound page', () => {
  for (const c of CASES) {
    it(`${c.name}: that set fails with the reason (exit 1), every other set syncs`, { timeout: 60_000 }, async () => {
      const { svc, collectionId } = env;
      await withTempDest(async (dest) => {
        const page = await servedPage(svc);
        const victim = page.sets[1]!;
        const victimId = victim.id;
        c.spoil(victim as LooseSet);
        await svc.admin.addFault({ path: '/sets$' }, { type: 'body', body: JSON.stringify(page) }, 1);
        const { summary, events } = await sync(svc, dest);
        expect(summary.exitCode, JSON.stringify(summary.fatal)).toBe(1);
        expect(summary.fatal).toBeUndefined();
        expect(summary.setsFailed).toBe(1);
        expect(summary.setsComplete).toBe(page.sets.length - 1);
        const eventId = c.keepsId ? victimId : 0;
        const failed = events.find((e) => e.type === 'set' && e.state === 'failed' && e.setId === eventId);
        expect(failed?.type === 'set' && failed.reason).toMatch(c.field);
        // A record that breaks the contract is said as such by its code, whatever the reason's words.
        expect(failed?.type === 'set' && failed.code).toBe('bad_listing');
        expect(summary.failures.map((f) => f.reason).join('\n')).toMatch(c.field);
        expect(summary.failures.map((f) => f.code)).toEqual(['bad_listing']);
        // Nothing of the bad record was written; the others are complete and verified.
        await expect(fs.lstat(path.join(dest, 'sets', String(victimId)))).rejects.toThrow();
        for (const s of page.sets) if (s !== victim) expect((await fs.readdir(path.join(dest, 'sets', String(s.id)))).length).toBe(3);
        expect((await sha256sumCheck(dest)).code).toBe(0);
        // The failed set is not lost: with a sound answer the next sync completes it (pending, or the walk
        // was not counted complete when the record had no usable id).
        const again = await sync(svc, dest);
        expect(again.summary.exitCode).toBe(0);
        await expectDatasetMatches(svc, dest, collectionId);
        expect((await sha256sumCheck(dest)).code).toBe(0);
      });
    });
  }
});
