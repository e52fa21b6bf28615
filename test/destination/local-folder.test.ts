// LocalFolder (src-main/sync/destination/local-folder.ts) through the Destination interface: the
// guarantees only a folder has (links never followed, the escape checks around a commit's rename,
// part files that resume across restarts under today's names, the consents folder's modes), and
// the key rules every destination shares. The generic contract suite runs against it too.
import { createHash } from 'node:crypto';
import { promises as fs, renameSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DestinationError, EscapeError, type Destination } from '../../src-main/sync/destination/destination';
import { createLocalFolder, LINKED_STAMP, type LocalFolder } from '../../src-main/sync/destination/local/local-folder';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

async function readAll(d: Destination, key: string): Promise<Buffer> {
  return Buffer.concat(await collect(d.read(key)));
}

let work: string;
let dest: string;
let folder: LocalFolder;

beforeEach(async () => {
  // realpath: os.tmpdir() may itself be reached through a link (macOS /var -> /private/var).
  work = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'dsync-folder-')));
  dest = path.join(work, 'ds');
  folder = createLocalFolder(dest);
  expect(await folder.prepare()).toEqual([]);
});

afterEach(async () => {
  await folder.close();
  await fs.rm(work, { recursive: true, force: true });
});

/** An upload of `body` to sets/<set>/<name>, written in one go; not committed. */
async function upload(key: string, body: Buffer, resumeKey = `1-2-${sha(body)}`) {
  const u = await folder.openUpload(key, { size: body.length, sha256: sha(body), resumeKey });
  await u.write([body], u.held);
  return u;
}

const partPath = (resumeKey: string) => path.join(dest, '.dataset-sync', 'partial', `${resumeKey}.part`);

