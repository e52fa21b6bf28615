// The set store (set-store.ts, tables of state.db): the per-set records of the engine, read one
// set at a time; the import of the JSON-lines store (sets.jsonl, history.jsonl) it replaced; and
// the migration from the version 1 state that held every file entry in state.json.
import { spawn } from 'node:child_process';
import { readHead } from '../support/head';
import Database from 'better-sqlite3';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPrng } from '../../src-service/prng';
import { readHistoryIn } from '../../src-main/sync/state/history';
import { lastRunChanges } from '../../src-main/sync/state/queries';
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
  const stateFolder = () => path.join(dest, '.dataset-sync');
  beforeEach(async () => {
    dest = await tempDir('dsync-store-');
    await fs.mkdir(path.join(dest, '.dataset-sync', 'tmp'), { recursive: true });
  });
  afterEach(async () => {
    await fs.rm(dest, { recursive: true, force: true });
  });

  it('keeps records across reopening, the newest put of a set winning', () => {
    const s = SetStore.open(stateFolder());
    s.put(record(3));
    s.put(record(1));
    s.flush();
    s.put(record(3, 4, 'b'));
    expect(s.get(3)!.files['sets/3/f3.mp4']).toBeDefined(); // unflushed changes are read back too
    s.flush();
    s.close();
    const again = SetStore.open(stateFolder());
    expect(again.ids()).toEqual([1, 3]);
    expect(Object.keys(again.get(3)!.files)).toHaveLength(4);
    expect(again.get(1)).toEqual(record(1));
    expect(again.get(2)).toBeUndefined();
    expect([...again.all()].map((r) => r.id)).toEqual([1, 3]);
    again.close();
  });

  it('opened empty (a first sync): a set written in this run reads back after its flush, and a second write replaces its files', () => {
    const s = SetStore.open(stateFolder());
    expect(s.get(5)).toBeUndefined();
    s.put(record(5, 3));
    s.flush();
    expect(Object.keys(s.get(5)!.files)).toHaveLength(3); // from the database: the flush emptied the changed records
    s.put(record(5, 1, 'b'));
    s.flush();
    expect(Object.keys(s.get(5)!.files)).toEqual(['sets/5/f0.mp4']);
    expect(s.get(5)!.files['sets/5/f0.mp4']!.sha256).toBe('b'.repeat(64));
    expect(s.get(6)).toBeUndefined();
    s.close();
    const again = SetStore.open(stateFolder());
    expect(again.get(5)).toEqual(record(5, 1, 'b'));
    again.close();
  });

  it('reads a record with very many files, and every record page by page while records are put', () => {
    const s = SetStore.open(stateFolder());
    s.put(record(1, 6000));
    for (let id = 2; id <= 1500; id++) s.put(record(id, 1));
    s.flush();
    s.close();
    const again = SetStore.open(stateFolder());
    expect(Object.keys(again.get(1)!.files)).toHaveLength(6000);
    let n = 0;
    for (const rec of again.all()) {
      n++;
      // A caller changes records while it iterates (disk-check.ts): later pages see the change.
      if (rec.id === 2) again.put({ ...record(1400, 1, 'z') });
      if (rec.id === 1400) expect(rec).toEqual(record(1400, 1, 'z'));
    }
    expect(n).toBe(1500);
    again.close();
  });

  it('counts writes in the database: the fingerprint of "records changed since the index was written"', () => {
    const s = SetStore.open(stateFolder());
    const start = s.changeCount;
    s.flush(); // nothing to write
    expect(s.changeCount).toBe(start);
    s.put(record(1));
    s.flush();
    expect(s.changeCount).toBe(start + 1);
    s.close();
    const again = SetStore.open(stateFolder());
    expect(again.changeCount).toBe(start + 1);
    again.close();
  });

  it('counts the sets from a narrow index, not by reading every row (participants make rows large)', () => {
    const s = SetStore.open(stateFolder());
    for (let id = 1; id <= 300; id++) s.put(record(id));
    expect(s.count()).toBe(300);
    s.close();
    const reader = new Database(path.join(stateFolder(), 'state.db'), { readonly: true });
    const plan = reader.prepare('EXPLAIN QUERY PLAN SELECT count(*) FROM sets').all() as Array<{ detail: string }>;
    reader.close();
    expect(plan.map((p) => p.detail)).toEqual(['SCAN sets USING COVERING INDEX sets_complete']);
  });

  it('makes its commits durable with one synced transaction before a head save, and only when something was committed', async () => {
    // Commits run at synchronous=NORMAL (no fsync each); flushDurably commits a mark under FULL,
    // whose fsync of the WAL covers them all (state-db.ts). Seen from another connection: the mark.
    const s = SetStore.open(stateFolder());
    const reader = new Database(path.join(stateFolder(), 'state.db'), { readonly: true });
    const saves = () => (reader.prepare("SELECT value FROM meta WHERE key = 'saves'").pluck().get() as number | undefined) ?? 0;
    s.flushDurably(); // nothing committed since the open: nothing to sync
    expect(saves()).toBe(0);
    for (let id = 1; id <= 200; id++) s.put(record(id));
    await s.flushInTurns();
    expect(saves()).toBe(0);
    s.flushDurably();
    expect(saves()).toBe(1);
    s.flushDurably(); // already durable
    expect(saves()).toBe(1);
    s.put(record(201)); // written by flushDurably itself, then synced
    s.flushDurably();
    expect(saves()).toBe(2);
    expect(reader.prepare('SELECT count(*) FROM sets').pluck().get()).toBe(201);
    reader.close();
    s.close();
  });

  it('writes a large batch in several transactions with event-loop turns between, records put meanwhile included', async () => {
    const s = SetStore.open(stateFolder());
    const start = s.changeCount;
    for (let id = 1; id <= 200; id++) s.put(record(id));
    let turns = 0;
    const ticker = setInterval(() => turns++, 0); // counts event-loop turns taken while the flush runs
    const flushing = s.flushInTurns();
    s.put(record(201, 2, 'late')); // put after the flush started: written before it resolves
    await flushing;
    clearInterval(ticker);
    expect(s.changeCount - start).toBeGreaterThan(1); // not one transaction of 201 sets
    expect(turns).toBeGreaterThan(0);
    s.close();
    const again = SetStore.open(stateFolder());
    expect([...again.all()].map((r) => r.id)).toEqual(Array.from({ length: 201 }, (_, i) => i + 1));
    expect(again.get(201)).toEqual(record(201, 2, 'late'));
    again.close();
  });

  it('refuses a symlink planted in place of state.db', async () => {
    const outside = path.join(dest, 'outside.db');
    await fs.writeFile(outside, '');
    await fs.symlink(outside, path.join(stateFolder(), 'state.db'));
    expect(() => SetStore.open(stateFolder())).toThrow(/ELOOP|symbolic/);
  });
});

