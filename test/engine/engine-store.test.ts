// The store written by intent (state/engine-store.ts) over a real state.db: each write says what
// happened and the store applies it to its own record (a change that changes nothing writes
// nothing); the head lives in the same database, committed with the records it vouches for; a
// folder's state.json from before the head moved in is imported once and set aside; a head shared
// across machines (a bucket) is published at each save with a new generation.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src-main/sync/clock';
import { createLocalFolder, type LocalFolder } from '../../src-main/sync/destination/local/local-folder';
import { RunState } from '../../src-main/sync/run-state';
import { SqliteEngineStore } from '../../src-main/sync/state/engine-store';
import { peekHeadRow, STATE_KEY } from '../../src-main/sync/state/published-head';
import type { FileEntry } from '../../src-main/sync/state/records';

const entry = (setId: number, slot: number, sha = 'a'): FileEntry => ({
  setId, fileId: setId * 10 + slot, slotIndex: slot, slotKey: `s${slot}`, sizeBytes: 10, sha256: sha.repeat(64),
  mtimeMs: 1, participantRefs: 'pr_a', isGold: false, acceptedAt: null, updatedAt: '2026-01-01T00:00:00Z', downloadedAt: '2026-01-02T00:00:00Z',
});

let work: string;
let folder: LocalFolder;
beforeEach(async () => {
  work = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-engine-store-')));
  folder = createLocalFolder(path.join(work, 'ds'));
  await folder.prepare();
});
afterEach(async () => {
  await folder.close();
  await fs.rm(work, { recursive: true, force: true });
});

describe('EngineStore intents', () => {
  it('applies each intent to its own record; one that changes nothing writes nothing', () => {
    const store = SqliteEngineStore.open(folder.stateDir);
    store.recordVerified(1, 'sets/1/a.mp4', entry(1, 1));
    store.recordVerified(1, 'sets/1/b.mp4', entry(1, 2));
    store.setOutcome(1, { updatedAt: '2026-01-01T00:00:00Z', isGold: false, complete: true });
    store.setParticipants(1, [{ role: 'A', ref: 'pr_a', group: 'g', value: 'v', signed: true }]);
    store.flush();
    const mark = store.changeCount;
    expect(Object.keys(store.get(1)!.files)).toEqual(['sets/1/a.mp4', 'sets/1/b.mp4']);
    // The same outcome, the same participants, the same listing: no record write, no new mark.
    store.setOutcome(1, { updatedAt: '2026-01-01T00:00:00Z', isGold: false, complete: true });
    store.setParticipants(1, [{ role: 'A', ref: 'pr_a', group: 'g', value: 'v', signed: true }]);
    const { mtimeMs: _m, stamp: _s, downloadedAt: _d, results: _r, ...listing } = entry(1, 1);
    store.updateListing(1, 'sets/1/a.mp4', listing);
    store.flush();
    expect(store.changeCount).toBe(mark);
    // Files lost: the set is no longer complete; left out by the subset: it stays as it was.
    store.dropFiles(1, ['sets/1/b.mp4'], 'left_out');
    expect(store.get(1)!.complete).toBe(true);
    store.dropFiles(1, ['sets/1/a.mp4'], 'lost');
    expect(store.get(1)).toMatchObject({ complete: false, files: {} });
    expect([...store.changedSets]).toEqual([1]);
    store.forget(1);
    expect(store.get(1)).toBeUndefined();
    expect([...store.removedSets]).toEqual([1]);
    store.close();
  });

  it('keeps the head in the same database, committed with the records: reopened, both are there', () => {
    const store = SqliteEngineStore.open(folder.stateDir);
    store.bind({ baseUrl: 'https://svc.example/api/v1/partner', collectionId: 7 });
    store.recordVerified(3, 'sets/3/a.mp4', entry(3, 1));
    store.setWatermark('2026-02-01T00:00:00Z');
    store.addPending(9);
    // The index as written from the records committed so far (the end of a sync flushes, then writes).
    store.flush();
    store.recordIndex({ manifest: { size: 1, stamp: '1' }, sums: { size: 1, stamp: '1' } });
    expect(store.headChanged).toBe(true);
    store.flushDurably();
    expect(store.headChanged).toBe(false);
    store.close();
    expect(peekHeadRow(folder.stateDir)).toMatchObject({ baseUrl: 'https://svc.example/api/v1/partner', collectionId: 7, watermark: '2026-02-01T00:00:00Z', pendingSets: [9] });
    const again = SqliteEngineStore.open(folder.stateDir);
    expect(again.get(3)!.files['sets/3/a.mp4']!.sha256).toBe('a'.repeat(64));
    // The index was recorded after the records' last write: it still lists them.
    expect(again.head.index!.changes).toBe(again.changeCount);
    // A record written after it: the head stops vouching for the index at once.
    again.recordVerified(3, 'sets/3/b.mp4', entry(3, 2));
    expect(again.head.index).toBeUndefined();
    again.close();
  });

  it("imports a folder's state.json of an earlier version once, and sets the file aside", async () => {
    const legacy = { version: 2, baseUrl: 'https://svc.example/api/v1/partner', collectionId: 4, watermark: '2026-03-01T00:00:00Z', pendingSets: [2], media: { file: { size: 1, stamp: '1' }, rules: '{}', problems: 0, unprobed: 3 } };
    await folder.writeAtomic(STATE_KEY, JSON.stringify(legacy));
    const state = await RunState.open(folder, systemClock);
    expect(state.head).toMatchObject({ collectionId: 4, watermark: '2026-03-01T00:00:00Z', pendingSets: [2], stageFiles: { media: legacy.media } });
    await state.saveIfChanged();
    state.store.close();
    expect(await folder.stat(STATE_KEY)).toBeNull();
    expect(await folder.stat(`${STATE_KEY}.migrated`)).not.toBeNull();
    expect(peekHeadRow(folder.stateDir)).toMatchObject({ collectionId: 4, watermark: '2026-03-01T00:00:00Z' });
    // The next open reads the database; nothing is imported again.
    const next = await RunState.open(folder, systemClock);
    expect(next.head.watermark).toBe('2026-03-01T00:00:00Z');
    next.store.close();
  });
});
