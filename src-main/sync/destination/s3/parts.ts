// The part scheduler of a bucket upload (upload.ts). Every full part of the staged file
// (staged-file.ts) goes up as soon as it is written, in the background, at most MAX_IN_FLIGHT at
// once: write() waits beyond that, so the download never runs far ahead of the upload. A part
// that is also the last one waits for commit (the body may still be found wrong by the hash).
// The multipart upload is created with the first part sent (CreateMultipartUpload carries the
// user metadata sha256).
//
// Each part carries Content-MD5 of the bytes read from the staged file (the integrity rule in
// upload.ts's header), so each part stored is exactly the staged bytes the engine hashed. A part
// stored by an earlier attempt is reused only when ListParts shows the ETag (the part's MD5)
// recorded when we sent it; the others are sent again from the staged bytes.
import { CreateMultipartUploadCommand, ListPartsCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { DestinationError, type ExpectedBody } from '../destination';
import type { BucketTarget } from './client';
import { isCode, s3Error } from './errors';
import { md5, unquote } from './etag';
import type { StagedFile } from './staged-file';

/**
 * Parts sent at once while the download goes on. Measured with 256 MiB into RGW on loopback (a
 * busy 2-core machine): 2 → 15.5 MiB/s, 4 → 18.4 MiB/s; 2 keeps 16 MiB of buffers per file
 * (the engine runs several files at once).
 */
const MAX_IN_FLIGHT = 2;
/** How long close() lets the parts in flight finish. */
const CLOSE_GRACE_MS = 10_000;

/** A part as CompleteMultipartUpload names it; ETag undefined: the store's ETag is not the MD5 (ListParts tells it). */
export interface PartToComplete {
  PartNumber: number;
  ETag: string | undefined;
}

/** The parts of one upload: which the store holds, which are in flight, and the first failure. */
export class PartScheduler {
  /** Parts whose bytes the store holds (this attempt or an earlier one): number -> MD5 hex. */
  private readonly stored = new Map<number, string>();
  private readonly inFlight = new Map<number, Promise<void>>();
  private failure: unknown = null;
  /** Parts 1..scheduledThrough were sent or are being sent (or were stored already). */
  private scheduledThrough = 0;
  private parts = new AbortController();
  private creating: Promise<string> | null = null;

  constructor(
    private readonly target: BucketTarget,
    private readonly objectKey: string,
    private readonly key: string,
    private readonly expect: ExpectedBody,
    /** The staged bytes, and the record (upload id, parts sent) each change is saved to. */
    private readonly staged: StagedFile,
  ) {}

  private get partSize(): number {
    return this.staged.record.partSize;
  }

  private fail(e: unknown, doing: string): DestinationError {
    return s3Error(e, this.target.where, doing);
  }

  /** The parts the store holds that are the ones we sent (ETag = the MD5 we recorded). */
  async findStoredParts(): Promise<void> {
    const record = this.staged.record;
    const uploadId = record.uploadId!;
    let marker: string | undefined;
    try {
      do {
        const page = await this.target.client.send(
          new ListPartsCommand({ Bucket: this.target.bucket, Key: this.objectKey, UploadId: uploadId, PartNumberMarker: marker }),
        );
        for (const p of page.Parts ?? []) {
          const n = p.PartNumber ?? 0;
          const ours = record.parts[String(n)];
          if (ours !== undefined && unquote(p.ETag) === ours && p.Size === this.partBytes(n)) this.stored.set(n, ours);
        }
        marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
      } while (marker);
    } catch (e) {
      if (!isCode(e, 'NoSuchUpload')) throw this.fail(e, `resume the upload of ${this.key}`);
      // Aborted meanwhile (cleanUp elsewhere, a lifecycle rule): start a new one when needed.
      record.uploadId = undefined;
      record.parts = {};
    }
    // Parts the store no longer holds are forgotten; the staged bytes are sent again.
    record.parts = Object.fromEntries([...this.stored].map(([n, m]) => [String(n), m]));
  }

  /** Bytes of part n (1-based) in the whole body. */
  private partBytes(n: number): number {
    return Math.min(this.partSize, this.expect.size - (n - 1) * this.partSize);
  }

  /** Throws the failure of a part sent in the background, if one failed. */
  throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  /**
   * Sends the full parts among the first `written` bytes, then waits while MAX_IN_FLIGHT parts
   * are in flight; throws the failure of a part.
   */
  async sendFull(written: number): Promise<void> {
    // Every full part goes up in the background; a part that is also the last one waits for
    // commit (the body may still be found wrong by the hash).
    for (let n = this.scheduledThrough + 1; n * this.partSize <= written && n * this.partSize < this.expect.size; n++) {
      this.schedule(n);
      this.scheduledThrough = n;
    }
    while (this.inFlight.size >= MAX_IN_FLIGHT) await Promise.race(this.inFlight.values());
    this.throwIfFailed();
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
    if (this.staged.record.uploadId) return this.staged.record.uploadId;
    this.creating ??= (async () => {
      const res = await this.target.client.send(
        new CreateMultipartUploadCommand({ Bucket: this.target.bucket, Key: this.objectKey, Metadata: { sha256: this.expect.sha256 } }),
        { abortSignal: this.parts.signal },
      );
      if (!res.UploadId) throw new DestinationError('io', `${this.target.where.endpoint} gave no upload id for ${this.key}.`);
      this.staged.record.uploadId = res.UploadId;
      this.staged.record.parts = {};
      await this.staged.save();
      return res.UploadId;
    })().finally(() => {
      this.creating = null;
    });
    return this.creating;
  }

  private async sendPart(n: number): Promise<void> {
    const uploadId = await this.ensureUploadId();
    const body = await this.staged.readRange((n - 1) * this.partSize, this.partBytes(n));
    const sum = md5(body);
    const res = await this.target.client.send(
      new UploadPartCommand({ Bucket: this.target.bucket, Key: this.objectKey, UploadId: uploadId, PartNumber: n, Body: body, ContentMD5: sum.base64 }),
      { abortSignal: this.parts.signal },
    );
    const etag = unquote(res.ETag);
    // A store whose part ETag is not the MD5 (SSE-KMS) still checked Content-MD5; the part is
    // then not reused after a restart (its ETag never matches), only sent again.
    this.stored.set(n, etag === sum.hex ? sum.hex : `sent:${sum.hex}`);
    if (this.staged.record.uploadId === uploadId) {
      this.staged.record.parts[String(n)] = sum.hex;
      await this.staged.save();
    }
  }

  /** Sends every part the store lacks, the last one included, and names them all for CompleteMultipartUpload. */
  async sendAll(): Promise<PartToComplete[]> {
    const count = Math.max(1, Math.ceil(this.expect.size / this.partSize));
    for (let n = 1; n <= count; n++) this.schedule(n);
    await this.settle();
    this.throwIfFailed();
    const parts: PartToComplete[] = [];
    for (let n = 1; n <= count; n++) {
      const m = this.stored.get(n);
      if (m === undefined) throw new DestinationError('io', `Upload of ${this.key}: part ${n} was not stored.`);
      // ETag as the store gave it (the MD5, or the store's own for SSE-KMS).
      parts.push({ PartNumber: n, ETag: m.startsWith('sent:') ? undefined : `"${m}"` });
    }
    return parts;
  }

  /** Waits until no part is in flight. */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }

  /**
   * Lets the parts in flight finish (each one stored is not sent again on resume), but no
   * longer than CLOSE_GRACE_MS: a store that hangs must not hold up a cancelled sync for the
   * SDK's timeouts and retries. Parts cut short are sent again by the next attempt.
   */
  async settleOrCut(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.settle(), new Promise((r) => (timer = setTimeout(r, CLOSE_GRACE_MS)))]);
    clearTimeout(timer);
    this.parts.abort();
    await this.settle();
  }

  /** Cuts the parts in flight at once and waits until they ended (their bytes are dropped). */
  async cut(): Promise<void> {
    this.parts.abort();
    await this.settle();
  }

  /** After cut(): parts may be sent again, and an earlier failure is forgotten. */
  reopen(): void {
    this.parts = new AbortController();
    this.failure = null;
  }

  /** Forgets every part stored or scheduled (the body starts again from its first byte). */
  forget(): void {
    this.stored.clear();
    this.scheduledThrough = 0;
  }
}
