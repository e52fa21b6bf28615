// Reading files under DEST that anyone with access to the folder could have swapped: only a
// regular file is ever opened. A symlink (to /dev/zero, or out of DEST), a FIFO (whose open
// blocks until a writer comes), a device or a socket is refused without reading a byte.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, promises as fs, readFileSync, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { DestinationError } from '../destination';

/** Something other than a regular file where one is read: the Destination's 'bad_key' (never followed, never read). */
export class NotRegularFileError extends DestinationError {
  constructor(readonly path: string, what: string) {
    super('bad_key', `${path} is ${what}, not a regular file`, 'ENOTREGULAR');
    this.name = 'NotRegularFileError';
  }
}

function kindOf(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

// O_NOFOLLOW: a link swapped in after the lstat fails the open (ELOOP) instead of being followed.
// O_NONBLOCK: a FIFO swapped in after the lstat does not hang the open; reads of regular files ignore it.
const READ_REGULAR = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Opens `file` for reading if, and only if, it is a regular file: lstat first, then an open
 * that follows no link and never blocks, then fstat to be sure the file opened is that regular
 * file. ENOENT (missing) passes through; anything else that is not a regular file throws
 * NotRegularFileError.
 */
export async function openRegularFile(file: string): Promise<{ fh: FileHandle; size: number }> {
  const before = await fs.lstat(file);
  if (!before.isFile()) throw new NotRegularFileError(file, kindOf(before));
  let fh: FileHandle;
  try {
    fh = await fs.open(file, READ_REGULAR);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new NotRegularFileError(file, 'a symbolic link');
    throw e;
  }
  const st = await fh.stat().catch(async (e: unknown) => {
    await fh.close().catch(() => undefined);
    throw e;
  });
  if (!st.isFile() || st.ino !== before.ino || st.dev !== before.dev) {
    await fh.close().catch(() => undefined);
    throw new NotRegularFileError(file, st.isFile() ? 'a file swapped while being opened' : kindOf(st));
  }
  return { fh, size: st.size };
}

/** The whole text of a regular file (manifest.csv); refuses anything else as openRegularFile does. */
export async function readRegularFile(file: string): Promise<string> {
  const { fh } = await openRegularFile(file);
  try {
    return await fh.readFile('utf8');
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/**
 * readRegularFile with synchronous calls, for small files read on the way to the first request
 * (state.json under the lock): each call a few microseconds, where each asynchronous one is a
 * thread-pool round trip. Same checks: lstat, open with O_NOFOLLOW|O_NONBLOCK, fstat (same inode).
 */
export function readRegularFileSync(file: string): string {
  const before = lstatSync(file);
  if (!before.isFile()) throw new NotRegularFileError(file, kindOf(before));
  let fd: number;
  try {
    fd = openSync(file, READ_REGULAR);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new NotRegularFileError(file, 'a symbolic link');
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.ino !== before.ino || st.dev !== before.dev) {
      throw new NotRegularFileError(file, st.isFile() ? 'a file swapped while being opened' : kindOf(st));
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * SHA-256 of a regular file expected to hold `expectedSize` bytes. A different size answers
 * without hashing (the file changed either way), and at most `expectedSize` + 1 bytes are read,
 * so a file growing while it is hashed cannot keep the read going.
 */
export async function hashRegularFile(file: string, expectedSize: number): Promise<{ sha256: string | null; bytes: number }> {
  const { fh, size } = await openRegularFile(file);
  try {
    if (size !== expectedSize) return { sha256: null, bytes: 0 };
    const hash = createHash('sha256');
    let bytes = 0;
    const stream = fh.createReadStream({ start: 0, end: expectedSize, highWaterMark: 1024 * 1024, autoClose: false });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
    }
    return { sha256: bytes === expectedSize ? hash.digest('hex') : null, bytes };
  } finally {
    await fh.close().catch(() => undefined);
  }
}
