// The folder's Upload (destination.ts) for a small download: its bytes are held in memory and
// written whole at commit, temp file to final name, by the file writer thread (file-writer.ts):
// one message per file instead of a part file's eight to ten thread-pool calls (issue #21).
// Only an attempt that ends without its commit (a connection reset, a cancelled sync) sets its
// bytes aside in the part file, so the next attempt or sync resumes from them like any other
// download (LocalFolder opens a LocalUpload where the part-file listing has one). What
// LocalUpload (part-upload.ts) guarantees at commit holds here too: the temp file is fresh ('wx'
// in DEST/.dataset-sync/tmp, emptied when the lock is taken), and the key's folders are checked to be
// real folders just before and just after the rename, the same lstat checks, made on the writer thread.
import path from 'node:path';
import type { ObjectInfo, Upload } from '../destination';
import { isFatalFsError, localFsError } from '../../local-errors';
import { tempPathFor } from './atomic';
import type { FileWriter } from './file-writer';
import { commitPaths } from './key-paths';
import { linkedAfterRename, linkedBeforeRename, whereLinkLeads, type HeldParts, type PartPaths } from './part-upload';

/**
 * Downloads up to this size are held in memory: at most 4 MiB at the default concurrency (16 small
 * files in flight over HTTP/1.1, sync-pools.ts), 8 MiB over HTTP/2.
 */
export const MEMORY_UPLOAD_MAX_BYTES = 256 * 1024;

export class MemoryUpload implements Upload {
  readonly held = 0;
  readonly commitsLocally = true;
  private chunks: Buffer[] = [];
  private bytes = 0;

  constructor(
    private readonly paths: PartPaths & { tmpDir: string; resumeKey: string },
    private readonly writer: FileWriter,
    private readonly heldParts: HeldParts,
  ) {}

  async *readHeld(): AsyncIterable<Buffer> {}

  write(chunks: readonly Buffer[], position: number): Promise<number> {
    if (position < this.bytes) this.keepFirst(position);
    if (position !== this.bytes) return Promise.reject(new Error(`the upload of ${this.paths.key} holds ${this.bytes} bytes; cannot write at ${position}`));
    let n = 0;
    for (const c of chunks) {
      this.chunks.push(c);
      n += c.length;
    }
    this.bytes += n;
    return Promise.resolve(n);
  }

  restart(): Promise<void> {
    this.keepFirst(0);
    return Promise.resolve();
  }

  async commit(): Promise<ObjectInfo> {
    const { key, realRoot, dirParts, name, tmpDir } = this.paths;
    const { folders, target } = commitPaths(realRoot, dirParts, name);
    const tmp = tempPathFor(target, tmpDir);
    // Held until the commit succeeds: refused or failed, close sets them aside like a part file's.
    const data = this.copyBytes();
    let result;
    try {
      // The umask decides the mode, as for a part file.
      result = await this.writer.put({ tmp, target, data, handOver: true, mode: null, folders, makeFolder: true });
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.syscall === 'rename' || err.syscall === 'mkdir') throw localFsError(e, `move ${key} into place`);
      throw isFatalFsError(e) ? localFsError(e, `write ${tmp}`) : e;
    }
    if ('linked' in result && result.when === 'before') {
      throw linkedBeforeRename(await whereLinkLeads(this.paths, result.linked), 'the verified bytes stay in the partial folder');
    }
    this.keepFirst(0); // in place (or moved through the link): nothing to set aside
    if ('linked' in result) throw linkedAfterRename(path.join(await whereLinkLeads(this.paths, result.linked), name));
    return { key, size: result.size, stamp: String(result.mtimeMs) };
  }

  /** Sets the bytes received aside in the part file (atomically: it holds all of them or none), for the next attempt or sync to resume from. */
  async close(): Promise<void> {
    if (this.bytes === 0) return;
    const { partPath, tmpDir, resumeKey } = this.paths;
    const data = this.copyBytes();
    this.keepFirst(0);
    try {
      await this.writer.put({ tmp: tempPathFor(partPath, tmpDir), target: partPath, data, handOver: true, mode: null, folders: [], makeFolder: false });
      await this.heldParts.add(resumeKey);
    } catch {
      // Not set aside (a full disk...): the next attempt starts at byte 0.
    }
  }

  discard(): Promise<void> {
    this.keepFirst(0);
    return Promise.resolve();
  }

  /** Every byte held, in one ArrayBuffer of its own (handed to the writer without a copy). */
  private copyBytes(): Uint8Array {
    const data = new Uint8Array(new ArrayBuffer(this.bytes));
    let at = 0;
    for (const c of this.chunks) {
      data.set(c, at);
      at += c.length;
    }
    return data;
  }

  private keepFirst(bytes: number): void {
    if (bytes === 0) {
      this.chunks = [];
      this.bytes = 0;
      return;
    }
    const all = Buffer.concat(this.chunks, this.bytes).subarray(0, bytes);
    this.chunks = [all];
    this.bytes = bytes;
  }
}
