// A dataset in an S3-compatible bucket (issue 20; docs/contracts.md §2 "Object storage"): every key of
// destination.ts becomes the object PREFIX/key (the bucket backend, backend.ts). The S3 details
// live beside it in s3/: the client and its request count (client.ts), errors in words
// (errors.ts), resumable multipart uploads staged locally (upload.ts and the modules it names,
// commit.ts aborting the ones a killed sync left open) and the lock object (lock.ts).
//
// Measured on Ceph 16.2.15 RGW (test/destination/s3-bucket.test.ts): `If-None-Match: *` on PUT
// is honoured (412), Content-MD5 is checked (400 BadDigest), x-amz-checksum-sha256 is NOT
// checked (a wrong value is stored without complaint): capabilities.checksSha256 is false and
// the client makes sure of the bytes itself (upload.ts).
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload as SdkUpload } from '@aws-sdk/lib-storage';
import {
  copyThenRemove,
  DestinationError,
  type BucketCredentials,
  type Destination,
  type DestinationCapabilities,
  type DestinationLock,
  type ExpectedBody,
  type ExpectedObject,
  type ObjectInfo,
  type PresenceProblem,
  type ReadOptions,
  type Upload,
} from '../destination';
import { countRequests, makeS3Client, type BucketTarget } from './client';
import { abortUploadsExcept } from './commit';
import { unquote } from './etag';
import { bucketLabel, defaultBucketStateDir, type BucketSpec } from './naming';

export { bucketLabel, defaultBucketStateDir } from './naming';
import { isCode, s3Error, statusOf, type Where } from './errors';
import type { StorageStats } from '../../../../src-shared/sync-events';
import { acquireBucketLock } from './lock';
import { checkKey, checkPrefix } from '../key-rules';
import { heldUploadIds } from './staged-file';
import { DEFAULT_PART_SIZE, openS3Upload } from './upload';

export interface S3BucketOptions {
  /** Absent: the AWS SDK's default chain (environment, AWS_PROFILE, ~/.aws/credentials). */
  credentials?: BucketCredentials;
  /** Where this machine keeps the engine's state and staged uploads; default: defaultBucketStateDir. */
  stateDir?: string;
  /** Multipart part size in bytes (default 8 MiB; S3 wants at least 5 MiB for every part but the last). */
  partSize?: number;
  /** Told when the lock was taken over by another sync while this one held it. */
  onLockLost?: (message: string) => void;
  /** How often the lock object is refreshed while held (default 60 s; tests make it short). */
  lockRefreshMs?: number;
}

/** The key of the lock object under PREFIX. */
export const LOCK_KEY = '.dataset-sync/lock';
const PAGE = 1000;

function validSha256(v: string | undefined): string | undefined {
  return v !== undefined && /^[0-9a-f]{64}$/.test(v) ? v : undefined;
}

export class S3Bucket implements Destination {
  readonly kind = 'bucket' as const;
  readonly label: string;
  readonly capabilities: DestinationCapabilities = { freeSpace: false, checksSha256: false };
  /** Any machine may sync the prefix: its head carries a generation (state.ts). */
  readonly sharedAcrossMachines = true;
  readonly stateDir: string;
  private readonly client: S3Client;
  private readonly where: Where;
  private readonly root: string;
  private readonly partSize: number;

  constructor(
    readonly spec: BucketSpec,
    private readonly options: S3BucketOptions = {},
  ) {
    this.label = bucketLabel(spec);
    this.stateDir = options.stateDir ?? defaultBucketStateDir(spec);
    this.client = makeS3Client(spec, options.credentials);
    this.where = { endpoint: spec.endpoint ?? 'AWS S3', bucket: spec.bucket };
    this.root = `${spec.prefix}/`;
    this.partSize = options.partSize ?? DEFAULT_PART_SIZE;
    this.counted = countRequests(this.client);
  }

  /** Every request the SDK sent so far (retries included), for the summary's `storage` and the no-op benchmark. */
  private readonly counted: StorageStats;

  stats(): StorageStats {
    return { ...this.counted };
  }

  private objectKey(key: string): string {
    checkKey(key);
    return this.root + key;
  }

  private fail(e: unknown, doing: string): DestinationError {
    return s3Error(e, this.where, doing);
  }

  /** The bucket as upload.ts and commit.ts reach it. */
  private get target(): BucketTarget {
    return { client: this.client, bucket: this.spec.bucket, where: this.where };
  }

  private get uploadsDir(): string {
    return path.join(this.stateDir, 'uploads');
  }

