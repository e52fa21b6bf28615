// The optional members of Destination as capabilities (rclone's fstests "features"): each test runs
// where the backend declares the capability (its registry entry, registry.ts CAPABILITIES) and is
// reported skipped, with the reason in its name, where it does not. One test always runs: a
// destination has exactly the optional members its backend declares, so a declaration cannot
// hide a member from these tests nor promise one that is missing.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { DestinationError, type Destination } from '../../src-main/sync/destination/destination';
import { CAPABILITIES, type Capability } from '../../src-main/sync/destination/registry';
import { RunState } from '../../src-main/sync/run-state';
import { systemClock } from '../../src-main/sync/clock';
import { peekRecordsMatch, STATE_KEY } from '../../src-main/sync/state/published-head';
import { bodyOf, collect, expectation, readAll, sha256, writeIn } from './contract-helpers';

/** Whether `dest` offers the capability (the member is there, or the capability flag says so). */
function offers(dest: Destination, capability: Capability): boolean {
  switch (capability) {
    case 'freeSpace':
      return dest.capabilities.freeSpace;
    case 'localRoot':
      return typeof dest.capabilities.localRoot === 'string';
    case 'foundEmpty':
      return typeof dest.foundEmpty === 'boolean';
    case 'sharedAcrossMachines':
      return dest.sharedAcrossMachines === true;
    default:
      return typeof dest[capability] === 'function';
  }
}

