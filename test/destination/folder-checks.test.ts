// The shared folder checks of a folder destination's commits (destination/local/folder-checks.ts):
// asks at the same moment share an lstat, and no ask is answered by an lstat that started before
// it was made, so a folder swapped for a link right after an ask is seen by that ask.
import { mkdirSync, promises as fs, renameSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FolderChecks } from '../../src-main/sync/destination/local/folder-checks';

let work: string;
let dir: string;

beforeEach(async () => {
  work = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-checks-')));
  dir = path.join(work, 'sets');
  mkdirSync(dir);
});

afterEach(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

it('a real folder, a missing one and a link', async () => {
  const checks = new FolderChecks();
  expect(await checks.notRealFolder(dir)).toBe(false);
  expect(await checks.notRealFolder(path.join(work, 'absent'))).toBe(false); // the rename judges
  symlinkSync(dir, path.join(work, 'link'));
  expect(await checks.notRealFolder(path.join(work, 'link'))).toBe(true);
  expect(checks.inFlight).toBe(0);
});

it('asks made while an lstat runs share the next one, which sees a swap made after them', async () => {
  const checks = new FolderChecks();
  const first = checks.notRealFolder(dir);
  const second = checks.notRealFolder(dir);
  expect(checks.notRealFolder(dir)).toBe(second); // a third ask joins the same queued lstat
  // Swapped at once, before any lstat's answer can be read: the queued lstat starts after the
  // first one ends, so after this swap; the first may have seen either.
  renameSync(dir, path.join(work, 'moved'));
  symlinkSync(path.join(work, 'moved'), dir);
  expect(typeof (await first)).toBe('boolean');
  expect(await second).toBe(true);
  // Nothing is kept once the checks end; the next ask looks again.
  expect(checks.inFlight).toBe(0);
  expect(await checks.notRealFolder(dir)).toBe(true);
  expect(checks.inFlight).toBe(0);
});
