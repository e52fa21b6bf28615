// SharedPass (src-main/sync/shared-pass.ts): the end of a sync reads every set record once for all
// the dataset files it writes whole. Each reader sees every record in order; the fastest runs at
// most a window ahead of the slowest; a reader closed early or a failing writer does not hold the
// others for ever.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { SharedPass } from '../../src-main/sync/shared-pass';
import { SetStore } from '../../src-main/sync/state/set-store';
import { sha256sumCheck, sync, tempDir, useService } from './helpers';

async function* numbers(n: number, pulled: { count: number }): AsyncGenerator<number> {
  for (let i = 0; i < n; i++) {
    pulled.count++;
    yield i;
  }
}

async function take(reader: AsyncIterable<number>, limit = Infinity): Promise<number[]> {
  const out: number[] = [];
  for await (const v of reader) {
    out.push(v);
    if (out.length >= limit) break;
  }
  return out;
}

describe('SharedPass', () => {
  it('reads the source once and gives every reader every item in order', async () => {
    const pulled = { count: 0 };
    let sources = 0;
    const pass = new SharedPass(() => {
      sources++;
      return numbers(1000, pulled);
    });
    const readers = [pass.reader(), pass.reader(), pass.reader()];
    const all = await Promise.all(readers.map((r) => take(r)));
    const expected = Array.from({ length: 1000 }, (_, i) => i);
    for (const got of all) expect(got).toEqual(expected);
    expect(sources).toBe(1);
    expect(pulled.count).toBe(1000);
  });

  it('holds a fast reader until the slow one has taken the records it is ahead by', async () => {
    const pulled = { count: 0 };
    const pass = new SharedPass(() => numbers(10_000, pulled));
    const fast = pass.reader()[Symbol.asyncIterator]();
    const slow = pass.reader()[Symbol.asyncIterator]();
    let fastTook = 0;
    const racing = (async () => {
      for (let r = await fast.next(); !r.done; r = await fast.next()) fastTook++;
    })();
    await new Promise((r) => setTimeout(r, 50));
    // Held within the window: neither the source nor the fast reader ran to the end.
    expect(fastTook).toBeLessThan(600);
    expect(pulled.count).toBeLessThan(600);
    for (let r = await slow.next(); !r.done; r = await slow.next());
    await racing;
    expect(fastTook).toBe(10_000);
  });

  it('lets the others go on when a reader is closed early', async () => {
    const pass = new SharedPass(() => numbers(5000, { count: 0 }));
    const a = pass.reader();
    const b = pass.reader();
    const [first, rest] = await Promise.all([take(a, 3), take(b)]);
    expect(first).toEqual([0, 1, 2]);
    expect(rest).toHaveLength(5000);
  });

  it('ends every reader with the error of an aborted pass, even one held by the window', async () => {
    const pass = new SharedPass(() => numbers(5000, { count: 0 }));
    const fast = pass.reader();
    pass.reader(); // a writer that failed before it read anything
    const reading = take(fast);
    setTimeout(() => pass.abort(new Error('the disk is full')), 20);
    await expect(reading).rejects.toThrow('the disk is full');
  });

  it('passes a failing source on to every reader', async () => {
    async function* failing(): AsyncGenerator<number> {
      yield 1;
      throw new Error('database gone');
    }
    const pass = new SharedPass(failing);
    const readers = [pass.reader(), pass.reader()];
    for (const r of await Promise.allSettled(readers.map((x) => take(x)))) expect(r).toMatchObject({ status: 'rejected', reason: new Error('database gone') });
  });

  it('refuses a reader taken after the first read', async () => {
    const pass = new SharedPass(() => numbers(3, { count: 0 }));
    const reader = pass.reader()[Symbol.asyncIterator]();
    await reader.next();
    expect(() => pass.reader()).toThrow(/before the first read/);
  });
});

describe('the end of a first sync', () => {
  const env = useService({ sets: 6, fileSize: 1024, slots: 2 });
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
  });

  it('reads the set records once for manifest.csv, SHA256SUMS, media.csv, participants.csv and croissant.json', async () => {
    const dir = await tempDir('dsync-onepass-');
    dirs.push(dir);
    const dest = path.join(dir, 'ds');
    const all = vi.spyOn(SetStore.prototype, 'all');
    try {
      expect((await sync(env.svc, dest)).summary.exitCode).toBe(0);
      expect(all).toHaveBeenCalledTimes(1);
    } finally {
      all.mockRestore();
    }
    for (const name of ['manifest.csv', 'SHA256SUMS', 'media.csv', 'participants.csv', 'croissant.json']) expect((await fs.stat(path.join(dest, name))).size).toBeGreaterThan(0);
    expect((await sha256sumCheck(dest)).code).toBe(0);
    const croissant = JSON.parse(await fs.readFile(path.join(dest, 'croissant.json'), 'utf8')) as { distribution: Array<{ '@id': string; sha256: string }> };
    const manifestObject = croissant.distribution.find((f) => f['@id'] === 'manifest.csv');
    expect(manifestObject?.sha256).toBe(createHash('sha256').update(await fs.readFile(path.join(dest, 'manifest.csv'))).digest('hex'));
  });
});