export function capabilityContract(name: string, declared: readonly Capability[], subject: () => { dest: Destination }): void {
  const has = (c: Capability) => declared.includes(c);
  /** it.runIf with a name that says, when skipped, which capability is missing. */
  const where = (c: Capability, title: string, test: () => Promise<void>) =>
    it.runIf(has(c))(has(c) ? `${c}: ${title}` : `${c}: ${title} [skipped: ${name} does not declare ${c}]`, test);

  it('capabilities: the destination has exactly the optional members its backend declares', () => {
    const { dest } = subject();
    for (const c of CAPABILITIES) expect(offers(dest, c), c).toBe(has(c));
  });

  where('peekText', 'reads a small object synchronously: its text, null when absent, bad keys refused', async () => {
    const { dest } = subject();
    expect(dest.peekText!('.dataset-sync/state.json')).toBeNull();
    await dest.writeAtomic('.dataset-sync/state.json', '{"watermark":"2030-01-01T00:00:00Z"} ✓');
    expect(dest.peekText!('.dataset-sync/state.json')).toBe('{"watermark":"2030-01-01T00:00:00Z"} ✓');
    expect(() => dest.peekText!('../state.json')).toThrow(DestinationError);
  });

  where('extendAtomic', 'appends to the object it expects (keeping a head of it when asked), and only to that one', async () => {
    const { dest } = subject();
    const first = await dest.writeAtomic('manifest.csv', 'header\nrow 1\n');
    const extended = await dest.extendAtomic!('manifest.csv', { size: first.size, stamp: first.stamp }, 'row 2\n');
    expect(extended).toMatchObject({ key: 'manifest.csv', size: 'header\nrow 1\nrow 2\n'.length });
    expect(await dest.readText('manifest.csv')).toBe('header\nrow 1\nrow 2\n');
    expect((await dest.stat('manifest.csv'))!.stamp).toBe(extended!.stamp);
    // The object changed since `first`: null, and it is left as it is.
    expect(await dest.extendAtomic!('manifest.csv', { size: first.size, stamp: first.stamp }, 'lost\n')).toBeNull();
    expect(await dest.readText('manifest.csv')).toBe('header\nrow 1\nrow 2\n');
    const cut = await dest.extendAtomic!('manifest.csv', { size: extended!.size, stamp: extended!.stamp }, 'closing\n', 'header\n'.length);
    expect(cut?.size).toBe('header\nclosing\n'.length);
    expect(await dest.readText('manifest.csv')).toBe('header\nclosing\n');
    expect(await dest.extendAtomic!('absent.csv', { size: 0, stamp: '1' }, 'x')).toBeNull();
  });

  where('warmExtensions', 'a warmed object is extended as any other; warming absent objects or leaving a warm copy unused is harmless', async () => {
    const { dest } = subject();
    const before = await dest.writeAtomic('SHA256SUMS', 'a  sets/1/a\n');
    await dest.lock().then(async (lock) => {
      dest.warmExtensions!(['SHA256SUMS', 'participants.csv']);
      const after = await dest.extendAtomic!('SHA256SUMS', { size: before.size, stamp: before.stamp }, 'b  sets/2/b\n');
      expect(after?.size).toBe(before.size + 'b  sets/2/b\n'.length);
      expect(await dest.readText('SHA256SUMS')).toBe('a  sets/1/a\nb  sets/2/b\n');
      await lock.release();
    });
  });

  where('openUploadNow', 'once locked, a new small body gets an upload at once that commits like any; with bytes held for it, null', async () => {
    const { dest } = subject();
    const lock = await dest.lock();
    try {
      const body = bodyOf(4000, 21);
      const exp = expectation(body, `31-set_31_slot_01.mp4-${sha256(body)}`);
      // null is allowed while the destination cannot tell yet (a folder lists its part files once locked).
      let upload = dest.openUploadNow!('sets/31/set_31_slot_01.mp4', exp);
      for (let i = 0; upload === null && i < 200; i++) {
        await new Promise((r) => setTimeout(r, 10));
        upload = dest.openUploadNow!('sets/31/set_31_slot_01.mp4', exp);
      }
      expect(upload, 'an upload for a new small body').not.toBeNull();
      expect(upload!.held).toBe(0);
      await writeIn(upload!, body, 0, body.length);
      expect(await dest.stat('sets/31/set_31_slot_01.mp4')).toBeNull();
      await upload!.commit();
      expect((await readAll(dest.read('sets/31/set_31_slot_01.mp4'))).equals(body)).toBe(true);

      const other = bodyOf(4000, 22);
      const otherExp = expectation(other, `32-set_32_slot_01.mp4-${sha256(other)}`);
      const held = await dest.openUpload('sets/32/set_32_slot_01.mp4', otherExp);
      await writeIn(held, other, 0, 1500);
      await held.close();
      expect(dest.openUploadNow!('sets/32/set_32_slot_01.mp4', otherExp)).toBeNull();
      const resumed = await dest.openUpload('sets/32/set_32_slot_01.mp4', otherExp);
      expect(resumed.held).toBe(1500);
      await resumed.discard();
    } finally {
      await lock.release();
    }
  });

  where('foundEmpty', 'true only when prepare found no object', async () => {
    const { dest } = subject();
    if (dest.foundEmpty) expect(await collect(dest.list(''))).toEqual([]);
    await dest.writeAtomic('sets/1/record.json', '{}');
    await dest.prepare();
    expect(dest.foundEmpty).toBe(false);
  });

  where('stats', 'counts the requests made and the bytes sent and read back', async () => {
    const { dest } = subject();
    const before = dest.stats!();
    for (const n of Object.values(before)) expect(Number.isInteger(n) && n >= 0).toBe(true);
    const bytes = bodyOf(5000, 23);
    await dest.writeAtomic('sets/40/blob.bin', bytes);
    expect((await readAll(dest.read('sets/40/blob.bin'))).equals(bytes)).toBe(true);
    await collect(dest.list('sets/'));
    const after = dest.stats!();
    expect(after.requests).toBeGreaterThan(before.requests);
    expect(after.listRequests).toBeGreaterThan(before.listRequests);
    expect(after.bytesUploaded - before.bytesUploaded).toBeGreaterThanOrEqual(bytes.length);
    expect(after.bytesDownloaded - before.bytesDownloaded).toBeGreaterThanOrEqual(bytes.length);
  });

  where('cleanUp', 'keeps committed objects and the bytes held for a resume', async () => {
    const { dest } = subject();
    await dest.writeAtomic('sets/41/kept.txt', 'kept');
    const body = bodyOf(300_000, 24);
    const exp = expectation(body, `41-set_41_slot_01.mp4-${sha256(body)}`);
    const upload = await dest.openUpload('sets/41/set_41_slot_01.mp4', exp);
    await writeIn(upload, body, 0, 100_000);
    await upload.close();
    await dest.cleanUp!();
    expect(await dest.readText('sets/41/kept.txt')).toBe('kept');
    const again = await dest.openUpload('sets/41/set_41_slot_01.mp4', exp);
    expect(again.held).toBe(100_000);
    await writeIn(again, body, 100_000, body.length);
    await again.commit();
    expect((await readAll(dest.read('sets/41/set_41_slot_01.mp4'))).equals(body)).toBe(true);
  });

  where('freeSpace', 'answers the free bytes where the dataset is stored', async () => {
    const { dest } = subject();
    const free = await dest.freeSpace();
    expect(typeof free === 'number' && free > 0).toBe(true);
  });

  it.runIf(!has('freeSpace'))(has('freeSpace') ? 'freeSpace: null where the store cannot say [skipped: it can]' : 'freeSpace: null where the store cannot say', async () => {
    expect(await subject().dest.freeSpace()).toBeNull();
  });

  where('localRoot', 'every object is the file at localRoot/key', async () => {
    const { dest } = subject();
    const bytes = bodyOf(2000, 25);
    await dest.writeAtomic('sets/42/file.bin', bytes);
    expect(path.isAbsolute(dest.capabilities.localRoot!)).toBe(true);
    expect((await fs.readFile(path.join(dest.capabilities.localRoot!, 'sets', '42', 'file.bin'))).equals(bytes)).toBe(true);
  });

  where('sharedAcrossMachines', "each head saved carries a new generation; this machine's records match only the head it saved last", async () => {
    const { dest } = subject();
    const watermark = '2030-01-01T00:00:00Z';
    const state = await RunState.open(dest, systemClock);
    try {
      state.store.setWatermark(watermark);
      await state.saveIfChanged();
    } finally {
      state.store.close();
    }
    // The head is published in the destination with the generation this machine committed.
    const saved = JSON.parse((await dest.readText(STATE_KEY))!) as { generation?: string; watermark: string };
    expect(saved.watermark).toBe(watermark);
    expect(saved.generation).toMatch(/^[0-9a-f-]{36}$/);
    expect(peekRecordsMatch(dest, { watermark, generation: saved.generation })).toBe(true);
    // Another machine saved the head since: its generation is not the one this machine wrote.
    expect(peekRecordsMatch(dest, { watermark, generation: 'written-elsewhere' })).toBe(false);
  });
}
