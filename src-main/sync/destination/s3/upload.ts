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
// ETag (the part's MD5) recorded when we sent it.
//
// Resume across restarts: a small record next to the staged file (uploads/<name>.json) holds the
// upload id and the MD5 of every part sent; opening again lists the parts the store holds
// (ListParts) and sends again only those it lacks. held = the staged bytes (all of them: the
// tail not yet in a full part is sent with the next part, never downloaded again).
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { DestinationError, type ExpectedBody, type ObjectInfo, type Upload } from '../destination';
import { isCode, s3Error, type Where } from './errors';

/** 8 MiB: above S3's 5 MiB minimum, few requests, little memory (MAX_IN_FLIGHT buffers). */
export const DEFAULT_PART_SIZE = 8 * 1024 * 1024;
const MAX_PARTS = 10_000;
/**
 * Parts sent at once while the download goes on. Measured with 256 MiB into RGW on loopback (a
 * busy 2-core machine): 2 → 15.5 MiB/s, 4 → 18.4 MiB/s; 2 keeps 16 MiB of buffers per file
 * (the engine runs several files at once).
 */
const MAX_IN_FLIGHT = 2;
/** How long close() lets the parts in flight finish. */
const CLOSE_GRACE_MS = 10_000;

export interface UploadContext {
  client: S3Client;
  bucket: string;
  where: Where;
  /** The folder of staged files and records (stateDir/uploads). */
  dir: string;
  partSize: number;
  /** The object's info after commit (a HEAD: the stamp the engine records). */
  stat(key: string): Promise<ObjectInfo | null>;
}

/** What survives a restart: which multipart upload holds which parts of the staged file. */
interface UploadRecord {
  /** The object's full name in the bucket. */
  objectKey: string;
  size: number;
  sha256: string;
  partSize: number;
  uploadId?: string;
  /** Part number -> MD5 (hex) of the part we sent. */
  parts: Record<string, string>;
}

/** A file name for a resume key (validated ids and a hash: used as is when it is a safe name). */
export function stagedName(resumeKey: string): string {
  return /^[A-Za-z0-9._-]{1,160}$/.test(resumeKey) && !resumeKey.startsWith('.')
    ? resumeKey
    : createHash('sha256').update(resumeKey).digest('hex').slice(0, 40);
}

/** The upload ids this machine still holds for resume (cleanUp spares them). */
export async function heldUploadIds(dir: string): Promise<Set<string>> {
  const ids = new Set<string>();
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const record = await readRecord(path.join(dir, name));
    if (record?.uploadId) ids.add(record.uploadId);
  }
  return ids;
}

async function readRecord(file: string): Promise<UploadRecord | null> {
  try {
    const v = JSON.parse(await fs.readFile(file, 'utf8')) as UploadRecord;
    return v && typeof v === 'object' && typeof v.objectKey === 'string' && v.parts && typeof v.parts === 'object' ? v : null;
  } catch {
    return null;
  }
}

function md5(bytes: Buffer): { hex: string; base64: string } {
  const d = createHash('md5').update(bytes).digest();
  return { hex: d.toString('hex'), base64: d.toString('base64') };
}

function unquote(etag: string | undefined): string {
  return (etag ?? '').replace(/^"|"$/g, '');
}

