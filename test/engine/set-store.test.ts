// sets.jsonl (set-store.ts): the per-set records of the engine, read one set at a time, and the
// migration from the version 1 state that held every file entry in state.json.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyLocalSet, SetStore, type LocalSet } from '../../src-main/sync/state/set-store';
import { expectDatasetMatches, sha256sumCheck, sync, tempDir, useService } from './helpers';

function record(id: number, files = 2, tag = 'a'): LocalSet {
  const rec = emptyLocalSet(id);
  Object.assign(rec, { updatedAt: `2026-01-01T00:00:00.${tag}Z`, complete: true });
  for (let k = 0; k < files; k++) {
    rec.files[`sets/${id}/f${k}.mp4`] = {
      setId: id, fileId: id * 100 + k, slotIndex: k, slotKey: `slot${k}`, sizeBytes: 10 + k, sha256: tag.repeat(64).slice(0, 64),
      mtimeMs: 1.5, participantRefs: 'pr_1;pr_2', isGold: false, acceptedAt: null, updatedAt: '2026-01-01T00:00:00Z', downloadedAt: '2026-01-02T00:00:00Z',
    };
  }
  return rec;
}

describe('SetStore', () => {
  let dest: string;
  const log = () => path.join(dest, '.dataset-sync', 'sets.jsonl');
  beforeEach(async () => {
    dest = await tempDir('dsync-store-');
    await fs.mkdir(path.join(dest, '.dataset-sync', 'tmp'), { recursive: true });
  });
  afterEach(async () => {
    await fs.rm(dest, { recursive: true, force: true });
  });

  it('keeps records across reopening, the newest line of a set winning', () => {
    const s = SetStore.open(path.join(dest, '.dataset-sync'));
    s.put(record(3));
    s.put(record(1));
    s.flush();
    s.put(record(3, 4, 'b'));
    expect(s.get(3)!.files['sets/3/f3.mp4']).toBeDefined(); // unflushed changes are read back too
    s.flush();
    s.close();
    const again = SetStore.open(path.join(dest, '.dataset-sync'));
    expect(again.ids()).toEqual([1, 3]);
    expect(Object.keys(again.get(3)!.files)).toHaveLength(4);
    expect(again.get(1)).toEqual(record(1));
    expect(again.get(2)).toBeUndefined();
    expect([...again.all()].map((r) => r.id)).toEqual([1, 3]);
    again.close();
  });

  it('drops a line cut short by a crash and keeps every complete one', async () => {
    const s = SetStore.open(path.join(dest, '.dataset-sync'));
    s.put(record(1));
    s.put(record(2));
    s.flush();
    s.close();
    const whole = (await fs.stat(log())).size;
    await fs.appendFile(log(), '{"id":3,"updatedAt":"2026-01-0'); // torn write, no newline
    const again = SetStore.open(path.join(dest, '.dataset-sync'));
    expect(again.ids()).toEqual([1, 2]);
    expect((await fs.stat(log())).size).toBe(whole);
    again.put(record(3));
    again.flush();
    again.close();
    expect(SetStore.open(path.join(dest, '.dataset-sync')).get(3)).toEqual(record(3));
  });

  it('an unreadable line makes its set unknown (its files are then adopted by hash), not the store unusable', async () => {
    await fs.writeFile(log(), '{"id":5,"files":{broken\n' + JSON.stringify(record(6)) + '\n');
    const s = SetStore.open(path.join(dest, '.dataset-sync'));
    expect(s.get(5)).toBeUndefined();
    expect(s.get(6)).toEqual(record(6));
    s.close();
  });

  it('rewrites the log in set-id order once superseded lines outweigh live ones', async () => {
    const s = SetStore.open(path.join(dest, '.dataset-sync'));
    for (let round = 0; round < 40; round++) {
      for (let id = 300; id >= 1; id--) s.put(record(id, 3, String(round % 10)));
      s.flush();
    }
    const before = (await fs.stat(log())).size;
    s.compactIfWasteful();
    const after = (await fs.stat(log())).size;
    expect(after).toBeLessThan(before / 20);
    expect(s.logBytes).toBe(after);
    expect(s.get(150)).toEqual(record(150, 3, '9'));
    s.put(record(301));
    s.flush();
    s.close();
    const text = await fs.readFile(log(), 'utf8');
    const ids = text.trim().split('\n').map((l) => (JSON.parse(l) as LocalSet).id);
    expect(ids).toEqual(Array.from({ length: 301 }, (_, i) => i + 1));
    expect(await fs.readdir(path.join(dest, '.dataset-sync', 'tmp'))).toEqual([]);
  });

  it('reads a record longer than its scan buffer (a set with very many files)', () => {
    const s = SetStore.open(path.join(dest, '.dataset-sync'));
    s.put(record(1, 6000));
    s.put(record(2));
    s.flush();
    s.close();
    const again = SetStore.open(path.join(dest, '.dataset-sync'));
    expect(Object.keys(again.get(1)!.files)).toHaveLength(6000);
    expect(again.get(2)).toEqual(record(2));
    again.close();
  });

  it('refuses a symlink planted in place of sets.jsonl', async () => {
    const outside = path.join(dest, 'outside.jsonl');
    await fs.writeFile(outside, '');
    await fs.symlink(outside, log());
    expect(() => SetStore.open(path.join(dest, '.dataset-sync'))).toThrow(/ELOOP|symbolic/);
  });
});

describe('a dataset synced by the version 1 engine (every file entry in state.json)', () => {
  const env = useService({ sets: 5, slots: 3, seed: 21 });

  it('is migrated without downloading or hashing anything again', async () => {
    const { svc } = env;
    const dir = await tempDir('dsync-migrate-');
    const dest = path.join(dir, 'ds');
    try {
      const first = await sync(svc, dest);
      expect(first.summary.exitCode).toBe(0);
      // Rewrite the state as version 1 held it.
      const stateFile = path.join(dest, '.dataset-sync', 'state.json');
      const head = JSON.parse(await fs.readFile(stateFile, 'utf8')) as Record<string, unknown>;
      const store = SetStore.open(path.join(dest, '.dataset-sync'));
      const records = [...store.all()];
      store.close();
      const v1 = {
        version: 1,
        collectionId: head.collectionId,
        watermark: head.watermark,
        pendingSets: head.pendingSets,
        files: Object.fromEntries(records.flatMap((r) => Object.entries(r.files))),
        sets: Object.fromEntries(records.map((r) => [String(r.id), { updatedAt: r.updatedAt, isGold: r.isGold, complete: r.complete }])),
        consents: {},
      };
      await fs.writeFile(stateFile, JSON.stringify(v1));
      await fs.rm(path.join(dest, '.dataset-sync', 'sets.jsonl'));

      await svc.admin.resetStats();
      // --full: every set is listed again, so every migrated entry is checked (by size and mtime only).
      const second = await sync(svc, dest, { full: true });
      expect(second.summary.exitCode).toBe(0);
      expect(second.summary.bytesDownloaded).toBe(0);
      expect(second.summary.bytesHashed).toBe(0);
      expect(second.summary.filesUpToDate).toBe(Object.keys(v1.files).length);
      expect(JSON.parse(await fs.readFile(stateFile, 'utf8')).version).toBe(2);
      const migrated = SetStore.open(path.join(dest, '.dataset-sync'));
      expect([...migrated.all()]).toEqual(records);
      migrated.close();
      await expectDatasetMatches(svc, dest, env.collectionId);
      expect((await sha256sumCheck(dest)).code).toBe(0);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
