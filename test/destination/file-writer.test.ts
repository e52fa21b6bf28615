// The file writer thread (src-main/sync/destination/local/file-writer.ts) on real files: writes
// asked while earlier requests are unanswered wait and go in one message, a batch of lstat calls
// goes at once, and every write still lands whole.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { fileWriter, PATH_FILE, PATH_FOLDER, STAT_FIELDS } from '../../src-main/sync/destination/local/file-writer';

let work: string;
beforeEach(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-writer-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(work, { recursive: true, force: true });
});

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function writerOrThrow() {
  const writer = fileWriter();
  if (writer === null) throw new Error('no worker threads here');
  return writer;
}

/** Keeps the writer thread busy: lstat calls at paths that do not exist, answered as one batch. */
function busyLook(writer: ReturnType<typeof writerOrThrow>) {
  const missing = Array.from({ length: 60_000 }, (_, i) => path.join(work, 'nothing', `f${i}`));
  const look = writer.lstatMany(missing, missing.map(() => -1));
  const state = { done: false, paths: missing.length };
  void look.then(() => (state.done = true));
  return { look, state };
}

function putIn(writer: ReturnType<typeof writerOrThrow>, i: number) {
  const sets = path.join(work, 'sets');
  return writer.put({ tmp: path.join(work, 'tmp', `.f${i}.tmp`), target: path.join(sets, `f${i}.bin`), data: `body ${i}\n`, mode: null, folders: [sets], makeFolder: false });
}

beforeEach(async () => {
  await fs.mkdir(path.join(work, 'tmp'));
  await fs.mkdir(path.join(work, 'sets'));
});

it('holds writes asked in later turns while a request is unanswered, then sends them in one message', async () => {
  const writer = writerOrThrow();
  // Counts the messages the real worker is sent; each call still goes through.
  const posted = vi.spyOn(Worker.prototype, 'postMessage');
  const busy = busyLook(writer);
  const puts = [];
  for (let i = 0; i < 5; i++) {
    await nextTurn();
    puts.push(putIn(writer, i));
  }
  const results = await Promise.all(puts);
  expect((await busy.look).length).toBe(busy.state.paths * STAT_FIELDS);
  // The lstat batch, then the five writes in one message once it was answered.
  expect(posted.mock.calls.map((c) => (c[0] as unknown[]).length)).toEqual([1, 5]);
  for (let i = 0; i < 5; i++) {
    expect(results[i]).toMatchObject({ size: `body ${i}\n`.length });
    expect(await fs.readFile(path.join(work, 'sets', `f${i}.bin`), 'utf8')).toBe(`body ${i}\n`);
  }
  const after = await writer.lstatMany([path.join(work, 'sets', 'f0.bin')], [-1]);
  expect(after[0]).toBe(PATH_FILE);
});

it('sends a batch of lstat calls at once, with the writes held so far, while a request is unanswered', async () => {
  const writer = writerOrThrow();
  const posted = vi.spyOn(Worker.prototype, 'postMessage');
  const busy = busyLook(writer);
  await nextTurn();
  const put = putIn(writer, 0);
  await nextTurn();
  expect(posted.mock.calls).toHaveLength(1); // the write is held
  const second = writer.lstatMany([path.join(work, 'sets')], [-1]);
  await nextTurn();
  // Posted while the first batch still runs: the disk check's next round never waits on the writes.
  expect(busy.state.done).toBe(false);
  expect(posted.mock.calls.map((c) => (c[0] as unknown[]).length)).toEqual([1, 2]);
  expect((await second)[0]).toBe(PATH_FOLDER);
  expect(await put).toMatchObject({ size: 'body 0\n'.length });
  await busy.look;
});
