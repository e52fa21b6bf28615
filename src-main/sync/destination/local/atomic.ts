// Atomic file writes: a temp file, then rename, so readers see the old or the new content,
// never a half-written one. `tmpDir` (same file system as the target) keeps the temp files of
// dataset writes under DEST/.dataset-sync/tmp, so a crash mid-write leaves no debris in sets/.
import { randomBytes } from 'node:crypto';
import { close, fchmod, fstat, open, promises as fs, rename, write, type Stats } from 'node:fs';
import { promisify } from 'node:util';
import path from 'node:path';
import { fileWriter } from './file-writer';
import { pathUnder } from './key-paths';

/**
 * The number in the next temp name: a counter (a random draw per temp file cost a
 * randomFillSync call each, thousands per sync), started at a random value once per process so
 * a dead process's leftover under a reused pid is unlikely to be hit ('wx' would then refuse it).
 */
let tempCounter = randomBytes(4).readUInt32BE(0);

/** `.<name>.<pid>-<8 hex digits>.tmp`: the pid tells a later sync whether the writer is gone (see consents.ts). */
export function tempPathFor(target: string, tmpDir: string): string {
  tempCounter = (tempCounter + 1) >>> 0;
  return pathUnder(tmpDir, `.${path.basename(target)}.${process.pid}-${tempCounter.toString(16).padStart(8, '0')}.tmp`);
}

/** The writer's pid in a temp name made by tempPathFor; null for any other name. */
export function tempFileWriterPid(name: string): number | null {
  const m = /^\..+\.(\d+)-[0-9a-f]{8}\.tmp$/.exec(name);
  return m ? Number(m[1]) : null;
}

export async function writeFileAtomic(target: string, data: string | Buffer, mode = 0o644, tmpDir = path.dirname(target)): Promise<void> {
  const tmp = tempPathFor(target, tmpDir);
  try {
    await fs.writeFile(tmp, data, { mode });
    await fs.rename(tmp, target);
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
}

/** What a small atomic write wrote: size and mtime (fstat before close; the rename keeps them). */
export interface WrittenFile {
  size: number;
  mtimeMs: number;
}

/**
 * The same contract for small files written in bulk (set.json, consent records: bench scenario
 * 2), returning what was written: the whole write (temp file opened 'wx', write, fstat, fchmod
 * when the umask masked the mode, close, rename) is one message to the file writer thread
 * (file-writer.ts; issue 21: no synchronous call per file on the event loop, and no thread-pool
 * hop per call), or where no worker thread can start, one call after the other on the thread
 * pool. The mode is set before the rename (the umask only takes bits away, so the file is never
 * looser than asked meanwhile). A temp file + rename is the only atomic way Node offers:
 * O_TMPFILE + linkat(2) would spare the temp name, but Node exposes neither linkat nor /proc
 * links without a native module.
 */
export async function writeSmallFileAtomic(
  target: string,
  data: string | Buffer,
  mode: number,
  tmpDir: string,
  /** Through the file writer thread when it can start (LocalFolder reads the switch once: file-writer.ts fileWriterWanted). */
  writerWanted: boolean,
): Promise<WrittenFile> {
  const tmp = tempPathFor(target, tmpDir);
  const writer = writerWanted ? fileWriter() : null;
  if (writer !== null) {
    // The caller keeps its Buffer: sent as a copy.
    const result = await writer.put({ tmp, target, data, mode, folders: [], makeFolder: false });
    if ('linked' in result) throw new Error(`unexpected folder check for ${target}`); // no folders asked
    return result;
  }
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  try {
    // The callback API on a bare descriptor: no FileHandle object (and its GC tracking) per file.
    const fd = await fdIo.open(tmp, 'wx', mode);
    let st: Stats;
    try {
      for (let off = 0; off < buf.length; ) off += await fdIo.write(fd, buf, off, buf.length - off);
      st = await fdIo.fstat(fd);
      // Only when the umask took bits away (the fstat says so): one call fewer per file otherwise.
      if ((st.mode & 0o777) !== mode) await fdIo.fchmod(fd, mode);
    } finally {
      await fdIo.close(fd);
    }
    await fdIo.rename(tmp, target);
    return st;
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => undefined); // the original error is the one worth reporting
    throw e;
  }
}

const fdIo = {
  open: promisify(open) as (p: string, flags: string, mode: number) => Promise<number>,
  fchmod: promisify(fchmod),
  write: (fd: number, buf: Buffer, off: number, len: number): Promise<number> =>
    new Promise((resolve, reject) => write(fd, buf, off, len, null, (err, n) => (err ? reject(err) : resolve(n)))),
  fstat: promisify(fstat),
  close: promisify(close),
  rename: promisify(rename),
};
