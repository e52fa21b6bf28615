// Colliding files in a set (issue 12): the same file id twice, two files for one slot, names
// equal once case is ignored — the set fails naming both files and nothing of it changes (no
// download-and-delete loop); a file id listed in two sets is downloaded for each without the two
// transfers sharing a part file. SHA256SUMS verifies (real `sha256sum -c`) after every run.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listFiles, mainCollection, sha256Of, sha256sumCheck, sync, useService } from './helpers';
import { filePathPattern, servedPage, withTempDest as withDest, type PageJson, type SetJson } from './pages';

const env = useService({ sets: 3, fileSize: 48 * 1024, slots: 2, seed: 1203 });

async function serve(page: PageJson): Promise<void> {
  await env.svc.admin.clearFaults();
  await env.svc.admin.addFault({ path: '/sets$' }, { type: 'body', body: JSON.stringify(page) });
}

async function expectSumsVerify(dest: string): Promise<void> {
  const r = await sha256sumCheck(dest);
  expect(r.code, r.out).toBe(0);
}

/** Every file under sets/<id>/ with its sha256 (set.json aside). */
async function snapshot(dest: string, setId: number): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await listFiles(path.join(dest, 'sets', String(setId)))) if (f !== 'set.json') out[f] = sha256Of(path.join(dest, 'sets', String(setId), f));
  return out;
}

describe('colliding files in one set fail that set, naming both', () => {
  const cases: Array<{ name: string; collide: (s: SetJson) => void; reason: RegExp }> = [
    {
      name: 'the same file id for two slots',
      collide: (s) => {
        s.files[1]!.id = s.files[0]!.id;
      },
      reason: /"set_\d+_slot_01\.\w+" \(file (\d+)\) and "set_\d+_slot_02\.\w+" \(file \1\) have the same file id/,
    },
    {
      name: 'two files for one slot (slot_01 and slot_001)',
      collide: (s) => {
        const extra = { ...s.files[0]!, id: s.files[1]!.id, filename: s.files[0]!.filename.replace('_slot_01.', '_slot_001.') };
        s.files[1] = extra;
      },
      reason: /"set_\d+_slot_01\.\w+" \(file \d+\) and "set_\d+_slot_001\.\w+" \(file \d+\) are both for slot 1/,
    },
    {
      name: 'names equal once case is ignored (.mp4 and .MP4)',
      collide: (s) => {
        const f = s.files[0]!;
        s.files[1] = { ...s.files[1]!, filename: f.filename.replace(/\.(\w+)$/, (_, ext: string) => `.${ext.toUpperCase()}`) };
      },
      reason: /and "set_\d+_slot_01\.[A-Z0-9]+" \(file \d+\) name the same file once case and Unicode form are ignored/,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: exit 1 with the reason, its verified files unchanged, nothing downloaded or deleted on the next sync`, { timeout: 60_000 }, async () => {
      await withDest(async (dest) => {
        expect((await sync(env.svc, dest)).summary.exitCode).toBe(0);
        const page = await servedPage(env.svc);
        const victim = page.sets[1]!;
        const before = await snapshot(dest, victim.id);
        c.collide(victim);
        await serve(page);
        for (let run = 0; run < 2; run++) {
          const { summary, events } = await sync(env.svc, dest, { full: true });
          expect(summary.exitCode).toBe(1);
          expect(summary.setsFailed).toBe(1);
          expect(summary.filesDownloaded).toBe(0);
          const failed = events.find((e) => e.type === 'set' && e.setId === victim.id && e.state === 'failed');
          expect(failed?.type === 'set' && failed.reason).toMatch(c.reason);
          expect(summary.failures.find((f) => f.setId === victim.id)?.reason).toMatch(c.reason);
          expect(await snapshot(dest, victim.id)).toEqual(before);
          await expectSumsVerify(dest);
        }
      });
    });
  }
});

describe('a file id listed in two sets', () => {
  it('downloads it for each set through separate part files, even when one request gets other bytes', { timeout: 60_000 }, async () => {
    await withDest(async (dest) => {
      const page = await servedPage(env.svc);
      const [a, b] = page.sets as [SetJson, SetJson];
      const shared = a.files[0]!;
      // Set b lists a's first file (same id, url, bytes) for its own slot 1.
      b.files[0] = { ...shared, filename: b.files[0]!.filename };
      await serve(page);
      // One of the two requests for the shared file gets a flipped byte: that transfer alone starts over.
      const filePath = filePathPattern(env.svc, shared.url);
      await env.svc.admin.addFault({ path: filePath }, { type: 'flip', atByte: 100 }, 1);
      await env.svc.admin.addFault({ path: filePath }, { type: 'latency', ms: 300 }, 1);
      const { summary } = await sync(env.svc, dest, { concurrency: 4 });
      expect(summary.exitCode, JSON.stringify(summary.failures)).toBe(0);
      expect(sha256Of(path.join(dest, 'sets', String(a.id), shared.filename))).toBe(shared.sha256);
      expect(sha256Of(path.join(dest, 'sets', String(b.id), b.files[0]!.filename))).toBe(shared.sha256);
      expect(await fs.readdir(path.join(dest, '.dataset-sync', 'partial'))).toEqual([]);
      await expectSumsVerify(dest);
    });
  });
});

describe('part files named before set ids were part of the name', () => {
  it('are taken over and resumed after an upgrade', { timeout: 60_000 }, async () => {
    await withDest(async (dest) => {
      const page = await servedPage(env.svc);
      const file = page.sets[0]!.files[0]!;
      const res = await fetch(file.url, { headers: { authorization: `Bearer ${mainCollection(env.svc).apiKey}` } });
      const bytes = Buffer.from(await res.arrayBuffer());
      await fs.mkdir(path.join(dest, '.dataset-sync', 'partial'), { recursive: true });
      await fs.writeFile(path.join(dest, '.dataset-sync', 'partial', `${file.id}-${file.sha256}.part`), bytes.subarray(0, bytes.length / 2));
      const { summary } = await sync(env.svc, dest);
      expect(summary.exitCode).toBe(0);
      const total = page.sets.reduce((n, s) => n + s.files.reduce((m, f) => m + f.size_bytes, 0), 0);
      expect(summary.bytesDownloaded).toBe(total - bytes.length / 2);
      expect(await fs.readdir(path.join(dest, '.dataset-sync', 'partial'))).toEqual([]);
      await expectSumsVerify(dest);
    });
  });
});
