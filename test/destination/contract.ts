// The contract every Destination passes (rclone's fstests): one suite, run against the folder,
// the bucket and the in-memory destination by their own test files. Nothing here knows which
// kind it tests; each test gets a fresh, prepared destination from `make`. The optional members
// are capabilities (contract-capabilities.ts): tested where the backend declares them, reported
// skipped where it does not.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DestinationError, type Destination, type ObjectInfo } from '../../src-main/sync/destination/destination';
import type { Capability } from '../../src-main/sync/destination/registry';
import { capabilityContract } from './contract-capabilities';
import { bodyOf, collect, expectation, readAll, rejectsWith, sha256, writeIn } from './contract-helpers';

export { bodyOf, readAll, sha256 } from './contract-helpers';

export interface ContractSubject {
  dest: Destination;
  /** The destination's `.withdrawn` sibling (siblingSpec), not prepared: move() must make what it needs. */
  sibling: Destination;
  cleanup(): Promise<void>;
}

/**
 * `bigSize`: a body size that spans several of the implementation's upload units (a bucket's
 * multipart parts); small bodies are tested too. `capabilities`: the optional members the
 * backend declares (its registry entry's), each tested where declared and skipped, saying why,
 * where not.
 */
export function destinationContract(name: string, make: () => Promise<ContractSubject>, opts: { bigSize?: number; capabilities?: readonly Capability[] } = {}): void {
  const BIG = opts.bigSize ?? 12 * 1024 * 1024 + 12345;

  describe(`Destination contract: ${name}`, () => {
    let subject: ContractSubject;
    let dest: Destination;
    beforeEach(async () => {
      subject = await make();
      dest = subject.dest;
      await dest.prepare();
    });
    afterEach(async () => {
      await subject.cleanup();
    });

    it('stat: null when absent; size and stamp when present; the stamp changes when the object is rewritten', async () => {
      expect(await dest.stat('collection.json')).toBeNull();
      const first = await dest.writeAtomic('collection.json', '{"a":1}');
      const st = await dest.stat('collection.json');
      expect(st).toMatchObject({ key: 'collection.json', size: 7, stamp: first.stamp });
      // A folder's stamp is its mtime in ms: let the clock move before rewriting.
      await new Promise((r) => setTimeout(r, 20));
      const second = await dest.writeAtomic('collection.json', '{"a":22}');
      expect(second.stamp).not.toBe(first.stamp);
      expect(await dest.stat('collection.json')).toMatchObject({ size: 8, stamp: second.stamp });
    });

    it('list: every object under a prefix, recursively, in key order, with the stamps stat gives', async () => {
      for (const key of ['sets/2/b.txt', 'sets/10/a.txt', 'sets/1/a.txt', 'sets/1/z/deep.txt', 'collection.json']) await dest.writeAtomic(key, key);
      const all = await collect(dest.list('sets/'));
      expect(all.map((o) => o.key)).toEqual(['sets/1/a.txt', 'sets/1/z/deep.txt', 'sets/10/a.txt', 'sets/2/b.txt']);
      expect(all[0]).toMatchObject({ size: 'sets/1/a.txt'.length, stamp: (await dest.stat('sets/1/a.txt'))!.stamp });
      expect((await collect(dest.list('sets/1/'))).map((o) => o.key)).toEqual(['sets/1/a.txt', 'sets/1/z/deep.txt']);
      expect(await collect(dest.list('nothing/'))).toEqual([]);
      expect((await collect(dest.list(''))).map((o) => o.key)).toEqual(expect.arrayContaining(['collection.json', 'sets/2/b.txt']));
    });

    it('move: into the sibling, replacing what is there; the source is gone; false when absent; the bytes (and a bucket\'s sha256) travel', async () => {
      const bytes = bodyOf(200_000, 11);
      const upload = await dest.openUpload('sets/4/set_4_slot_01.mp4', expectation(bytes, 'move-4'));
      await writeIn(upload, bytes, 0, bytes.length);
      const committed = await upload.commit();
      const sibling = subject.sibling;
      expect(await dest.move('sets/4/set_4_slot_01.mp4', sibling, '4/set_4_slot_01.mp4')).toBe(true);
      expect(await dest.stat('sets/4/set_4_slot_01.mp4')).toBeNull();
      expect((await readAll(sibling.read('4/set_4_slot_01.mp4'))).equals(bytes)).toBe(true);
      if (committed.sha256) expect((await sibling.stat('4/set_4_slot_01.mp4'))?.sha256).toBe(sha256(bytes));
      await dest.writeAtomic('sets/4/set.json', 'older');
      expect(await dest.move('sets/4/set.json', sibling, '4/set.json')).toBe(true);
      await dest.writeAtomic('sets/4/set.json', '{"id":4}');
      expect(await dest.move('sets/4/set.json', sibling, '4/set.json')).toBe(true);
      expect(await sibling.readText('4/set.json')).toBe('{"id":4}');
      expect(await dest.move('sets/4/absent.mp4', sibling, '4/absent.mp4')).toBe(false);
      expect(await sibling.stat('4/absent.mp4')).toBeNull();
    });

    it('removeAll: every object goes; a destination never written to is fine', async () => {
      await subject.sibling.removeAll();
      await dest.writeAtomic('sets/5/a.txt', 'a');
      await dest.writeAtomic('sets/5/sub/b.txt', 'b');
      await dest.writeAtomic('collection.json', '{}');
      await dest.removeAll();
      expect(await collect(dest.list(''))).toEqual([]);
    });

    it('read and readText: the bytes written; readText null and read an error when absent', async () => {
      const bytes = bodyOf(300_000, 7);
      await dest.writeAtomic('sets/1/blob.bin', bytes);
      expect((await readAll(dest.read('sets/1/blob.bin'))).equals(bytes)).toBe(true);
      await dest.writeAtomic('state.json', 'héllo ✓');
      expect(await dest.readText('state.json')).toBe('héllo ✓');
      expect(await dest.readText('absent.json')).toBeNull();
      await expect(readAll(dest.read('absent.bin'))).rejects.toBeInstanceOf(DestinationError);
    });

    it('read from an offset: the bytes from there to the end (the media check skips video data so)', async () => {
      const bytes = bodyOf(300_000, 8);
      await dest.writeAtomic('sets/1/blob.bin', bytes);
      expect((await readAll(dest.read('sets/1/blob.bin', { start: 123_457 }))).equals(bytes.subarray(123_457))).toBe(true);
      expect((await readAll(dest.read('sets/1/blob.bin', { start: 0, chunkBytes: 4096 }))).equals(bytes)).toBe(true);
      // A reader that stops early lets go of the object (a bucket's GET, a folder's handle).
      for await (const chunk of dest.read('sets/1/blob.bin', { start: 1000, chunkBytes: 4096 })) {
        expect(chunk.equals(bytes.subarray(1000, 1000 + chunk.length))).toBe(true);
        break;
      }
    });

    it('writeAtomic streams an iterable body (strings and Buffers) and writes private objects', async () => {
      const chunks = Array.from({ length: 40 }, (_, i) => (i % 2 ? bodyOf(200_000, i) : `row ${i}\n`));
      const whole = Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));
      const info = await dest.writeAtomic('manifest.csv', (async function* () {
        for (const c of chunks) yield c;
      })());
      expect(info.size).toBe(whole.length);
      expect((await dest.stat('manifest.csv'))!.stamp).toBe(info.stamp);
      expect((await readAll(dest.read('manifest.csv'))).equals(whole)).toBe(true);
      await dest.writeAtomic('consent.json', '{"secret":false}', { private: true });
      expect(await dest.readText('consent.json')).toBe('{"secret":false}');
    });

    it('remove: the object is gone; removing an absent object is fine', async () => {
      await dest.writeAtomic('sets/1/x.txt', 'x');
      await dest.remove('sets/1/x.txt');
      expect(await dest.stat('sets/1/x.txt')).toBeNull();
      await dest.remove('sets/1/x.txt');
      await dest.remove('never/was.txt');
    });

    it('upload: nothing is visible before commit; commit makes exactly the bytes visible, with the sha256 where the store vouches for it', async () => {
      for (const [i, size] of [0, 1000, BIG].entries()) {
        const body = bodyOf(size, 10 + i);
        const key = `sets/${i}/set_${i}_slot_01.mp4`;
        const upload = await dest.openUpload(key, expectation(body, `${i}-set_${i}_slot_01.mp4-${sha256(body)}`));
        expect(upload.held).toBe(0);
        await writeIn(upload, body, 0, size);
        expect(await dest.stat(key)).toBeNull();
        const info = await upload.commit();
        expect(info).toMatchObject({ key, size });
        const st = await dest.stat(key);
        expect(st).toMatchObject({ size, stamp: info.stamp });
        if (st!.sha256 !== undefined) expect(st!.sha256).toBe(sha256(body));
        expect((await readAll(dest.read(key))).equals(body)).toBe(true);
      }
    });

    it('upload: close and reopen resumes with the bytes held, readHeld gives them, and the rest completes the body', async () => {
      const body = bodyOf(BIG, 3);
      const exp = expectation(body, `5-set_5_slot_02.mp4-${sha256(body)}`);
      const key = 'sets/5/set_5_slot_02.mp4';
      const first = await dest.openUpload(key, exp);
      const cut = Math.floor(BIG * 0.7);
      await writeIn(first, body, 0, cut);
      await first.close();
      expect(await dest.stat(key)).toBeNull();

      const again = await dest.openUpload(key, exp);
      expect(again.held).toBe(cut);
      expect((await readAll(again.readHeld())).equals(body.subarray(0, cut))).toBe(true);
      await writeIn(again, body, cut, BIG);
      const info = await again.commit();
      expect(info.size).toBe(BIG);
      expect((await readAll(dest.read(key))).equals(body)).toBe(true);
      // Committed: nothing is held any more for this body.
      const after = await dest.openUpload(key, exp);
      expect(after.held).toBe(0);
      await after.discard();
    });

    it('upload: restart drops what is held and the body is written again from 0', async () => {
      const body = bodyOf(BIG, 4);
      const key = 'sets/6/set_6_slot_01.mp4';
      const upload = await dest.openUpload(key, expectation(body, `6-set_6_slot_01.mp4-${sha256(body)}`));
      await writeIn(upload, bodyOf(BIG, 99), 0, Math.floor(BIG / 2));
      await upload.restart();
      await writeIn(upload, body, 0, BIG);
      await upload.commit();
      expect((await readAll(dest.read(key))).equals(body)).toBe(true);
    });

    it('upload: discard removes the bytes held; a new upload of the same body starts at 0', async () => {
      const body = bodyOf(BIG, 5);
      const exp = expectation(body, `7-set_7_slot_01.mp4-${sha256(body)}`);
      const key = 'sets/7/set_7_slot_01.mp4';
      const upload = await dest.openUpload(key, exp);
      await writeIn(upload, body, 0, Math.floor(BIG * 0.8));
      await upload.discard();
      expect(await dest.stat(key)).toBeNull();
      const again = await dest.openUpload(key, exp);
      expect(again.held).toBe(0);
      expect(await readAll(again.readHeld())).toHaveLength(0);
      await again.discard();
    });

    it('upload: another body for the same key (an edited file) never resumes on the old bytes', async () => {
      const old = bodyOf(200_000, 8);
      const edited = bodyOf(200_000, 9);
      const key = 'sets/8/set_8_slot_01.mp4';
      const first = await dest.openUpload(key, expectation(old, `8-set_8_slot_01.mp4-${sha256(old)}`));
      await writeIn(first, old, 0, 100_000);
      await first.close();
      const second = await dest.openUpload(key, expectation(edited, `8-set_8_slot_01.mp4-${sha256(edited)}`));
      expect(second.held).toBe(0);
      await writeIn(second, edited, 0, edited.length);
      await second.commit();
      expect((await readAll(dest.read(key))).equals(edited)).toBe(true);
      await (await dest.openUpload(key, expectation(old, `8-set_8_slot_01.mp4-${sha256(old)}`))).discard();
    });

    it('verifiedCopy: the committed object when size and sha256 match, else null', async () => {
      const body = bodyOf(50_000, 11);
      const key = 'sets/9/set_9_slot_01.mp4';
      const upload = await dest.openUpload(key, expectation(body, `9-set_9_slot_01.mp4-${sha256(body)}`));
      await writeIn(upload, body, 0, body.length);
      const info = await upload.commit();
      expect(await dest.verifiedCopy(key, { size: body.length, sha256: sha256(body) })).toMatchObject({ key, size: body.length, stamp: info.stamp });
      expect(await dest.verifiedCopy(key, { size: body.length, sha256: sha256(bodyOf(50_000, 12)) })).toBeNull();
      expect(await dest.verifiedCopy(key, { size: body.length + 1, sha256: sha256(body) })).toBeNull();
      expect(await dest.verifiedCopy('sets/9/absent.mp4', { size: body.length, sha256: sha256(body) })).toBeNull();
    });

    it('checkPresence: finds the objects that are missing or changed, and nothing else', async () => {
      const recorded: ObjectInfo[] = [];
      for (let i = 1; i <= 5; i++) recorded.push(await dest.writeAtomic(`sets/${i}/set_${i}_slot_01.mp4`, bodyOf(1000 + i, i)));
      await dest.writeAtomic('sets/3/extra.txt', 'not recorded');
      expect(await collect(dest.checkPresence(recorded))).toEqual([]);
      await dest.remove('sets/2/set_2_slot_01.mp4');
      await new Promise((r) => setTimeout(r, 20));
      await dest.writeAtomic('sets/4/set_4_slot_01.mp4', bodyOf(1004, 40)); // same size, other bytes
      await dest.writeAtomic('sets/5/set_5_slot_01.mp4', bodyOf(10, 5)); // other size
      const problems = await collect(dest.checkPresence(recorded));
      expect(problems.map((p) => [p.key, p.problem]).sort()).toEqual([
        ['sets/2/set_2_slot_01.mp4', 'missing'],
        ['sets/4/set_4_slot_01.mp4', 'changed'],
        ['sets/5/set_5_slot_01.mp4', 'changed'],
      ]);
      expect(await collect(dest.checkPresence([]))).toEqual([]);
    });

    it('lock: one holder at a time; a second lock() is refused as locked; released, it can be taken again', async () => {
      const lock = await dest.lock();
      const e = await rejectsWith(dest.lock(), 'locked');
      expect(e.message).toMatch(/another sync/i);
      await lock.release();
      const again = await dest.lock();
      await again.release();
    });

    it("keys: '..', '.', absolute and empty segments are refused as bad_key by every operation", async () => {
      for (const key of ['../x', 'a/../b', '/abs', 'a//b', 'a/./b', '', 'a/']) {
        await rejectsWith(dest.stat(key), 'bad_key');
        await rejectsWith(dest.writeAtomic(key, 'x'), 'bad_key');
        await rejectsWith(dest.readText(key), 'bad_key');
        await rejectsWith(dest.remove(key), 'bad_key');
        await rejectsWith(dest.openUpload(key, { size: 1, sha256: sha256(Buffer.from('x')), resumeKey: 'k' }), 'bad_key');
      }
      await rejectsWith(readAll(dest.read('../x')), 'bad_key');
    });

    capabilityContract(name, opts.capabilities ?? [], () => subject);
  });
}
