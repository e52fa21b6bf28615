// A collection's dataset in an S3-compatible bucket (issue 20; README "Object storage"): the
// window's bucket form is checked here (Test), its secret access key goes to the OS keychain
// (one entry per endpoint, bucket and access key id) and only the location reaches the
// settings. The secret is read back from the keychain for each sync and held in main-process
// memory only: never in settings, logs, IPC answers or the bucket.
import type { SecretStore } from '../secrets/secret-store';
import { normaliseEndpoint, openDestination, parseDestination, readHistory, siblingSpec, type BucketCredentials, type Destination, type DestinationSpec } from '../sync/engine';
import type { SyncSummary } from '../../src-shared/sync-events';
import type { CollectionDatasetSettings } from '../../src-shared/settings';
import { bucketLabel, type BucketLocation } from '../../src-shared/settings';
import type { BucketTestResult } from '../../src-shared/ipc-contract';
import { AppError } from './app-error';
import type { BucketRecipe } from './engine-thread/messages';

/** Opens the engine's destination for a bucket's spec (through the engine's face); injected so tests can give a state folder of their own. */
export type OpenBucket = (spec: DestinationSpec, credentials: BucketCredentials) => Destination;

/** The engine's destination for the spec, its state under the user's state directory. */
export const openEngineBucket: OpenBucket = (spec, credentials) => openDestination(spec, { credentials });

/** A bucket dataset's destinations for one run: the dataset under PREFIX/, its consents under PREFIX.consents/, what left it under PREFIX.withdrawn/. */
export interface BucketRun {
  destination: Destination;
  consents: Destination;
  withdrawn: Destination;
}

/** Opens a run's three destinations in the same bucket; also called in the engine thread (engine-worker.ts), which cannot be handed Destination objects. */
export function openBucketRun(spec: DestinationSpec, credentials: BucketCredentials, open: OpenBucket = openEngineBucket): BucketRun {
  return {
    destination: open(spec, credentials),
    consents: open(siblingSpec(spec, '.consents'), credentials),
    withdrawn: open(siblingSpec(spec, '.withdrawn'), credentials),
  };
}

/**
 * The engine's spec of a location from the settings: its s3:// text read by the engine as
 * `--dest` is, with the location's own endpoint (none: AWS), region and path style, never the
 * environment's (the location is the whole choice).
 */
export function bucketSpecOf(location: BucketLocation): DestinationSpec {
  return parseDestination(bucketLabel(location), {
    endpoint: location.endpoint ?? undefined,
    region: location.region,
    ...(location.forcePathStyle !== undefined ? { forcePathStyle: location.forcePathStyle } : {}),
    env: {},
  });
}

/** The keychain's "service" of a bucket's secrets: the endpoint (AWS when none). */
function secretService(location: BucketLocation): string {
  return `s3:${location.endpoint ?? 'aws'}`;
}

/** One keychain entry per bucket and access key id at that endpoint. */
function secretEntry(location: BucketLocation): string {
  return `${location.bucket}:${location.accessKeyId}`;
}

/** Past syncs of a dataset, newest first: a folder's are in DEST/.dataset-sync, a bucket's in this machine's state folder for it. */
export async function datasetHistory(dataset: CollectionDatasetSettings): Promise<SyncSummary[]> {
  return readHistory(dataset.bucket ? bucketSpecOf(dataset.bucket) : dataset.dest);
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
      /** Default: the engine's bucket destination (openEngineBucket). */
      openBucket?: OpenBucket;
    },
  ) {}

  /** The endpoint as the engine (and the CLI's --s3-endpoint) will use it: an http(s) origin, no path or credentials. */
  checkEndpoint(location: BucketLocation): BucketLocation {
    if (location.endpoint === null) return location;
    try {
      return { ...location, endpoint: normaliseEndpoint(location.endpoint) };
    } catch (e) {
      throw new AppError('base_url', (e as Error).message);
    }
  }

  private opener(): OpenBucket {
    return this.deps.openBucket ?? openEngineBucket;
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

  /**
   * The destinations a sync writes into, with the secret read from the keychain for this run
   * only: the dataset under PREFIX/, its consents under PREFIX.consents/ and what left it under
   * PREFIX.withdrawn/, in the same bucket.
   */
  async open(location: BucketLocation): Promise<BucketRun> {
    const { spec, credentials } = await this.recipe(location);
    return openBucketRun(spec, credentials, this.opener());
  }

  /**
   * What the engine thread opens the same destinations from (the spec and the secret read from
   * the keychain for this run), or null when a test injected its own opener, which only runs here.
   */
  async recipeForThread(location: BucketLocation): Promise<BucketRecipe | null> {
    return this.deps.openBucket ? null : this.recipe(location);
  }

  private async recipe(location: BucketLocation): Promise<BucketRecipe> {
    const secret = await this.storedSecret(location);
    if (secret === null) {
      throw new AppError('no_folder', `The secret access key of ${describeLocation(location)} is not in the keychain any more: choose the bucket again.`);
    }
    return { spec: bucketSpecOf(location), credentials: { accessKeyId: location.accessKeyId, secretAccessKey: secret } };
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
    const dest = this.opener()(bucketSpecOf(location), { accessKeyId: location.accessKeyId, secretAccessKey });
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
