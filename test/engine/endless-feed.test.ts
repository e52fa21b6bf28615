// A feed that never ends (issue 21, point 6): the reference service's `endless_feed` switch keeps
// `has_more` true and answers its last page again past the end. The walk stops on the page that
// brings no new set, syncs and keeps every set listed, warns, and exits 1 (never 4); the
// watermark moves on when every set `total` counts was listed, so later syncs do not fail the
// same way. A feed cut short before `total` keeps the watermark, so the next sync lists again.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectDatasetMatches, sha256sumCheck, sync, useService } from './helpers';
import { servedPage, withTempDest as withDest } from './pages';

// 205 sets: two pages of 200, so the repeated page is a real second page.
const SETS = 205;
const env = useService({ sets: SETS, fileSize: 1024, slots: 1, seed: 2106 });

async function sumsLines(dest: string): Promise<number> {
  return (await fs.readFile(path.join(dest, 'SHA256SUMS'), 'utf8')).split('\n').filter(Boolean).length;
}

function setsPages(stats: { byRoute: Record<string, number> }): number {
  return stats.byRoute['GET /collections/:id/sets'] ?? 0;
}

describe('a sets feed whose has_more never turns false', () => {
  it('stops on the repeated page, keeps every listed set (exit 1, warning), and the next syncs do not fail the same way', { timeout: 120_000 }, async () => {
    const { svc, collectionId } = env;
    await svc.admin.addFault({ path: '/sets$' }, { type: 'endless_feed' });
    await withDest(async (dest) => {
      await svc.admin.resetStats();
      const first = await sync(svc, dest);
      expect(first.summary.fatal).toBeUndefined();
      expect(first.summary.exitCode).toBe(1);
      expect(first.summary.setsComplete).toBe(SETS);
      const warning = first.events.find((e) => e.type === 'warning' && /did not end/.test(e.message));
      expect(warning?.type === 'warning' && warning.message).toMatch(/page 3 still says has_more, but it brought no set not listed before.*all 205/);
      expect(first.summary.failures.some((f) => /did not end/.test(f.reason))).toBe(true);
      // Pages 1, 2 and the repeat of 2: no page beyond (a first sync asks no other status).
      expect(setsPages(await svc.admin.stats())).toBe(3);
      await expectDatasetMatches(svc, dest, collectionId);
      expect(await sumsLines(dest)).toBe(SETS);
      expect((await sha256sumCheck(dest)).code).toBe(0);
      expect(first.summary.watermark).not.toBeNull();

      // The switch is still on: the same warning, nothing lost, nothing downloaded again.
      const second = await sync(svc, dest);
      expect(second.summary.fatal).toBeUndefined();
      expect(second.summary.exitCode).toBe(1);
      expect(second.summary.filesDownloaded).toBe(0);
      expect(second.summary.watermark).toBe(first.summary.watermark);

      await svc.admin.clearFaults();
      const third = await sync(svc, dest);
      expect(third.summary.exitCode).toBe(0);
      expect(third.summary.filesDownloaded).toBe(0);
      expect(await sumsLines(dest)).toBe(SETS);
    });
  });

  it('a feed cut short before `total` keeps the watermark, so the next sync lists the sets it missed', { timeout: 120_000 }, async () => {
    const { svc, collectionId } = env;
    // Page 1 for every page asked (a server that ignores `page`), still saying has_more.
    const page = await servedPage(svc);
    expect(page.sets).toHaveLength(200);
    await svc.admin.addFault({ path: '/sets$' }, { type: 'body', body: JSON.stringify({ ...page, has_more: true }) });
    await withDest(async (dest) => {
      const first = await sync(svc, dest);
      expect(first.summary.fatal).toBeUndefined();
      expect(first.summary.exitCode).toBe(1);
      expect(first.summary.setsComplete).toBe(200);
      expect(first.summary.failures.map((f) => f.reason).join('\n')).toMatch(/syncs the 200 sets listed of the 205 the service counts; the next sync lists them again/);
      expect(first.summary.watermark).toBeNull();
      expect(await sumsLines(dest)).toBe(200);

      await svc.admin.clearFaults();
      const second = await sync(svc, dest);
      expect(second.summary.exitCode).toBe(0);
      expect(second.summary.filesDownloaded).toBe(5);
      await expectDatasetMatches(svc, dest, collectionId);
      expect(await sumsLines(dest)).toBe(SETS);
    });
  });
});
