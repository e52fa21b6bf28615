// The end-of-sync look at the files the sync worked on (disk-check.ts findUnhealedEntries, then
// dropEntries), over a real folder and a real state database: an entry whose file went or changed
// leaves its record, whichever way the records are read (one scan of every file's row when the
// sets are many, a record per set when they are few), and nothing else is touched. The look itself
// changes nothing: it runs beside the pass that writes the dataset files (run-finish.ts).
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src-main/sync/clock';
import { createLocalFolder, type LocalFolder } from '../../src-main/sync/destination/local/local-folder';
import { dropEntries, findUnhealedEntries } from '../../src-main/sync/disk-check';
import { RunState } from '../../src-main/sync/run-state';
import { SetStore, type LocalSet } from '../../src-main/sync/state/set-store';

const SETS = 400;
let work: string;
let folder: LocalFolder;
let store: SetStore;
let state: RunState;
/** The records as the run sees them (the state's store), for the expectations. */
const records = () => state.store;

async function recordSet(id: number): Promise<void> {
  const set: LocalSet = { id, updatedAt: '2026-01-01T00:00:00Z', isGold: false, complete: true, files: {} };
  for (const slot of [1, 2]) {
    const key = `sets/${id}/set_${id}_slot_0${slot}.mp4`;
    const info = await folder.writeAtomic(key, `set ${id} slot ${slot}`);
    set.files[key] = {
      setId: id, fileId: id * 10 + slot, slotIndex: slot, slotKey: `s${slot}`, sizeBytes: info.size, sha256: '0'.repeat(64),
      mtimeMs: Number(info.stamp), participantRefs: '', isGold: false, acceptedAt: null, updatedAt: '2026-01-01T00:00:00Z', downloadedAt: '2026-01-01T00:00:00Z',
    };
  }
  store.put(set);
}

beforeEach(async () => {
  work = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-unhealed-')));
  folder = createLocalFolder(path.join(work, 'ds'));
  await folder.prepare();
  store = SetStore.open(folder.stateDir);
  for (let id = 1; id <= SETS; id++) await recordSet(id);
  store.flush();
  store.close();
  state = await RunState.open(folder, systemClock);
  // Damage: a file removed (set 7), a file grown (set 250), both files of set 399 removed.
  await fs.rm(path.join(folder.root, 'sets/7/set_7_slot_02.mp4'));
  await fs.appendFile(path.join(folder.root, 'sets/250/set_250_slot_01.mp4'), 'more');
  await fs.rm(path.join(folder.root, 'sets/399'), { recursive: true });
});

afterEach(async () => {
  state.store.close();
  await folder.close();
  await fs.rm(work, { recursive: true, force: true });
});

/** What the end does: the look, then the drop; the look alone must leave every record as it was. */
async function dropUnhealedEntries(setIds: number[]): Promise<number[]> {
  const gone = await findUnhealedEntries(folder, state, setIds);
  expect(state.store.changedSets.size).toBe(0);
  expect(entries(7)).toHaveLength(2);
  return dropEntries(state, gone);
}

function entries(id: number): string[] {
  return Object.keys(records().get(id)!.files).sort();
}

describe('findUnhealedEntries and dropEntries', () => {
  it('many sets (one scan of the rows): drops exactly the entries whose files went or changed', async () => {
    const all = Array.from({ length: SETS }, (_, i) => i + 1);
    const lost = await dropUnhealedEntries([...all, 7, 7]);
    expect(lost.sort((a, b) => a - b)).toEqual([7, 250, 399]);
    expect(entries(7)).toEqual(['sets/7/set_7_slot_01.mp4']);
    expect(entries(250)).toEqual(['sets/250/set_250_slot_02.mp4']);
    expect(entries(399)).toEqual([]);
    expect([7, 250, 399].map((id) => records().get(id)!.complete)).toEqual([false, false, false]);
    expect(entries(8)).toHaveLength(2);
    expect(records().get(8)!.complete).toBe(true);
    expect([...state.store.changedSets].sort((a, b) => a - b)).toEqual([7, 250, 399]);
  });

  it('few sets (a record per set): only the sets asked are looked at', async () => {
    const lost = await dropUnhealedEntries([7, 8, 9]);
    expect(lost).toEqual([7]);
    expect(entries(7)).toEqual(['sets/7/set_7_slot_01.mp4']);
    expect(entries(250)).toHaveLength(2); // damaged, but not asked about
    expect(records().get(250)!.complete).toBe(true);
  });
});