  /**
   * Lists under PREFIX (one request with an S3 error code in its body, unlike HeadBucket whose
   * 403/404 carry none: wrong keys, a missing bucket and no permission are told apart), then
   * writes and removes a probe object (the permission to write is not visible otherwise).
   */
  async prepare(): Promise<string[]> {
    try {
      await fs.mkdir(this.stateDir, { recursive: true });
    } catch (e) {
      throw new DestinationError('io', `Cannot create the local state folder ${this.stateDir} for ${this.label}: ${(e as Error).message}`);
    }
    try {
      await this.client.send(new ListObjectsV2Command({ Bucket: this.spec.bucket, Prefix: this.root, MaxKeys: 1 }));
    } catch (e) {
      throw this.fail(e, `open ${this.label}`);
    }
    const probe = this.objectKey(`.dataset-sync/probe-${randomBytes(6).toString('hex')}`);
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.spec.bucket, Key: probe, Body: Buffer.alloc(0), ContentLength: 0 }));
      await this.client.send(new DeleteObjectCommand({ Bucket: this.spec.bucket, Key: probe }));
    } catch (e) {
      throw this.fail(e, `write to ${this.label}`);
    }
    return [];
  }

  lock(): Promise<DestinationLock> {
    return acquireBucketLock({
      client: this.client,
      bucket: this.spec.bucket,
      where: this.where,
      objectKey: this.objectKey(LOCK_KEY),
      label: this.label,
      onLost: this.options.onLockLost,
      refreshMs: this.options.lockRefreshMs,
    });
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    const objectKey = this.objectKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.spec.bucket, Key: objectKey }));
      const sha256 = validSha256(head.Metadata?.sha256);
      return { key, size: head.ContentLength ?? 0, stamp: unquote(head.ETag), ...(sha256 ? { sha256 } : {}) };
    } catch (e) {
      if (isCode(e, 'NotFound', 'NoSuchKey') || statusOf(e) === 404) {
        // A HEAD 404 has no body: a missing bucket looks the same. Objects are stat'ed after
        // prepare() found the bucket, so a 404 here is the object's.
        return null;
      }
      throw this.fail(e, `read ${key} in ${this.label}`);
    }
  }

  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    checkPrefix(prefix);
    const listPrefix = this.root + prefix;
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({ Bucket: this.spec.bucket, Prefix: listPrefix, MaxKeys: PAGE, ContinuationToken: token }),
        );
      } catch (e) {
        throw this.fail(e, `list ${this.label}`);
      }
      for (const o of page.Contents ?? []) {
        if (!o.Key) continue;
        yield { key: o.Key.slice(this.root.length), size: o.Size ?? 0, stamp: unquote(o.ETag) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async *read(key: string, options: ReadOptions = {}): AsyncIterable<Buffer> {
    const objectKey = this.objectKey(key);
    let body: Readable;
    try {
      const range = options.start ? { Range: `bytes=${options.start}-` } : {};
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.spec.bucket, Key: objectKey, ...range }));
      body = res.Body as Readable;
    } catch (e) {
      if (isCode(e, 'NoSuchKey')) throw new DestinationError('io', `${key} is missing in ${this.label}.`, 'NoSuchKey');
      throw this.fail(e, `read ${key} in ${this.label}`);
    }
    try {
      for await (const chunk of body) yield chunk as Buffer;
    } catch (e) {
      throw this.fail(e, `read ${key} in ${this.label}`);
    } finally {
      body.destroy();
    }
  }

  async readText(key: string): Promise<string | null> {
    const objectKey = this.objectKey(key);
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.spec.bucket, Key: objectKey }));
      return (await res.Body?.transformToString('utf8')) ?? '';
    } catch (e) {
      if (isCode(e, 'NoSuchKey')) return null;
      throw this.fail(e, `read ${key} in ${this.label}`);
    }
  }

  /**
   * One PUT (with Content-MD5) for a string or Buffer; an iterable is streamed with lib-storage
   * (one PUT when it fits a part, else a multipart upload it aborts on failure). `private` asks
   * for nothing more: S3 objects are readable by the bucket owner only unless a bucket policy
   * says otherwise, and sending an ACL fails on buckets with ACLs disabled (AWS's default).
   */
  async writeAtomic(key: string, body: string | Buffer | AsyncIterable<string | Buffer>, _options?: { private?: boolean }): Promise<ObjectInfo> {
    const objectKey = this.objectKey(key);
    try {
      if (typeof body === 'string' || Buffer.isBuffer(body)) {
        const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
        const res = await this.client.send(
          new PutObjectCommand({
            Bucket: this.spec.bucket,
            Key: objectKey,
            Body: bytes,
            ContentLength: bytes.length,
            ContentMD5: createHash('md5').update(bytes).digest('base64'),
          }),
        );
        return { key, size: bytes.length, stamp: unquote(res.ETag) };
      }
      let size = 0;
      const counted = Readable.from(
        (async function* () {
          for await (const chunk of body) {
            const b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
            size += b.length;
            yield b;
          }
        })(),
      );
      const upload = new SdkUpload({
        client: this.client,
        params: { Bucket: this.spec.bucket, Key: objectKey, Body: counted },
        partSize: Math.max(this.partSize, 5 * 1024 * 1024),
        queueSize: 2,
      });
      const res = await upload.done();
      return { key, size, stamp: unquote(res.ETag) };
    } catch (e) {
      throw this.fail(e, `write ${key} to ${this.label}`);
    }
  }

  async remove(key: string): Promise<void> {
    const objectKey = this.objectKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.spec.bucket, Key: objectKey }));
    } catch (e) {
      if (isCode(e, 'NoSuchKey')) return;
      throw this.fail(e, `remove ${key} from ${this.label}`);
    }
  }

  /** Every object under PREFIX/, one DeleteObject each (a quarantine holds a few sets). */
  async removeAll(): Promise<void> {
    const keys: string[] = [];
    for await (const o of this.list('')) keys.push(o.key);
    for (const key of keys) await this.remove(key);
  }

  /**
   * Within the same store (a sibling prefix such as PREFIX.withdrawn/ of the same endpoint):
   * CopyObject (metadata, sha256 included, copied with it), then DeleteObject; elsewhere the
   * bytes are streamed across.
   */
  async move(key: string, target: Destination, targetKey: string): Promise<boolean> {
    const objectKey = this.objectKey(key);
    if (!(target instanceof S3Bucket) || target.spec.endpoint !== this.spec.endpoint) return copyThenRemove(this, key, target, targetKey);
    const targetObject = target.objectKey(targetKey);
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: target.spec.bucket,
          Key: targetObject,
          CopySource: `${this.spec.bucket}/${objectKey.split('/').map(encodeURIComponent).join('/')}`,
        }),
      );
    } catch (e) {
      if (isCode(e, 'NoSuchKey') || statusOf(e) === 404) return false;
      throw this.fail(e, `move ${key} to ${target.label}`);
    }
    await this.remove(key);
    return true;
  }

  async openUpload(key: string, expect: ExpectedBody): Promise<Upload> {
    const objectKey = this.objectKey(key);
    return openS3Upload(
      { ...this.target, dir: this.uploadsDir, partSize: this.partSize, stat: (k) => this.stat(k) },
      objectKey,
      key,
      expect,
    );
  }

  /** Trusts the object's own sha256 metadata (set by this client only after the hash matched): one HEAD, no body read. */
  async verifiedCopy(key: string, expect: { size: number; sha256: string }): Promise<ObjectInfo | null> {
    const info = await this.stat(key);
    return info && info.size === expect.size && info.sha256 === expect.sha256.toLowerCase() ? info : null;
  }

  /**
   * One LIST per 1,000 objects under the longest folder prefix the expected keys share (never a
   * HEAD per key): an object is missing when not listed, changed when its size or ETag differ
   * from the recorded ones (an object rewritten behind our back gets a new ETag).
   */
  async *checkPresence(expected: Iterable<ExpectedObject>): AsyncIterable<PresenceProblem> {
    const want = new Map<string, ExpectedObject>();
    let common: string | null = null;
    for (const e of expected) {
      checkKey(e.key);
      want.set(e.key, e);
      if (common === null) common = e.key.slice(0, e.key.lastIndexOf('/') + 1);
      else while (!e.key.startsWith(common)) common = common.slice(0, common.slice(0, -1).lastIndexOf('/') + 1);
    }
    if (common === null) return;
    for await (const o of this.list(common)) {
      const e = want.get(o.key);
      if (!e) continue;
      want.delete(o.key);
      if (o.size !== e.size) yield { key: o.key, problem: 'changed', detail: `size ${o.size}, recorded ${e.size}` };
      else if (o.stamp !== e.stamp) yield { key: o.key, problem: 'changed', detail: 'its ETag changed since it was verified' };
    }
    for (const key of want.keys()) yield { key, problem: 'missing' };
  }

  async freeSpace(): Promise<number | null> {
    return null;
  }

  /**
   * Aborts the multipart uploads under PREFIX/ that no upload record of this machine holds for
   * resume. It also removes the uploads/verified/ folder that older versions left on this machine
   * (they kept a file's verified bytes there after its commit for the media check, which now reads
   * them as they are hashed on their way up; a killed sync left them behind).
   */
  async cleanUp(): Promise<void> {
    await fs.rm(path.join(this.uploadsDir, 'verified'), { recursive: true, force: true }).catch(() => undefined);
    const keep = await heldUploadIds(this.uploadsDir);
    try {
      await abortUploadsExcept(this.target, this.root, keep);
    } catch (e) {
      throw this.fail(e, `clean up unfinished uploads in ${this.label}`);
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
