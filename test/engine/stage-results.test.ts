// The stages' results in state.db (state/stage-results.ts): kept per stage and version of a file as
// opaque JSON, written with the records' transaction, attached to the records the end of a sync reads,
// gone with a forgotten set; and a schema 1 database (the media check's result in files.media) moved
// into the generic table on open, except results that only said no prober ran.
import Database from 'better-sqlite3';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyLocalSet, SetStore, type LocalSet } from '../../src-main/sync/state/set-store';
import { DB_NAME } from '../../src-main/sync/state/state-db';
import { entryOf } from '../../src-main/sync/media/media-result';
import { tempDir } from './helpers';

const SHA = (n: number) => String(n).repeat(64);

function record(id: number, files: number): LocalSet {
  const rec = emptyLocalSet(id);
  for (let slot = 1; slot <= files; slot++) {
    rec.files[`sets/${id}/set_${id}_slot_0${slot}.mp4`] = {
      setId: id, fileId: id * 10 + slot, slotIndex: slot, slotKey: `s${slot}`, sizeBytes: 100, sha256: SHA(slot),
      mtimeMs: 1, participantRefs: 'pr_a', isGold: false, acceptedAt: null, updatedAt: '2026-01-01T00:00:00Z', downloadedAt: '2026-01-02T00:00:00Z',
    };
  }
  return rec;
}

describe('stage results', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir('dsync-stage-results-');
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('are kept per version, attached to what all() reads, and go with a forgotten set', () => {
    const store = SetStore.open(dir);
    store.put(record(1, 2));
    store.put(record(2, 1));
    const file = (setId: number, slot: number, sha: string) => ({ setId, fileId: setId * 10 + slot, sha256: sha });
    store.recordStageResult('media', file(1, 1, SHA(1)), '{"a":1}');
    store.recordStageResult('other', file(1, 1, SHA(1)), '"x"');
    // A result of another version than the file's (its sha256 since changed).
    store.recordStageResult('media', file(2, 1, SHA(9)), '{"stale":true}');
    // Waiting for the flush, a result already answers, for its version only.
    expect(store.stageResult('media', file(1, 1, SHA(1)))).toBe('{"a":1}');
    expect(store.stageResult('media', file(1, 1, SHA(2)))).toBeUndefined();
    store.flush();
    expect(store.stageResult('media', file(1, 1, SHA(1)))).toBe('{"a":1}');
    const [one, two] = [...store.all()];
    expect(one!.files['sets/1/set_1_slot_01.mp4']!.results).toEqual({ media: '{"a":1}', other: '"x"' });
    expect(one!.files['sets/1/set_1_slot_02.mp4']!.results).toBeUndefined();
    // A stale result is never attached: the file owes the stage one of its version.
    expect(two!.files['sets/2/set_2_slot_01.mp4']!.results).toBeUndefined();
    expect(store.setsOwingStage('media')).toEqual([
      [1, 1],
      [2, 1],
    ]);
    store.remove(1);
    store.flush();
    expect(store.stageResult('media', file(1, 1, SHA(1)))).toBeUndefined();
    store.close();
  });

  it("moves a schema 1 database's media results into the table on open, leaving out 'unprobed'", () => {
    const store = SetStore.open(dir);
    store.put(record(1, 3));
    store.flush();
    store.close();
    // Schema 1 as it was: the result in files.media, no stage_results table.
    const db = new Database(path.join(dir, DB_NAME));
    db.exec('DROP TABLE stage_results; DROP TABLE stages; ALTER TABLE files ADD COLUMN media TEXT');
    db.prepare("UPDATE meta SET value = 1 WHERE key = 'schema'").run();
    const set = db.prepare('UPDATE files SET media = ? WHERE path = ?');
    set.run(JSON.stringify({ sha256: SHA(1), result: 'probed', probe: { width: 1, height: 1, fps: 1, duration: 1, codec: 'h264' } }), 'sets/1/set_1_slot_01.mp4');
    set.run(JSON.stringify({ sha256: SHA(2), result: 'unreadable' }), 'sets/1/set_1_slot_02.mp4');
    set.run(JSON.stringify({ sha256: SHA(3), result: 'unprobed' }), 'sets/1/set_1_slot_03.mp4');
    db.close();

    const reopened = SetStore.open(dir);
    const file = (slot: number) => ({ setId: 1, fileId: 10 + slot, sha256: SHA(slot) });
    expect(entryOf(reopened.stageResult('media', file(1)), SHA(1))).toMatchObject({ result: 'probed', probe: { codec: 'h264' } });
    expect(entryOf(reopened.stageResult('media', file(2)), SHA(2))).toEqual({ sha256: SHA(2), result: 'unreadable' });
    expect(reopened.stageResult('media', file(3))).toBeUndefined();
    reopened.close();
    const after = new Database(path.join(dir, DB_NAME), { readonly: true });
    expect(after.prepare("SELECT count(*) FROM pragma_table_info('files') WHERE name = 'media'").pluck().get()).toBe(0);
    expect(after.prepare("SELECT value FROM meta WHERE key = 'schema'").pluck().get()).toBe(2);
    after.close();
  });
});
