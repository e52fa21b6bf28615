// Server-given file names are never used as paths unless they have the exact expected form.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFilename } from '../../src-main/sync/names';
import { listFiles, sha256sumCheck, sync, tempDir, useService } from './helpers';

const env = useService({ sets: 5, fileSize: 16 * 1024, slots: 2, seed: 23 });

describe('file name validation', () => {
  it('accepts only set_<own id>_slot_<slot>.<short alnum ext>', () => {
    expect(checkFilename('set_12_slot_01.mp4', 12, 1)).toBeNull();
    expect(checkFilename('set_12_slot_03.webm', 12, 3)).toBeNull();
    expect(checkFilename('set_13_slot_01.mp4', 12, 1)).toMatch(/not its own set/);
    expect(checkFilename('set_12_slot_02.mp4', 12, 1)).toMatch(/slot/);
    for (const bad of ['../x.mp4', '/etc/passwd', 'set_12_slot_01.mp4/../../x', 'set_12_slot_01.', 'set_12_slot_01.mp4.exe', 'set_12_slot_01.m p4', 'set_12_slot_01.abcdefghij', 'set_12_slot_01.mp4\u0000', '..\\set_12_slot_01.mp4', 'SET_12_slot_01.mp4']) {
      expect(checkFilename(bad, 12, 1), bad).not.toBeNull();
    }
  });
});

describe('hostile names from the service', () => {
  it('fails those files, writes nothing outside DEST, keeps the honest files', async () => {
    const { svc, collectionId } = env;
    const outer = await tempDir('dsync-hostile-');
    const dest = path.join(outer, 'a', 'ds');
    try {
      const state = await svc.admin.state();
      const sets = state.collections.find((c) => c.id === collectionId)!.accepted_sets;
      const hostile = [
        '../x.mp4',
        '../../escaped.mp4',
        path.join(outer, 'absolute.mp4'),
        `set_${sets[0]!.id + 1000}_slot_01.mp4`,
        `set_${sets[4]!.id}_slot_01.sh;rm`,
      ];
      for (let i = 0; i < hostile.length; i++) await svc.admin.editSet(sets[i]!.id, { slot_index: 1, filename: hostile[i] });

      const { summary, events } = await sync(svc, dest);
      expect(summary.exitCode).toBe(1);
      expect(summary.filesFailed).toBe(hostile.length);
      expect(summary.setsFailed).toBe(hostile.length);
      const failed = events.filter((e) => e.type === 'file' && e.state === 'failed');
      expect(failed).toHaveLength(hostile.length);
      for (const e of failed) expect(e.type === 'file' && e.reason).toMatch(/file name/);

      // Only DEST, its consents sibling and nothing else exist under the outer temp folder.
      const all = await listFiles(outer);
      for (const f of all) expect(f.startsWith('a/ds/') || f.startsWith('a/ds.consents/'), f).toBe(true);
      const inSets = (await listFiles(path.join(dest, 'sets'))).filter((f) => !f.endsWith('set.json'));
      expect(inSets).toHaveLength(5); // slot 2 of every set
      for (const f of inSets) expect(f).toMatch(/^\d+\/set_\d+_slot_02\.[a-z0-9]+$/);
      expect((await sha256sumCheck(dest)).code).toBe(0);
    } finally {
      await fs.rm(outer, { recursive: true, force: true });
    }
  });
});
