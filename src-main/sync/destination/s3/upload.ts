// A resumable upload into a bucket (destination.ts, Upload). The bytes the engine writes are
// staged in a local file under the destination's stateDir (a resume hashes the held bytes from
// it) and go up as multipart parts as soon as a part is full, in the background (at most
// MAX_IN_FLIGHT parts: write() waits beyond that, so the download never runs far ahead of the
// upload). Nothing is visible under the key until commit(), which the engine calls only after
// the SHA-256 of every byte matched: a body of one part or less goes up then as one PutObject; a
// larger one sends its last part and completes the multipart upload (CreateMultipartUpload
// carries the user metadata sha256).
//
// Integrity of what the store holds: Ceph 16 accepts a wrong x-amz-checksum-sha256 without a
// word (measured: a PUT with the SHA-256 of other bytes returns 200 and HEAD shows no
// checksum), so it is sent (stores that check it do) but not relied on. Every PUT and part
// carries Content-MD5 of the bytes read from the staged file, which S3 and RGW do check (a wrong
// one is refused with 400 BadDigest, measured), so each part stored is exactly the staged bytes
// the engine hashed. A part stored by an earlier attempt is reused only when ListParts shows the
// ETag (the part's MD5) recorded when we sent it. commit() then makes sure the stored object
// shows the size and sha256 just sent (a PUT's ETag equal to the MD5 sent, else a HEAD) before
// it removes the staged file and its record.
//
// This file is the Upload the engine holds and the order of its steps (open, write, restart,
// commit, close, discard); each job is a module of its own: staged-file.ts (the staged file and
// its resume record), parts.ts (the part scheduler: MAX_IN_FLIGHT parts in the background,
// Content-MD5, ListParts reuse), commit.ts (PutObject, CompleteMultipartUpload, aborts) and
// etag.ts (MD5s and ETags).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { DestinationError, type ExpectedBody, type ObjectInfo, type Upload } from '../destination';
import type { BucketTarget } from './client';
import { abortUpload, completeUpload, putWhole } from './commit';
import { s3Error } from './errors';
import { PartScheduler } from './parts';
import { freshRecord, readRecord, StagedFile, stagedName } from './staged-file';

/** 8 MiB: above S3's 5 MiB minimum, few requests, little memory (MAX_IN_FLIGHT buffers). */
export const DEFAULT_PART_SIZE = 8 * 1024 * 1024;

export interface UploadContext extends BucketTarget {
  /** The folder of staged files and records (stateDir/uploads). */
  dir: string;
  partSize: number;
  /** The object's info after commit (a HEAD: the stamp the engine records). */
  stat(key: string): Promise<ObjectInfo | null>;
}

export async function openS3Upload(ctx: UploadContext, objectKey: string, key: string, expect: ExpectedBody): Promise<Upload> {
  await fs.mkdir(ctx.dir, { recursive: true });
  const name = stagedName(expect.resumeKey);
  const staged = new StagedFile(path.join(ctx.dir, `${name}.part`), path.join(ctx.dir, `${name}.json`), freshRecord(objectKey, expect, ctx.partSize));
  const upload = new S3Upload(ctx, objectKey, key, expect, staged);
  try {
    await upload.open();
  } catch (e) {
    await upload.close();
    throw e;
  }
  return upload;
}

class S3Upload implements Upload {
  held = 0;
  private written = 0;
  private closed = false;
  private readonly parts: PartScheduler;

  constructor(
    private readonly ctx: UploadContext,
    private readonly objectKey: string,
    private readonly key: string,
    private readonly expect: ExpectedBody,
    private readonly staged: StagedFile,
  ) {
    this.parts = new PartScheduler(ctx, objectKey, key, expect, staged);
  }

  async open(): Promise<void> {
    const old = await readRecord(this.staged.recordFile);
    if (old && old.objectKey === this.objectKey && old.size === this.expect.size && old.sha256 === this.expect.sha256) {
      this.staged.record = old;
    } else if (old?.uploadId) {
      await abortUpload(this.ctx, old.objectKey, old.uploadId, this.key);
    }
    let size = await this.staged.open();
    if (size > this.expect.size || this.staged.record !== old) {
      // More bytes than the body has (or bytes of another body): nothing of it can be used.
      await this.staged.truncate();
      size = 0;
    }
    this.held = size;
    this.written = size;
    if (this.staged.record.uploadId) await this.parts.findStoredParts();
    await this.staged.save();
  }

  async *readHeld(): AsyncIterable<Buffer> {
    yield* this.staged.readHeld(this.held);
  }

  async write(chunks: readonly Buffer[], position: number): Promise<number> {
    this.parts.throwIfFailed();
    if (this.closed || !this.staged.isOpen) throw new DestinationError('io', `The upload of ${this.key} is closed.`);
    if (position !== this.written) throw new DestinationError('io', `Upload of ${this.key}: write at ${position}, expected ${this.written}.`);
    const bytesWritten = await this.staged.writev(chunks, position);
    if (bytesWritten > 0 && this.written + bytesWritten > this.expect.size) {
      throw new DestinationError('io', `Upload of ${this.key}: more bytes than the expected ${this.expect.size}.`);
    }
    this.written += bytesWritten;
    await this.parts.sendFull(this.written);
    return bytesWritten;
  }

  async restart(): Promise<void> {
    // The parts in flight belong to bytes being dropped: cut them at once.
    await this.parts.cut();
    this.parts.reopen();
    if (this.staged.record.uploadId) await abortUpload(this.ctx, this.objectKey, this.staged.record.uploadId, this.key);
    this.staged.record = freshRecord(this.objectKey, this.expect, this.ctx.partSize);
    this.parts.forget();
    await this.staged.truncate();
    this.written = 0;
    await this.staged.save();
  }

  async commit(): Promise<ObjectInfo> {
    await this.parts.settle();
    this.parts.throwIfFailed();
    if (this.written !== this.expect.size) {
      throw new DestinationError('io', `Upload of ${this.key}: ${this.written} bytes written, ${this.expect.size} expected.`);
    }
    let info: ObjectInfo | null;
    try {
      if (!this.staged.record.uploadId && this.expect.size <= this.staged.record.partSize) {
        // One PUT, whose Content-MD5 the store checked: its ETag (the MD5 of a single-part
        // object) says what was stored, so no HEAD is needed (a request per small file less).
        info = await putWhole(this.ctx, this.objectKey, this.key, this.expect, await this.staged.readRange(0, this.expect.size));
      } else {
        const parts = await this.parts.sendAll();
        await completeUpload(this.ctx, this.objectKey, this.staged.record.uploadId, parts);
        info = null;
      }
    } catch (e) {
      throw s3Error(e, this.ctx.where, `upload ${this.key}`);
    }
    info ??= await this.ctx.stat(this.key);
    if (!info || info.size !== this.expect.size || info.sha256 !== this.expect.sha256) {
      throw new DestinationError('io', `Upload of ${this.key}: the stored object does not show the size and sha256 just sent.`);
    }
    await this.removeLocal();
    return info;
  }

  /** Closes and removes the staged file and its record. */
  private async removeLocal(): Promise<void> {
    this.closed = true;
    await this.staged.remove();
  }

  async close(): Promise<void> {
    await this.parts.settleOrCut();
    if (this.closed) return;
    this.closed = true;
    await this.staged.close();
  }

  async discard(): Promise<void> {
    await this.parts.cut();
    if (this.staged.record.uploadId) await abortUpload(this.ctx, this.objectKey, this.staged.record.uploadId, this.key);
    await this.removeLocal();
  }
}
