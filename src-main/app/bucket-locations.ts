// A collection's dataset in an S3-compatible bucket (issue 20; README "Object storage"): the
// window's bucket form is checked here (Test), its secret access key goes to the OS keychain
// (one entry per endpoint, bucket and access key id) and only the location reaches the
// settings. The secret is read back from the keychain for each sync and held in main-process
// memory only: never in settings, logs, IPC answers or the bucket.
import { BaseUrlError, validateBaseUrl } from '../api/base-url';
import type { SecretStore } from '../secrets/secret-store';
import type { BucketCredentials, Destination } from '../sync/destination/destination';
import { bucketLabel, type BucketLocation } from '../../src-shared/settings';
import type { BucketTestResult } from '../../src-shared/ipc-contract';
import { AppError } from './app-error';

/** Opens the engine's bucket destination for a location (src-main/sync/destination); injected so the app layer stays testable. */
export type OpenBucket = (location: BucketLocation, credentials: BucketCredentials) => Destination;

/** The keychain's "service" of a bucket's secrets: the endpoint (AWS when none). */
function secretService(location: BucketLocation): string {
  return `s3:${location.endpoint ?? 'aws'}`;
}

/** One keychain entry per bucket and access key id at that endpoint. */
function secretEntry(location: BucketLocation): string {
  return `${location.bucket}:${location.accessKeyId}`;
}

/** Where the location is, in words for messages: never a secret. */
export function describeLocation(location: BucketLocation): string {
  return `${bucketLabel(location)} at ${location.endpoint ?? 'AWS S3'}`;
}

export class BucketLocations {
  /** Secrets typed in this session: redacted from any error that leaves main (ipc/to-ipc-error.ts). */
  private readonly seen = new Set<string>();

  constructor(
    private readonly deps: {
      secrets: SecretStore;
      /** Absent in a build without bucket support: every bucket request is refused in words. */
      openBucket?: OpenBucket;
    },
  ) {}

  /** The endpoint as the engine will use it: https, or http on a loopback host only (like a service's base URL). */
  checkEndpoint(location: BucketLocation): BucketLocation {
    if (location.endpoint === null) return location;
    try {
      return { ...location, endpoint: validateBaseUrl(location.endpoint) };
    } catch (e) {
      if (e instanceof BaseUrlError) throw new AppError('base_url', `The bucket's endpoint: ${e.message}`);
      throw e;
    }
  }

  private opener(): OpenBucket {
    if (!this.deps.openBucket) throw new AppError('refused', 'This build of the app cannot sync into object storage.');
    return this.deps.openBucket;
  }

  /**
   * The Test button: opens the bucket with these credentials and asks it to prepare (reachable,
   * credentials accepted, bucket there, a write allowed). Failures come back as words naming the
   * endpoint and the bucket; the secret is never part of them.
   */
  async test(raw: BucketLocation, secretAccessKey?: string): Promise<BucketTestResult> {
    if (secretAccessKey !== undefined) this.seen.add(secretAccessKey);
    const location = this.checkEndpoint(raw);
    const secret = secretAccessKey ?? (await this.storedSecret(location));
    if (secret === null) return { ok: false, message: `No secret access key is stored for ${describeLocation(location)}: type it in and test again.` };
    try {
      await this.check(location, secret);
    } catch (e) {
      return { ok: false, message: hide((e as Error).message, secret) };
    }
    return { ok: true, message: `${describeLocation(location)}: reachable, credentials accepted, the bucket takes writes.` };
  }

  /** Checks the bucket, then stores the secret in the keychain; answers the location to save (no secret in it). */
  async remember(raw: BucketLocation, secretAccessKey: string): Promise<BucketLocation> {
    this.seen.add(secretAccessKey);
    const location = this.checkEndpoint(raw);
    try {
      await this.check(location, secretAccessKey);
    } catch (e) {
      throw new AppError('refused', hide((e as Error).message, secretAccessKey));
    }
    await this.deps.secrets.set(secretService(location), secretAccessKey, secretEntry(location));
    return location;
  }

  /** The destination a sync writes into, with the secret read from the keychain for this run only. */
  async open(location: BucketLocation): Promise<Destination> {
    const secret = await this.storedSecret(location);
    if (secret === null) {
      throw new AppError('no_folder', `The secret access key of ${describeLocation(location)} is not in the keychain any more: choose the bucket again.`);
    }
    return this.opener()(location, { accessKeyId: location.accessKeyId, secretAccessKey: secret });
  }

  private async storedSecret(location: BucketLocation): Promise<string | null> {
    const secret = await this.deps.secrets.get(secretService(location), secretEntry(location));
    if (secret !== null) this.seen.add(secret);
    return secret;
  }

  secretsToRedact(): string[] {
    return [...this.seen];
  }

  private async check(location: BucketLocation, secretAccessKey: string): Promise<void> {
    const dest = this.opener()(location, { accessKeyId: location.accessKeyId, secretAccessKey });
    try {
      await dest.prepare();
    } finally {
      await dest.close().catch(() => undefined);
    }
  }
}

/** A second guard: whatever a lower layer wrote, the secret never leaves in a message. */
function hide(message: string, secret: string): string {
  return secret.length >= 4 ? message.split(secret).join('[hidden]') : message;
}