/** A state folder as the JSON-lines store wrote it: one `{"id":…}` line per flushed record, the newest line winning. */
async function writeOldLog(file: string, records: LocalSet[]): Promise<void> {
  // Without the stages' results, which that engine did not keep (they live in their own table now).
  const withoutResults = (rec: LocalSet) => ({ ...rec, files: Object.fromEntries(Object.entries(rec.files).map(([k, { results: _r, ...f }]) => [k, f])) });
  await fs.writeFile(file, records.map((rec) => withoutResults(rec)).map(({ id, ...rest }) => JSON.stringify({ id, ...rest }) + '\n').join(''));
}

describe('migration of sets.jsonl and history.jsonl into state.db', () => {
  let dest: string;
  const stateFolder = () => path.join(dest, '.dataset-sync');
  beforeEach(async () => {
    dest = await tempDir('dsync-store-');
    await fs.mkdir(path.join(stateFolder(), 'tmp'), { recursive: true });
  });
  afterEach(async () => {
    await fs.rm(dest, { recursive: true, force: true });
  });

  it('imports every record once (newest line winning, a torn or unreadable line dropped) and renames the logs', async () => {
    const log = path.join(stateFolder(), 'sets.jsonl');
    await writeOldLog(log, [record(3), record(1), record(3, 4, 'b')]);
    await fs.appendFile(log, '{"id":5,"files":{broken\n{"id":6,"updatedAt":"2026-01-0'); // unreadable, then torn
    const summaries = [{ startedAt: '2026-01-01T00:00:00Z', filesDownloaded: 3 }, { startedAt: '2026-01-02T00:00:00Z', filesDownloaded: 0 }];
    await fs.writeFile(path.join(stateFolder(), 'history.jsonl'), summaries.map((x) => JSON.stringify(x) + '\n').join('') + '{"cut');

    const s = SetStore.open(stateFolder());
    expect(s.ids()).toEqual([1, 3]);
    expect(s.get(3)).toEqual(record(3, 4, 'b'));
    expect(s.get(1)).toEqual(record(1));
    s.close();
    expect((await fs.readdir(stateFolder())).filter((f) => f.includes('jsonl')).sort()).toEqual(['history.jsonl.migrated', 'sets.jsonl.migrated']);
    expect(await readHistoryIn(stateFolder())).toEqual([...summaries].reverse());
    // The files that came with the migration are nobody's "last run" changes.
    expect(lastRunChanges(stateFolder())).toMatchObject({ newSets: [], editedSets: [], files: [] });
  });

  it('after a crash between the commit and the renames, the database stays authoritative: nothing is imported twice', async () => {
    const log = path.join(stateFolder(), 'sets.jsonl');
    await writeOldLog(log, [record(1), record(2)]);
    await fs.writeFile(path.join(stateFolder(), 'history.jsonl'), JSON.stringify({ startedAt: 'a' }) + '\n');
    SetStore.open(stateFolder()).close();
    // Put the logs back as if the process died before renaming them, with a stale record in them.
    await fs.rename(log + '.migrated', log);
    await fs.rename(path.join(stateFolder(), 'history.jsonl.migrated'), path.join(stateFolder(), 'history.jsonl'));
    const s = SetStore.open(stateFolder());
    s.put(record(2, 1, 'c'));
    s.flush();
    s.close();
    await fs.appendFile(path.join(stateFolder(), 'sets.jsonl.migrated'), ''); // (still there, renamed)
    const again = SetStore.open(stateFolder());
    expect(again.get(2)).toEqual(record(2, 1, 'c'));
    again.close();
    expect(await readHistoryIn(stateFolder())).toHaveLength(1);
    await expect(fs.stat(log)).rejects.toThrow(/ENOENT/);
  });

  it('a process killed during the import leaves the old logs authoritative or the database complete', { timeout: 120_000 }, async () => {
    const SETS = 20_000;
    const log = path.join(stateFolder(), 'sets.jsonl');
    const records = Array.from({ length: SETS }, (_, i) => record(i + 1, 2));
    await writeOldLog(log, records);
    const original = await fs.readFile(log);
    const random = createPrng(2121);
    const child = `import { SetStore } from ${JSON.stringify(path.resolve('src-main/sync/state/set-store.ts'))};
      process.stdout.write('opening\\n'); SetStore.open(process.argv[1]).close(); process.stdout.write('done\\n');`;
    let killedMidway = 0;
    for (let round = 0; round < 4; round++) {
      const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child, stateFolder()], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      const opening = new Promise<void>((resolve) => p.stdout.on('data', (d: Buffer) => ((out += d.toString()), out.includes('opening') && resolve())));
      const exited = new Promise<void>((resolve) => p.on('close', () => resolve()));
      await opening;
      await sleep(Math.floor(random() * 400));
      p.kill('SIGKILL');
      await exited;
      const logThere = await fs.stat(log).then(() => true, () => false);
      const s = SetStore.open(stateFolder()); // imports, if the killed one did not commit
      expect(s.ids()).toHaveLength(SETS);
      expect(s.get(SETS)).toEqual(records[SETS - 1]);
      s.close();
      if (logThere) killedMidway++;
      // Back to the old layout for the next round.
      await fs.rm(path.join(stateFolder(), 'state.db'), { force: true });
      await fs.rm(path.join(stateFolder(), 'state.db-wal'), { force: true });
      await fs.rm(path.join(stateFolder(), 'state.db-shm'), { force: true });
      await fs.rm(log + '.migrated', { force: true });
      await fs.writeFile(log, original);
    }
    expect(killedMidway).toBeGreaterThan(0);
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
      const head = readHead(dest);
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
      await removeDb(path.join(dest, '.dataset-sync'));

      await svc.admin.resetStats();
      // --full: every set is listed again, so every migrated entry is checked (by size and mtime only).
      const second = await sync(svc, dest, { full: true });
      expect(second.summary.exitCode).toBe(0);
      expect(second.summary.bytesDownloaded).toBe(0);
      expect(second.summary.bytesHashed).toBe(0);
      expect(second.summary.filesUpToDate).toBe(Object.keys(v1.files).length);
      // The head now lives in state.db; the version 1 file is kept aside, read by nothing.
      expect(readHead(dest).version).toBe(2);
      await expect(fs.stat(stateFile)).rejects.toThrow();
      expect((await fs.stat(`${stateFile}.migrated`)).isFile()).toBe(true);
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

describe('a dataset synced by the JSON-lines engine (sets.jsonl, history.jsonl)', () => {
  const env = useService({ sets: 6, slots: 2, seed: 22 });

  it('migrates on the first sync, which then downloads and hashes nothing', async () => {
    const { svc } = env;
    const dir = await tempDir('dsync-migrate-');
    const dest = path.join(dir, 'ds');
    const folder = path.join(dest, '.dataset-sync');
    try {
      const first = await sync(svc, dest);
      expect(first.summary.exitCode).toBe(0);
      const manifest = await fs.readFile(path.join(dest, 'manifest.csv'), 'utf8');
      // Write the state back as the JSON-lines engine kept it.
      const store = SetStore.open(folder);
      const records = [...store.all()];
      store.close();
      const savedHead = readHead(dest);
      const history = await readHistoryIn(folder);
      await removeDb(folder);
      await writeOldLog(path.join(folder, 'sets.jsonl'), records);
      await fs.writeFile(path.join(folder, 'history.jsonl'), history.map((h) => JSON.stringify(h) + '\n').join(''));
      const stateFile = path.join(folder, 'state.json');
      // The head as that engine kept it: in state.json.
      const head = structuredClone(savedHead) as unknown as { index: Record<string, unknown>; stageFiles?: unknown };
      const { changes: _dropped, ...fingerprint } = head.index;
      head.index = { ...fingerprint, logBytes: (await fs.stat(path.join(folder, 'sets.jsonl'))).size };
      // That engine had no media check: no results in its records, no media.csv in its head.
      delete head.stageFiles;
      await fs.writeFile(stateFile, JSON.stringify(head));

      await svc.admin.resetStats();
      const second = await sync(svc, dest);
      expect(second.summary.exitCode).toBe(0);
      expect(second.summary.filesDownloaded).toBe(0);
      expect(second.summary.bytesDownloaded).toBe(0);
      expect(second.summary.bytesHashed).toBe(0);
      expect((await svc.admin.stats()).fileBytesSent).toBe(0);
      const names = await fs.readdir(folder);
      expect(names).toEqual(expect.arrayContaining(['state.db', 'sets.jsonl.migrated', 'history.jsonl.migrated']));
      expect(names).not.toContain('sets.jsonl');
      expect(names).not.toContain('history.jsonl');
      const migrated = SetStore.open(folder);
      expect([...migrated.all()]).toEqual(records);
      migrated.close();
      expect(await readHistoryIn(folder)).toHaveLength(2); // the first sync's, imported, and this one's
      expect(await fs.readFile(path.join(dest, 'manifest.csv'), 'utf8')).toBe(manifest);
      await expectDatasetMatches(svc, dest, env.collectionId);
      expect((await sha256sumCheck(dest)).code).toBe(0);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

async function removeDb(folder: string): Promise<void> {
  for (const f of ['state.db', 'state.db-wal', 'state.db-shm']) await fs.rm(path.join(folder, f), { force: true });
}