export async function openS3Upload(ctx: UploadContext, objectKey: string, key: string, expect: ExpectedBody): Promise<Upload> {
  await fs.mkdir(ctx.dir, { recursive: true });
  const name = stagedName(expect.resumeKey);
  const upload = new S3Upload(ctx, objectKey, key, expect, path.join(ctx.dir, `${name}.part`), path.join(ctx.dir, `${name}.json`));
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
  private record: UploadRecord;
  private handle: fs.FileHandle | null = null;
  /** Parts whose bytes the store holds (this attempt or an earlier one): number -> MD5 hex. */
  private stored = new Map<number, string>();
  private inFlight = new Map<number, Promise<void>>();
  private failure: unknown = null;
  private closed = false;
  /** Parts 1..scheduledThrough were sent or are being sent (or were stored already). */
  private scheduledThrough = 0;

  constructor(
    private readonly ctx: UploadContext,
    private readonly objectKey: string,
    private readonly key: string,
    private readonly expect: ExpectedBody,
    private readonly stagedFile: string,
    private readonly recordFile: string,
  ) {
    this.record = this.freshRecord();
  }

  private freshRecord(): UploadRecord {
    // Parts stay within S3's 10,000 (a 100 GB body gets 10 MiB parts).
    const mib = 1024 * 1024;
    const partSize = Math.max(this.ctx.partSize, Math.ceil(this.expect.size / MAX_PARTS / mib) * mib);
    return { objectKey: this.objectKey, size: this.expect.size, sha256: this.expect.sha256, partSize, parts: {} };
  }

  private get partSize(): number {
    return this.record.partSize;
  }

  private fail(e: unknown, doing: string): DestinationError {
    return s3Error(e, this.ctx.where, doing);
  }

  async open(): Promise<void> {
    const old = await readRecord(this.recordFile);
    if (old && old.objectKey === this.objectKey && old.size === this.expect.size && old.sha256 === this.expect.sha256) {
      this.record = old;
    } else if (old?.uploadId) {
      await this.abort(old.objectKey, old.uploadId);
    }
    let size = 0;
    try {
      this.handle = await fs.open(this.stagedFile, 'r+');
      size = (await this.handle.stat()).size;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new DestinationError('io', `Cannot open the staged upload ${this.stagedFile}: ${(e as Error).message}`);
      this.handle = await fs.open(this.stagedFile, 'w+');
    }
    if (size > this.expect.size || this.record !== old) {
      // More bytes than the body has (or bytes of another body): nothing of it can be used.
      await this.handle.truncate(0);
      size = 0;
    }
    this.held = size;
    this.written = size;
    if (this.record.uploadId) await this.findStoredParts();
    await this.saveRecord();
  }

  /** The parts the store holds that are the ones we sent (ETag = the MD5 we recorded). */
  private async findStoredParts(): Promise<void> {
    const uploadId = this.record.uploadId!;
    let marker: string | undefined;
    try {
      do {
        const page = await this.ctx.client.send(
          new ListPartsCommand({ Bucket: this.ctx.bucket, Key: this.objectKey, UploadId: uploadId, PartNumberMarker: marker }),
        );
        for (const p of page.Parts ?? []) {
          const n = p.PartNumber ?? 0;
          const ours = this.record.parts[String(n)];
          if (ours !== undefined && unquote(p.ETag) === ours && p.Size === this.partBytes(n)) this.stored.set(n, ours);
        }
        marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
      } while (marker);
    } catch (e) {
      if (!isCode(e, 'NoSuchUpload')) throw this.fail(e, `resume the upload of ${this.key}`);
      // Aborted meanwhile (cleanUp elsewhere, a lifecycle rule): start a new one when needed.
      this.record.uploadId = undefined;
      this.record.parts = {};
    }
    // Parts the store no longer holds are forgotten; the staged bytes are sent again.
    this.record.parts = Object.fromEntries([...this.stored].map(([n, m]) => [String(n), m]));
  }

  /** Bytes of part n (1-based) in the whole body. */
  private partBytes(n: number): number {
    return Math.min(this.partSize, this.expect.size - (n - 1) * this.partSize);
  }

  /**
   * Writes the record (aside, then rename). Parts finish in any order: saves are queued and
   * each writes the record as it is when its turn comes, so the last one on disk is the newest.
   */
  private saveRecord(): Promise<void> {
    const save = this.saving.then(async () => {
      const tmp = `${this.recordFile}.${randomBytes(4).toString('hex')}.tmp`;
      await fs.writeFile(tmp, JSON.stringify(this.record));
      await fs.rename(tmp, this.recordFile);
    });
    this.saving = save.catch(() => undefined);
    return save;
  }
  private saving: Promise<void> = Promise.resolve();

  async *readHeld(): AsyncIterable<Buffer> {
    if (this.held === 0) return;
    for await (const chunk of createReadStream(this.stagedFile, { start: 0, end: this.held - 1 })) yield chunk as Buffer;
  }

  async write(chunks: readonly Buffer[], position: number): Promise<number> {
    if (this.failure) throw this.failure;
    if (this.closed || !this.handle) throw new DestinationError('io', `The upload of ${this.key} is closed.`);
    if (position !== this.written) throw new DestinationError('io', `Upload of ${this.key}: write at ${position}, expected ${this.written}.`);
    const { bytesWritten } = await this.handle.writev(chunks as Buffer[], position);
    if (bytesWritten > 0 && this.written + bytesWritten > this.expect.size) {
      throw new DestinationError('io', `Upload of ${this.key}: more bytes than the expected ${this.expect.size}.`);
    }
    this.written += bytesWritten;
    // Every full part goes up in the background; a part that is also the last one waits for
    // commit (the body may still be found wrong by the hash).
    for (let n = this.scheduledThrough + 1; n * this.partSize <= this.written && n * this.partSize < this.expect.size; n++) {
      this.schedule(n);
      this.scheduledThrough = n;
    }
    while (this.inFlight.size >= MAX_IN_FLIGHT) await Promise.race(this.inFlight.values());
    if (this.failure) throw this.failure;
    return bytesWritten;
  }

  private schedule(n: number): void {
    if (this.stored.has(n) || this.inFlight.has(n)) return;
    const job = this.sendPart(n)
      .catch((e) => {
        this.failure ??= this.fail(e, `upload part ${n} of ${this.key}`);
      })
      .finally(() => this.inFlight.delete(n));
    this.inFlight.set(n, job);
  }

  private async ensureUploadId(): Promise<string> {
    if (this.record.uploadId) return this.record.uploadId;
    this.creating ??= (async () => {
      const res = await this.ctx.client.send(
        new CreateMultipartUploadCommand({ Bucket: this.ctx.bucket, Key: this.objectKey, Metadata: { sha256: this.expect.sha256 } }),
        { abortSignal: this.parts.signal },
      );
      if (!res.UploadId) throw new DestinationError('io', `${this.ctx.where.endpoint} gave no upload id for ${this.key}.`);
      this.record.uploadId = res.UploadId;
      this.record.parts = {};
      await this.saveRecord();
      return res.UploadId;
    })().finally(() => {
      this.creating = null;
    });
    return this.creating;
  }
  private creating: Promise<string> | null = null;

  private async readRange(start: number, length: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const { bytesRead } = await this.handle!.read(buf, got, length - got, start + got);
      if (bytesRead === 0) throw new DestinationError('io', `The staged upload ${this.stagedFile} is shorter than written.`);
      got += bytesRead;
    }
    return buf;
  }

  private async sendPart(n: number): Promise<void> {
    const uploadId = await this.ensureUploadId();
    const body = await this.readRange((n - 1) * this.partSize, this.partBytes(n));
    const sum = md5(body);
    const res = await this.ctx.client.send(
      new UploadPartCommand({ Bucket: this.ctx.bucket, Key: this.objectKey, UploadId: uploadId, PartNumber: n, Body: body, ContentMD5: sum.base64 }),
      { abortSignal: this.parts.signal },
    );
    const etag = unquote(res.ETag);
    // A store whose part ETag is not the MD5 (SSE-KMS) still checked Content-MD5; the part is
    // then not reused after a restart (its ETag never matches), only sent again.
    this.stored.set(n, etag === sum.hex ? sum.hex : `sent:${sum.hex}`);
    if (this.record.uploadId === uploadId) {
      this.record.parts[String(n)] = sum.hex;
      await this.saveRecord();
    }
  }

  private async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }

  /**
   * Lets the parts in flight finish (each one stored is not sent again on resume), but no
   * longer than CLOSE_GRACE_MS: a store that hangs must not hold up a cancelled sync for the
   * SDK's timeouts and retries. Parts cut short are sent again by the next attempt.
   */
  private async settleOrCut(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.settle(), new Promise((r) => (timer = setTimeout(r, CLOSE_GRACE_MS)))]);
    clearTimeout(timer);
    this.parts.abort();
    await this.settle();
  }
  private parts = new AbortController();

  async restart(): Promise<void> {
    // The parts in flight belong to bytes being dropped: cut them at once.
    this.parts.abort();
    await this.settle();
    this.parts = new AbortController();
    this.failure = null;
    if (this.record.uploadId) await this.abort(this.objectKey, this.record.uploadId);
    this.record = this.freshRecord();
    this.stored.clear();
    this.scheduledThrough = 0;
    await this.handle?.truncate(0);
    this.written = 0;
    await this.saveRecord();
  }

  async commit(): Promise<ObjectInfo> {
    await this.settle();
    if (this.failure) throw this.failure;
    if (this.written !== this.expect.size) {
      throw new DestinationError('io', `Upload of ${this.key}: ${this.written} bytes written, ${this.expect.size} expected.`);
    }
    let info: ObjectInfo | null;
    try {
      if (!this.record.uploadId && this.expect.size <= this.partSize) {
        // One PUT, whose Content-MD5 the store checked: its ETag (the MD5 of a single-part
        // object) says what was stored, so no HEAD is needed (a request per small file less).
        info = await this.putWhole();
      } else {
        await this.complete();
        info = null;
      }
    } catch (e) {
      throw this.fail(e, `upload ${this.key}`);
    }
    info ??= await this.ctx.stat(this.key);
    if (!info || info.size !== this.expect.size || info.sha256 !== this.expect.sha256) {
      throw new DestinationError('io', `Upload of ${this.key}: the stored object does not show the size and sha256 just sent.`);
    }
    await this.removeLocal();
    return info;
  }

  /** The object as stored when the store's ETag is the MD5 just sent; null when it says nothing usable (then commit asks with a HEAD). */
  private async putWhole(): Promise<ObjectInfo | null> {
    const body = await this.readRange(0, this.expect.size);
    const sum = md5(body);
    const put = await this.ctx.client.send(
      new PutObjectCommand({
        Bucket: this.ctx.bucket,
        Key: this.objectKey,
        Body: body,
        ContentLength: body.length,
        ContentMD5: sum.base64,
        ChecksumSHA256: Buffer.from(this.expect.sha256, 'hex').toString('base64'),
        Metadata: { sha256: this.expect.sha256 },
      }),
    );
    const etag = unquote(put.ETag);
    return etag === sum.hex ? { key: this.key, size: body.length, stamp: etag, sha256: this.expect.sha256 } : null;
  }

  private async complete(): Promise<void> {
    const count = Math.max(1, Math.ceil(this.expect.size / this.partSize));
    for (let n = 1; n <= count; n++) this.schedule(n);
    await this.settle();
    if (this.failure) throw this.failure;
    const parts = [];
    for (let n = 1; n <= count; n++) {
      const m = this.stored.get(n);
      if (m === undefined) throw new DestinationError('io', `Upload of ${this.key}: part ${n} was not stored.`);
      // ETag as the store gave it (the MD5, or the store's own for SSE-KMS).
      parts.push({ PartNumber: n, ETag: m.startsWith('sent:') ? undefined : `"${m}"` });
    }
    if (parts.some((p) => p.ETag === undefined)) {
      // Non-MD5 ETags: ask the store for them (they belong to parts sent in this very attempt).
      const listed = new Map<number, string>();
      let marker: string | undefined;
      do {
        const page = await this.ctx.client.send(new ListPartsCommand({ Bucket: this.ctx.bucket, Key: this.objectKey, UploadId: this.record.uploadId, PartNumberMarker: marker }));
        for (const p of page.Parts ?? []) listed.set(p.PartNumber ?? 0, p.ETag ?? '');
        marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
      } while (marker);
      for (const p of parts) p.ETag ??= listed.get(p.PartNumber);
    }
    await this.ctx.client.send(
      new CompleteMultipartUploadCommand({ Bucket: this.ctx.bucket, Key: this.objectKey, UploadId: this.record.uploadId, MultipartUpload: { Parts: parts } }),
    );
  }

  private async abort(objectKey: string, uploadId: string): Promise<void> {
    try {
      await this.ctx.client.send(new AbortMultipartUploadCommand({ Bucket: this.ctx.bucket, Key: objectKey, UploadId: uploadId }));
    } catch (e) {
      if (!isCode(e, 'NoSuchUpload')) throw this.fail(e, `abort the upload of ${this.key}`);
    }
  }

  /** Closes and removes the staged file and its record. */
  private async removeLocal(): Promise<void> {
    this.closed = true;
    await this.handle?.close().catch(() => undefined);
    this.handle = null;
    await fs.rm(this.recordFile, { force: true });
    await fs.rm(this.stagedFile, { force: true });
  }

  async close(): Promise<void> {
    await this.settleOrCut();
    if (this.closed) return;
    this.closed = true;
    await this.handle?.close().catch(() => undefined);
    this.handle = null;
  }

  async discard(): Promise<void> {
    this.parts.abort();
    await this.settle();
    if (this.record.uploadId) await this.abort(this.objectKey, this.record.uploadId);
    await this.removeLocal();
  }
}
