// A bucket destination that loads the AWS SDK on its first request. Parsing a destination,
// opening one for its label and state folder, and every folder sync then run without the SDK,
// whose modules cost a process ~20 MB and 0.2 s (2 s on a loaded machine) to load: a fifth of a
// no-op at 20,000 files. The S3Bucket behind it is made once, by the first method that needs it.
import type { StorageStats } from '../../../../src-shared/sync-events';
import type { BucketCredentials, Destination, DestinationCapabilities, DestinationLock, ExpectedBody, ExpectedObject, ObjectInfo, PresenceProblem, ReadOptions, Upload } from '../destination';
import { bucketLabel, defaultBucketStateDir, type BucketSpec } from './naming';
import type { S3Bucket } from './s3-bucket';

export interface LazyBucketOptions {
  credentials?: BucketCredentials;
  stateDir?: string;
  partSize?: number;
}

export class LazyBucket implements Destination {
  readonly kind = 'bucket' as const;
  readonly label: string;
  // As S3Bucket's: a bucket cannot say its free space, and its sha256 is metadata it keeps, not a hash it computes.
  readonly capabilities: DestinationCapabilities = { freeSpace: false, checksSha256: false };
  readonly sharedAcrossMachines = true;
  readonly stateDir: string;
  private made: Promise<S3Bucket> | undefined;
  private ready: S3Bucket | undefined;

  constructor(
    readonly spec: BucketSpec,
    private readonly options: LazyBucketOptions = {},
  ) {
    this.label = bucketLabel(spec);
    this.stateDir = options.stateDir ?? defaultBucketStateDir(spec);
  }

  /** The bucket itself, its SDK loaded on the first call. */
  bucket(): Promise<S3Bucket> {
    return (this.made ??= import('./s3-bucket').then(({ S3Bucket }) => (this.ready = new S3Bucket(this.spec, { ...this.options, stateDir: this.stateDir }))));
  }

  async prepare(): Promise<string[]> {
    return (await this.bucket()).prepare();
  }
  async lock(): Promise<DestinationLock> {
    return (await this.bucket()).lock();
  }
  async stat(key: string): Promise<ObjectInfo | null> {
    return (await this.bucket()).stat(key);
  }
  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    yield* (await this.bucket()).list(prefix);
  }
  async *read(key: string, options?: ReadOptions): AsyncIterable<Buffer> {
    yield* (await this.bucket()).read(key, options);
  }
  async readText(key: string): Promise<string | null> {
    return (await this.bucket()).readText(key);
  }
  async writeAtomic(key: string, body: string | Buffer | AsyncIterable<string | Buffer>, options?: { private?: boolean }): Promise<ObjectInfo> {
    return (await this.bucket()).writeAtomic(key, body, options);
  }
  async remove(key: string): Promise<void> {
    return (await this.bucket()).remove(key);
  }
  /** Between two buckets of one store the copy stays server-side: the target is unwrapped for S3Bucket's check. */
  async move(key: string, target: Destination, targetKey: string): Promise<boolean> {
    const to = target instanceof LazyBucket ? await target.bucket() : target;
    return (await this.bucket()).move(key, to, targetKey);
  }
  async removeAll(): Promise<void> {
    return (await this.bucket()).removeAll();
  }
  async openUpload(key: string, expect: ExpectedBody): Promise<Upload> {
    return (await this.bucket()).openUpload(key, expect);
  }
  async verifiedCopy(key: string, expect: { size: number; sha256: string }): Promise<ObjectInfo | null> {
    return (await this.bucket()).verifiedCopy(key, expect);
  }
  async *checkPresence(expected: Iterable<ExpectedObject>): AsyncIterable<PresenceProblem> {
    yield* (await this.bucket()).checkPresence(expected);
  }
  async freeSpace(): Promise<number | null> {
    return null;
  }
  stats(): StorageStats {
    return this.ready?.stats() ?? { requests: 0, listRequests: 0, bytesUploaded: 0, bytesDownloaded: 0 };
  }
  async cleanUp(): Promise<void> {
    return (await this.bucket()).cleanUp();
  }
  /** Never loads the SDK just to close it. */
  async close(): Promise<void> {
    if (this.made) await (await this.made).close();
  }
}