describe('LocalFolder: keys', () => {
  const BAD = ['..', '../x', 'sets/../../x', '/etc/passwd', 'sets//1', 'sets/1/', '', './x', 'sets/./x', 'a\\b'];

  it.each(BAD)('refuses the key %j with DestinationError bad_key in every operation', async (key) => {
    const refused = async (p: Promise<unknown>) => {
      const e = await p.then(
        () => null,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(DestinationError);
      expect((e as DestinationError).kind).toBe('bad_key');
    };
    await refused(folder.stat(key));
    await refused(folder.readText(key));
    await refused(collect(folder.read(key)));
    await refused(folder.writeAtomic(key, 'x'));
    await refused(folder.remove(key));
    await refused(folder.openUpload(key, { size: 1, sha256: sha(Buffer.from('x')), resumeKey: '1-2-x' }));
    await refused(folder.verifiedCopy(key, { size: 1, sha256: sha(Buffer.from('x')) }));
    // Nothing was written anywhere, in DEST or beside it.
    expect((await fs.readdir(work)).sort()).toEqual(['ds']);
  });

  it('refuses a resume key that could leave the partial folder', async () => {
    for (const resumeKey of ['../x', 'a/b', '.hidden', '']) {
      await expect(folder.openUpload('sets/1/a.bin', { size: 1, sha256: 'a'.repeat(64), resumeKey })).rejects.toMatchObject({ kind: 'bad_key' });
    }
  });
});

describe('LocalFolder: uploads', () => {
  it('shows nothing under the key before commit, then the bytes with the stamp commit returned', async () => {
    const body = Buffer.from('hello, dataset\n');
    await folder.writeAtomic('sets/1/set.json', '{}\n');
    const u = await upload('sets/1/a.bin', body);
    expect(await folder.stat('sets/1/a.bin')).toBeNull();
    const info = await u.commit();
    await u.close();
    expect(info).toMatchObject({ key: 'sets/1/a.bin', size: body.length });
    expect(await folder.stat('sets/1/a.bin')).toEqual(info);
    expect(await readAll(folder, 'sets/1/a.bin')).toEqual(body);
    expect(await fs.readdir(path.join(dest, '.dataset-sync', 'partial'))).toEqual([]);
  });

  it.each([
    ['a small body (held in memory, set aside in the part file at close)', 64 * 1024 + 3],
    ['a large body (a part file from the first byte)', 2 * 1024 * 1024 + 5],
  ])('%s: held bytes survive close and reopen, readHeld yields them, restart drops them', async (_what, size) => {
    const body = Buffer.alloc(size, 7);
    body.write('start', 0);
    const resumeKey = `1-2-${sha(body)}`;
    const expect_ = { size, sha256: sha(body), resumeKey };
    const first = await folder.openUpload('sets/1/a.bin', expect_);
    expect(first.held).toBe(0);
    const half = Math.floor(size / 2);
    expect(await first.write([body.subarray(0, 10), body.subarray(10, half)], 0)).toBe(half);
    await first.close();
    // A later sync (or attempt) resumes: the held bytes are there, in order.
    const again = await folder.openUpload('sets/1/a.bin', expect_);
    expect(again.held).toBe(half);
    // Compared by hash: vitest's deep equality walks a 2 MiB buffer byte by byte.
    expect(sha(Buffer.concat(await collect(again.readHeld())))).toBe(sha(body.subarray(0, half)));
    // A 200 answer to the resume: everything held is dropped, the body is written from 0.
    await again.restart();
    await again.write([body], 0);
    const info = await again.commit();
    expect(info.size).toBe(size);
    expect(sha(await readAll(folder, 'sets/1/a.bin'))).toBe(sha(body));
  });

  it('a small body is written whole at commit: no part file or temp file at any moment, the stamp is the file\'s mtime', async () => {
    const body = Buffer.alloc(10_000, 5);
    await folder.writeAtomic('sets/1/set.json', '{}\n');
    const u = await upload('sets/1/a.bin', body);
    const partial = path.join(dest, '.dataset-sync', 'partial');
    const tmp = path.join(dest, '.dataset-sync', 'tmp');
    expect(await fs.readdir(partial)).toEqual([]);
    const info = await u.commit();
    await u.close();
    const st = await fs.lstat(path.join(dest, 'sets', '1', 'a.bin'));
    expect(info).toEqual({ key: 'sets/1/a.bin', size: body.length, stamp: String(st.mtimeMs) });
    expect(sha(await readAll(folder, 'sets/1/a.bin'))).toBe(sha(body));
    expect(await fs.readdir(partial)).toEqual([]);
    expect(await fs.readdir(tmp)).toEqual([]);
  });

  it('a small body whose set folder was deleted mid-sync: the folder is made again', async () => {
    const body = Buffer.from('small and late');
    await folder.writeAtomic('sets/1/set.json', '{}\n');
    const u = await upload('sets/1/a.bin', body);
    await fs.rm(path.join(dest, 'sets', '1'), { recursive: true });
    await u.commit();
    expect((await readAll(folder, 'sets/1/a.bin')).toString()).toBe('small and late');
  });

  it('openUploadNow: a small upload without waiting once the lock listed partial/, never for a held part file or a large body', async () => {
    const body = Buffer.from('opened at once');
    const expect_ = (rk: string, size = body.length) => ({ size, sha256: sha(body), resumeKey: rk });
    const held = `1-3-${sha(body)}`;
    await fs.writeFile(partPath(held), body.subarray(0, 4));
    // Before the lock nothing was listed: the engine waits for openUpload.
    expect(folder.openUploadNow('sets/1/a.bin', expect_(`1-2-${sha(body)}`))).toBeNull();
    const lock = await folder.lock();
    try {
      // The listing lock() began settles (an unused upload holds nothing).
      await vi.waitFor(() => expect(folder.openUploadNow('sets/1/e.bin', expect_(`1-7-${sha(body)}`))).not.toBeNull());
      expect(folder.openUploadNow('sets/1/c.bin', expect_(held))).toBeNull(); // its held bytes resume through openUpload
      expect(folder.openUploadNow('sets/1/d.bin', expect_(`1-4-${sha(body)}`, 2 * 1024 * 1024))).toBeNull();
      expect(() => folder.openUploadNow('sets/../x', expect_(`1-5-${sha(body)}`))).toThrow(DestinationError);
      const u = folder.openUploadNow('sets/1/a.bin', expect_(`1-2-${sha(body)}`))!;
      expect(u.held).toBe(0);
      await u.write([body], 0);
      expect(await folder.stat('sets/1/a.bin')).toBeNull();
      const info = await u.commit();
      expect(await folder.stat('sets/1/a.bin')).toEqual(info);
      expect((await readAll(folder, 'sets/1/a.bin')).toString()).toBe('opened at once');
      // Not committed, its bytes are set aside at close like openUpload's, and the next open resumes them.
      const cut = folder.openUploadNow('sets/1/b.bin', expect_(`1-6-${sha(body)}`))!;
      await cut.write([body.subarray(0, 6)], 0);
      await cut.close();
      expect(folder.openUploadNow('sets/1/b.bin', expect_(`1-6-${sha(body)}`))).toBeNull();
      expect((await folder.openUpload('sets/1/b.bin', expect_(`1-6-${sha(body)}`))).held).toBe(6);
    } finally {
      await lock.release();
    }
  });

  it('discard removes the held bytes; close keeps them', async () => {
    const body = Buffer.from('x'.repeat(100));
    const rk = `1-2-${sha(body)}`;
    const kept = await upload('sets/1/a.bin', body.subarray(0, 40), rk);
    await kept.close();
    expect((await fs.stat(partPath(rk))).size).toBe(40);
    const dropped = await folder.openUpload('sets/1/a.bin', { size: 100, sha256: sha(body), resumeKey: rk });
    await dropped.discard();
    await expect(fs.lstat(partPath(rk))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('takes over a part file under the name older versions used (<file>-<sha256>.part)', async () => {
    const body = Buffer.from('resumable bytes');
    const digest = sha(body);
    await fs.writeFile(partPath(`2-${digest}`), body.subarray(0, 5));
    const u = await folder.openUpload('sets/1/a.bin', { size: body.length, sha256: digest, resumeKey: `1-2-${digest}` });
    expect(u.held).toBe(5);
    await u.close();
    expect((await fs.readdir(path.join(dest, '.dataset-sync', 'partial'))).sort()).toEqual([`1-2-${digest}.part`]);
  });

  it.each([
    ['small', 1000],
    ['large', 2 * 1024 * 1024],
  ])('never follows a symlink planted at the part path (%s body)', async (_what, size) => {
    const body = Buffer.alloc(size, 3);
    const rk = `1-2-${sha(body)}`;
    const outside = path.join(work, 'outside.bin');
    await fs.writeFile(outside, 'precious');
    await fs.symlink(outside, partPath(rk));
    const u = await folder.openUpload('sets/1/a.bin', { size, sha256: sha(body), resumeKey: rk });
    expect(u.held).toBe(0); // the link was removed, not taken for held bytes
    await u.write([body], 0);
    await folder.writeAtomic('sets/1/set.json', '{}\n');
    await u.commit();
    expect(await fs.readFile(outside, 'utf8')).toBe('precious');
    expect(sha(await readAll(folder, 'sets/1/a.bin'))).toBe(sha(body));
  });

  it('a set folder swapped for a link before the commit: EscapeError, nothing written behind the link, the bytes stay held', async () => {
    const body = Buffer.from('verified bytes');
    await folder.writeAtomic('sets/1/set.json', '{}\n');
    const u = await upload('sets/1/a.bin', body);
    const elsewhere = path.join(work, 'elsewhere');
    await fs.mkdir(elsewhere);
    await fs.rm(path.join(dest, 'sets', '1'), { recursive: true });
    await fs.symlink(elsewhere, path.join(dest, 'sets', '1'));
    const e = await u.commit().then(
      () => null,
      (err: unknown) => err,
    );
    await u.close();
    expect(e).toBeInstanceOf(EscapeError);
    expect((e as EscapeError).kind).toBe('bad_key');
    expect((e as Error).message).toMatch(/no longer resolves inside DEST/);
    expect(await fs.readdir(elsewhere)).toEqual([]);
    expect((await fs.stat(partPath(`1-2-${sha(body)}`))).size).toBe(body.length);
  });

  it('small commits of one turn share their folder checks: a linked set folder among them fails only its own files', async () => {
    const bodies = ['one', 'two', 'three', 'four'].map((s) => Buffer.from(s));
    await folder.writeAtomic('sets/1/set.json', '{}\n');
    await folder.writeAtomic('sets/2/set.json', '{}\n');
    const keys = ['sets/1/a.bin', 'sets/2/b.bin', 'sets/1/c.bin', 'sets/2/d.bin'];
    const uploads = await Promise.all(keys.map((key, i) => upload(key, bodies[i]!, `${i + 1}-9-${sha(bodies[i]!)}`)));
    const elsewhere = path.join(work, 'elsewhere');
    await fs.mkdir(elsewhere);
    await fs.rm(path.join(dest, 'sets', '2'), { recursive: true });
    await fs.symlink(elsewhere, path.join(dest, 'sets', '2'));
    // Asked in the same turn: the four puts reach the file writer in one message.
    const results = await Promise.all(uploads.map((u) => u.commit().then((info) => info.key, (e: unknown) => e)));
    await Promise.all(uploads.map((u) => u.close()));
    expect(results[0]).toBe('sets/1/a.bin');
    expect(results[2]).toBe('sets/1/c.bin');
    for (const e of [results[1], results[3]]) {
      expect(e).toBeInstanceOf(EscapeError);
      expect((e as Error).message).toMatch(/no longer resolves inside DEST/);
    }
    expect(await fs.readdir(elsewhere)).toEqual([]);
    expect((await fs.readdir(path.join(dest, 'sets', '1'))).sort()).toEqual(['a.bin', 'c.bin', 'set.json']);
    expect((await fs.stat(partPath(`2-9-${sha(bodies[1]!)}`))).size).toBe(bodies[1]!.length);
  });
});

describe('LocalFolder: the commit checks every folder on the way, not the set folder alone', () => {
  it('sets/ moved out of DEST and a link left in its place (the set folder behind it is the same inode): EscapeError, nothing moved', async () => {
    const body = Buffer.from('verified bytes');
    await folder.writeAtomic('sets/1/set.json', '{}\n');
    const u = await upload('sets/1/a.bin', body);
    const moved = path.join(work, 'moved-sets');
    await fs.rename(path.join(dest, 'sets'), moved);
    await fs.symlink(moved, path.join(dest, 'sets'));
    const e = await u.commit().then(
      () => null,
      (err: unknown) => err,
    );
    await u.close();
    expect(e).toBeInstanceOf(EscapeError);
    expect((e as Error).message).toContain(`it leads to ${path.join(moved, '1')}`);
    expect(await fs.readdir(path.join(moved, '1'))).toEqual(['set.json']);
    expect((await fs.stat(partPath(`1-2-${sha(body)}`))).size).toBe(body.length);
  });
});

describe('LocalFolder: reading and checking', () => {
  it('stat, checkPresence and read never take a link for a file, nor a linked folder for a real one', async () => {
    await folder.writeAtomic('sets/1/a.bin', 'aaa');
    await folder.writeAtomic('sets/2/b.bin', 'bbb');
    await folder.writeAtomic('sets/3/c.bin', 'ccc');
    const a = (await folder.stat('sets/1/a.bin'))!;
    const b = (await folder.stat('sets/2/b.bin'))!;
    const c = (await folder.stat('sets/3/c.bin'))!;
    // 1: the file swapped for a link to an identical file; 2: removed; 3: its folder swapped for a link.
    const outside = path.join(work, 'outside');
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'a.bin'), 'aaa');
    await fs.writeFile(path.join(outside, 'c.bin'), 'ccc');
    await fs.rm(path.join(dest, 'sets/1/a.bin'));
    await fs.symlink(path.join(outside, 'a.bin'), path.join(dest, 'sets/1/a.bin'));
    await fs.rm(path.join(dest, 'sets/2/b.bin'));
    await fs.rm(path.join(dest, 'sets/3'), { recursive: true });
    await fs.symlink(outside, path.join(dest, 'sets/3'));

    const problems = await collect(folder.checkPresence([a, b, c]));
    expect(problems).toEqual([
      { key: 'sets/1/a.bin', problem: 'changed' },
      { key: 'sets/2/b.bin', problem: 'missing' },
      { key: 'sets/3/c.bin', problem: 'linked', detail: 'sets/3' },
    ]);
    expect(await folder.stat('sets/2/b.bin')).toBeNull();
    expect((await folder.stat('sets/3/c.bin'))?.stamp).toBe(LINKED_STAMP);
    await expect(collect(folder.read('sets/1/a.bin'))).rejects.toThrow(/is a symbolic link, not a regular file/);
    await expect(collect(folder.read('sets/1/a.bin'))).rejects.toMatchObject({ name: 'NotRegularFileError', kind: 'bad_key' });
    await expect(collect(folder.read('sets/2/b.bin'))).rejects.toMatchObject({ kind: 'io', code: 'ENOENT' });
    await expect(collect(folder.read('sets/3/c.bin'))).rejects.toThrow(/not a real folder/);
    expect(await folder.verifiedCopy('sets/1/a.bin', { size: 3, sha256: sha(Buffer.from('aaa')) })).toBeNull();
    // The linked folder is listed as an entry of its own, never walked.
    expect((await collect(folder.list('sets/'))).map((o) => o.key)).toEqual(['sets/1/a.bin', 'sets/3']);
  });

  it('writes whole objects (streamed bodies too), lists in key order, reads text, removes', async () => {
    async function* rows() {
      for (let i = 0; i < 1000; i++) yield `row ${i}\n`;
    }
    const info = await folder.writeAtomic('manifest.csv', rows());
    expect(info.size).toBe((await fs.stat(path.join(dest, 'manifest.csv'))).size);
    expect((await folder.readText('manifest.csv'))!.split('\n')[999]).toBe('row 999');
    expect(await folder.readText('nothing.json')).toBeNull();
    await folder.writeAtomic('sets/10/x', 'x');
    await folder.writeAtomic('sets/1/y', 'y');
    await folder.writeAtomic('sets/1-a/z', 'z');
    expect((await collect(folder.list('sets/'))).map((o) => o.key)).toEqual(['sets/1-a/z', 'sets/1/y', 'sets/10/x']);
    await folder.remove('sets/1/y');
    await folder.remove('sets/1/y'); // absent is fine
    expect(await folder.stat('sets/1/y')).toBeNull();
    // No temp file is left in the dataset, and tmp/ keeps them out of sets/.
    expect(await fs.readdir(path.join(dest, '.dataset-sync', 'tmp'))).toEqual([]);
    expect(await folder.freeSpace()).toBeGreaterThan(0);
  });

  it('gives small files their mode whatever the umask (fchmod only when the umask masked it)', async () => {
    const before = process.umask(0o077); // masks group and other: 0644 is created 0600
    try {
      const info = await folder.writeAtomic('sets/3/set.json', '{"a":1}');
      const st = await fs.stat(path.join(dest, 'sets/3/set.json'));
      expect(st.mode & 0o777).toBe(0o644);
      expect(info).toEqual({ key: 'sets/3/set.json', size: 7, stamp: String(st.mtimeMs) });
    } finally {
      process.umask(before);
    }
    await folder.writeAtomic('sets/3/other.json', '{}');
    expect((await fs.stat(path.join(dest, 'sets/3/other.json'))).mode & 0o777).toBe(0o644 & ~before);
  });

  it('verifiedCopy skips the look in a set folder it made while open, and finds copies that predate it', async () => {
    const body = Buffer.from('abc');
    const expect3 = { size: 3, sha256: sha(body) };
    await fs.mkdir(path.join(dest, 'sets', '7'), { recursive: true });
    await fs.writeFile(path.join(dest, 'sets', '7', 'a.bin'), body);
    await folder.writeAtomic('sets/7/set.json', '{}'); // the folder was there: looked at
    expect(await folder.verifiedCopy('sets/7/a.bin', expect3)).toMatchObject({ key: 'sets/7/a.bin', size: 3 });
    await folder.writeAtomic('sets/8/set.json', '{}'); // made now: nothing in it predates this sync
    await fs.writeFile(path.join(dest, 'sets', '8', 'a.bin'), body);
    expect(await folder.verifiedCopy('sets/8/a.bin', expect3)).toBeNull();
    // Opened again (the next sync), the same copy is found.
    await folder.close();
    folder = createLocalFolder(dest);
    expect(await folder.verifiedCopy('sets/8/a.bin', expect3)).toMatchObject({ key: 'sets/8/a.bin', size: 3 });
  });

  it('refuses to write through a set folder that is a link (the sync stops naming it)', async () => {
    await fs.mkdir(path.join(dest, 'sets'));
    await fs.symlink(work, path.join(dest, 'sets', '5'));
    await expect(folder.writeAtomic('sets/5/set.json', '{}')).rejects.toThrow(/is a symbolic link; refusing to follow it out of the dataset folder/);
    await expect(fs.lstat(path.join(work, 'set.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('one lock at a time, named in DestinationError locked', async () => {
    const lock = await folder.lock();
    const other = createLocalFolder(dest);
    await expect(other.lock()).rejects.toMatchObject({ kind: 'locked', message: expect.stringMatching(/Another sync is already running/) });
    await lock.release();
    await (await other.lock()).release();
  });
});

describe('LocalFolder: the old versions of extended files (replaced/)', () => {
  const replaced = () => path.join(dest, '.dataset-sync', 'replaced');
  const kept = async () => {
    const names = (await fs.readdir(replaced())).sort();
    return Promise.all(names.map(async (n) => ({ text: await fs.readFile(path.join(replaced(), n), 'utf8'), ino: (await fs.lstat(path.join(replaced(), n))).ino })));
  };

  it('keeps the version an extension replaced until the next sync takes the lock, which removes it and keeps its own', async () => {
    const first = await folder.writeAtomic('manifest.csv', 'row 1\n');
    const oldIno = (await fs.lstat(path.join(dest, 'manifest.csv'))).ino;
    const lock = await folder.lock();
    const second = await folder.extendAtomic('manifest.csv', first, 'row 2\n');
    expect(second).not.toBeNull();
    expect(await fs.readFile(path.join(dest, 'manifest.csv'), 'utf8')).toBe('row 1\nrow 2\n');
    // The old file itself, not a copy: its blocks were never freed.
    expect(await kept()).toEqual([{ text: 'row 1\n', ino: oldIno }]);
    await lock.release();
    expect(await kept()).toHaveLength(1);

    const next = createLocalFolder(dest);
    await next.prepare();
    const nextLock = await next.lock();
    await next.extendAtomic('manifest.csv', second!, 'row 3\n');
    await nextLock.release(); // waits for the removal begun at lock()
    expect(await kept()).toEqual([{ text: 'row 1\nrow 2\n', ino: expect.any(Number) }]);
    expect(await fs.readFile(path.join(dest, 'manifest.csv'), 'utf8')).toBe('row 1\nrow 2\nrow 3\n');
    await next.close();
  });

  it('a replaced/ swapped for a link: prepare refuses it, and the lock never empties the folder behind it', async () => {
    const outside = path.join(work, 'outside');
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'precious'), 'keep me');
    await fs.rm(replaced(), { recursive: true });
    await fs.symlink(outside, replaced());
    await expect(createLocalFolder(dest).prepare()).rejects.toThrow(/replaced is a symbolic link; refusing to follow it/);
    await (await folder.lock()).release();
    expect(await fs.readFile(path.join(outside, 'precious'), 'utf8')).toBe('keep me');
  });
});

describe('LocalFolder: copies made ahead for an extension (warmExtensions)', () => {
  const scratch = () => path.join(dest, '.dataset-sync', 'tmp');
  /** The warm copy of `name` in tmp/, once made (copies run in the background). */
  const warmCopyOf = async (name: string): Promise<string> => {
    for (let i = 0; i < 200; i++) {
      const found = (await fs.readdir(scratch())).find((n) => n.startsWith(`.${name}.`));
      if (found) return path.join(scratch(), found);
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no warm copy of ${name}`);
  };

  it('the extension takes the copy made ahead: no second copy, tmp/ empty after', async () => {
    const first = await folder.writeAtomic('manifest.csv', 'row 1\n');
    await folder.writeAtomic('SHA256SUMS', 'sum 1\n');
    folder.warmExtensions(['manifest.csv', 'SHA256SUMS']);
    // Marked, same size: had the extension copied the file again, the mark would not show.
    const copy = await warmCopyOf('manifest.csv');
    await fs.writeFile(copy, 'ROW 1\n');
    await folder.extendAtomic('manifest.csv', first, 'row 2\n');
    expect(await fs.readFile(path.join(dest, 'manifest.csv'), 'utf8')).toBe('ROW 1\nrow 2\n');
    await warmCopyOf('SHA256SUMS');
    await folder.close(); // SHA256SUMS's copy was never taken
    expect(await fs.readdir(scratch())).toEqual([]);
  });

  it('a file changed after its copy was made is copied again; one no longer as expected is not extended', async () => {
    const first = await folder.writeAtomic('manifest.csv', 'row 1\n');
    folder.warmExtensions(['manifest.csv']);
    await warmCopyOf('manifest.csv');
    // Rewritten by someone else with the same bytes: a new inode, so the copy is not the file's.
    const edited = await folder.writeAtomic('manifest.csv', 'row 1\n');
    expect(await folder.extendAtomic('manifest.csv', first, 'row 2\n')).toBeNull();
    expect(await fs.readdir(scratch())).toEqual([]);
    folder.warmExtensions(['manifest.csv']);
    const copy = await warmCopyOf('manifest.csv');
    await fs.writeFile(path.join(dest, 'manifest.csv'), 'row 9\n'); // edited in place after the copy
    const now = await folder.stat('manifest.csv');
    expect(await folder.extendAtomic('manifest.csv', now!, 'row 2\n')).not.toBeNull();
    expect(await fs.readFile(path.join(dest, 'manifest.csv'), 'utf8')).toBe('row 9\nrow 2\n');
    await expect(fs.lstat(copy)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(edited.key).toBe('manifest.csv');
  });

  it('copies nothing in the consents role, and a file that is absent or not a regular file gives no copy', async () => {
    await fs.mkdir(path.join(dest, 'croissant.json'));
    folder.warmExtensions(['manifest.csv', 'croissant.json']);
    await folder.close();
    expect(await fs.readdir(scratch())).toEqual([]);
    const consents = createLocalFolder(path.join(work, 'ds.consents'), { consents: { dataset: dest } });
    await consents.prepare();
    consents.warmExtensions(['1.json']);
    expect(await consents.extendAtomic('1.json', { size: 0, stamp: '0' }, 'x')).toBeNull();
  });
});

describe('LocalFolder in its consents role', () => {
  it('makes its folder 0700 and writes every object 0600, temp files beside it', async () => {
    const consents = createLocalFolder(path.join(work, 'ds.consents'), { consents: { dataset: dest } });
    expect(await consents.prepare()).toEqual([]);
    expect((await fs.stat(consents.label)).mode & 0o777).toBe(0o700);
    await consents.writeAtomic('7.json', '{"id":7}\n');
    expect((await fs.stat(path.join(consents.label, '7.json'))).mode & 0o777).toBe(0o600);
    expect(await fs.readdir(consents.label)).toEqual(['7.json']);
  });

  it('says whether prepare found it holding no record (a first sync then asks for none before fetching)', async () => {
    const dir = path.join(work, 'found-empty');
    const prepared = async () => {
      const consents = createLocalFolder(dir, { consents: { dataset: dest } });
      await consents.prepare();
      return consents;
    };
    expect((await prepared()).foundEmpty).toBe(true); // made now
    // Only a dead writer's temp file (removed by prepare): still nothing on record.
    await fs.writeFile(path.join(dir, '.3.json.999999-0000abcd.tmp'), '{}', { mode: 0o600 });
    const again = await prepared();
    expect(again.foundEmpty).toBe(true);
    await again.writeAtomic('3.json', '{"id":3}\n');
    expect((await prepared()).foundEmpty).toBe(false);
    expect(createLocalFolder(dest).foundEmpty).toBe(false); // a dataset folder never claims it
  });

  it('warns about an existing folder others can list, and keeps its mode', async () => {
    const dir = path.join(work, 'shared');
    await fs.mkdir(dir, { mode: 0o755 });
    await fs.chmod(dir, 0o755);
    const consents = createLocalFolder(dir, { consents: { dataset: dest } });
    const warnings = await consents.prepare();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/can be listed by other users \(mode 755\)/);
    expect((await fs.stat(dir)).mode & 0o777).toBe(0o755);
  });

  it('is resolved to its real path once, and refused inside the dataset folder', async () => {
    const real = path.join(work, 'real-consents');
    await fs.mkdir(real);
    await fs.symlink(real, path.join(work, 'link-consents'));
    expect(createLocalFolder(path.join(work, 'link-consents'), { consents: { dataset: dest } }).label).toBe(real);
    expect(() => createLocalFolder(path.join(dest, 'consents'), { consents: { dataset: dest } })).toThrow(
      expect.objectContaining({ kind: 'config', message: expect.stringMatching(/must not be inside the dataset folder/) }),
    );
  });
});

type Recorded = { key: string; size: number; stamp: string };

/** Writes one file per set, `names` in each of sets 1..sets, with `body`'s text; what the engine would have recorded of each, in order. */
async function writeRecorded(sets: number, names: readonly string[], body: (set: number, name: string) => string): Promise<Recorded[]> {
  const recorded: Recorded[] = [];
  for (let set = 1; set <= sets; set++) {
    for (const name of names) {
      const info = await folder.writeAtomic(`sets/${set}/${name}`, body(set, name));
      recorded.push({ key: info.key, size: info.size, stamp: info.stamp });
    }
  }
  return recorded;
}

/** Opens the test's folder again with the file writer thread switched off: the switch is read when a folder is opened. */
async function reopenWithoutWriter(): Promise<void> {
  process.env.DATASET_SYNC_FILE_WRITER = 'off';
  await folder.close();
  folder = createLocalFolder(dest);
  expect(await folder.prepare()).toEqual([]);
}

// Batches after the first go to the file writer's thread; with it switched off, every batch goes to the thread pool.
describe.each([
  { writer: 'on', label: 'the first batch on the thread pool, the next ones on the file writer thread' },
  { writer: 'off', label: 'every batch on the thread pool' },
])('LocalFolder: the disk check over many files ($label)', ({ writer }) => {
  beforeEach(async () => {
    if (writer === 'off') await reopenWithoutWriter();
  });
  afterEach(() => {
    delete process.env.DATASET_SYNC_FILE_WRITER;
  });

  it('finds a truncated, a grown, a removed file, a folder for a file, a missing and a linked set folder among 600 files, in record order', async () => {
    const recorded = await writeRecorded(300, ['a.mp4', 'b.mp4'], (set, name) => `set ${set} ${name}\n`.repeat(20));
    expect(await collect(folder.checkPresence(recorded))).toEqual([]);
    const file = (key: string) => path.join(dest, ...key.split('/'));
    const body = await fs.readFile(file('sets/5/a.mp4'));
    await fs.writeFile(file('sets/5/a.mp4'), body.subarray(0, 10)); // truncated
    await fs.appendFile(file('sets/290/b.mp4'), 'more'); // grown
    await fs.rm(file('sets/150/a.mp4'));
    const elsewhere = path.join(work, 'elsewhere');
    await fs.cp(path.join(dest, 'sets', '200'), elsewhere, { recursive: true, preserveTimestamps: true });
    await fs.rm(path.join(dest, 'sets', '200'), { recursive: true });
    // A copy with the same sizes and mtimes: only the folder check can tell it from the real set.
    await fs.symlink(elsewhere, path.join(dest, 'sets', '200'));
    await fs.rm(path.join(dest, 'sets', '250'), { recursive: true });
    await fs.rm(file('sets/270/a.mp4'));
    await fs.mkdir(file('sets/270/a.mp4'));
    expect(await collect(folder.checkPresence(recorded))).toEqual([
      { key: 'sets/5/a.mp4', problem: 'changed' },
      { key: 'sets/150/a.mp4', problem: 'missing' },
      { key: 'sets/200/a.mp4', problem: 'linked', detail: 'sets/200' },
      { key: 'sets/200/b.mp4', problem: 'linked', detail: 'sets/200' },
      { key: 'sets/250/a.mp4', problem: 'missing' },
      { key: 'sets/250/b.mp4', problem: 'missing' },
      { key: 'sets/270/a.mp4', problem: 'changed' },
      { key: 'sets/290/b.mp4', problem: 'changed' },
    ]);
  });

  it('takes every file for linked when the sets folder itself is a link to a faithful copy', async () => {
    const recorded = await writeRecorded(150, ['a.mp4', 'b.mp4'], (set, name) => `set ${set} ${name}\n`);
    const elsewhere = path.join(work, 'elsewhere-sets');
    await fs.cp(path.join(dest, 'sets'), elsewhere, { recursive: true, preserveTimestamps: true });
    await fs.rm(path.join(dest, 'sets'), { recursive: true });
    await fs.symlink(elsewhere, path.join(dest, 'sets'));
    // Past the first batch too: 'sets' is judged again in each batch (the map is per batch for new folders).
    const problems = await collect(folder.checkPresence([...recorded, ...recorded]));
    expect(problems).toHaveLength(600);
    expect(problems.every((p) => p.problem === 'linked' && p.detail === 'sets')).toBe(true);
  });

  it('never looks at a file through a sets folder swapped for a link after the map of judged folders was cleared', async () => {
    // The check forgets the folders it judged once it holds 1,024 of them; the set folders judged
    // just before are remembered again, 'sets' is not. A record read after that under one of
    // those sets must still wait for 'sets' to be judged again.
    const recorded = await writeRecorded(1536, ['a.mp4'], (set) => `set ${set}\n`);
    const again = recorded[1100]!;
    const elsewhere = path.join(work, 'elsewhere-sets');
    await fs.cp(path.join(dest, 'sets'), elsewhere, { recursive: true, preserveTimestamps: true });
    function* records(): Generator<Recorded> {
      yield* recorded;
      // Read once the earlier batches are judged: swap 'sets' for a link to the faithful copy, then ask again.
      renameSync(path.join(dest, 'sets'), path.join(work, 'sets-away'));
      symlinkSync(elsewhere, path.join(dest, 'sets'));
      yield again;
    }
    const problems = await collect(folder.checkPresence(records()));
    expect(problems.at(-1)).toEqual({ key: again.key, problem: 'linked', detail: 'sets' });
  });
});

describe('LocalFolder without the file writer thread (DATASET_SYNC_FILE_WRITER=off)', () => {
  beforeEach(reopenWithoutWriter);
  afterEach(() => {
    delete process.env.DATASET_SYNC_FILE_WRITER;
  });

  it('a small body goes through its part file, and small atomic writes get their exact mode under umask 077', async () => {
    const body = Buffer.from('small, on the thread pool');
    const u = await upload('sets/1/a.bin', body);
    // The part file holds the bytes before the commit: this is the part-file path, not the writer's.
    expect((await fs.stat(partPath(`1-2-${sha(body)}`))).size).toBe(body.length);
    await folder.writeAtomic('sets/1/set.json', '{}\n');
    const info = await u.commit();
    expect(info.size).toBe(body.length);
    expect((await readAll(folder, 'sets/1/a.bin')).toString()).toBe('small, on the thread pool');
    const old = process.umask(0o077);
    try {
      const written = await folder.writeAtomic('sets/1/public.json', '{"a":1}\n');
      expect(written.stamp).toBe(String((await fs.lstat(path.join(dest, 'sets', '1', 'public.json'))).mtimeMs));
    } finally {
      process.umask(old);
    }
    expect((await fs.stat(path.join(dest, 'sets', '1', 'public.json'))).mode & 0o777).toBe(0o644);
  });
});
