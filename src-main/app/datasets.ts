// The active account's collections with their dataset folders: what the window lists, where a
// collection syncs to, its history and verification. Folders are kept per (account,
// collection), so connecting to another service whose collection has the same id never
// offers or reuses this one's folder or watermark.
import type { SetsPage } from '../../src-shared/delivery-api';
import type { SettingsStore } from '../settings/settings-store';
import { DestinationError, listWithdrawn, openDestination, parseDestination, purgeWithdrawn, siblingSpec, verify, type Destination, type VerifyOptions } from '../sync/engine';
import type { VerifyReport } from '../../src-shared/sync-events';
import type { VerifyProgress } from '../../src-shared/ipc-contract';
import type { CollectionDatasetSettings, CollectionListItem, DatasetCard, DatasetSubset, HistoryEntry, WithdrawnData } from '../../src-shared/ipc-contract';
import { readCounts, readDatasetCard, readRunHistory, recordVerified } from './dataset-card';
import { AppError } from './app-error';
import { checkChosenFolder, ownerConflict, type KnownDataset } from './folder-check';
import { validateBaseUrl } from '../api/base-url';
import { datasetHistory, type BucketLocations } from './bucket-locations';
import type { ConnectionManager } from './connection';
import { bucketLabel, type BucketLocation } from '../../src-shared/settings';
import type { CollectionRef, Emit, SyncController } from './sync-controller';

export interface DatasetsDeps {
  settings: SettingsStore;
  connection: ConnectionManager;
  syncs: SyncController;
  buckets: BucketLocations;
  emit: Emit;
}

/** verify:progress at most this often (and once at the end). */
const VERIFY_PROGRESS_MS = 250;

/** Consent signer names are personal data: they never leave main. */
export function stripSignerNames(page: SetsPage): SetsPage {
  return {
    ...page,
    sets: page.sets.map((set) => ({
      ...set,
      participants: set.participants.map((p) => {
        if (!p.consent) return p;
        const { signer_name: _omitted, ...consent } = p.consent;
        return { ...p, consent: consent as typeof p.consent };
      }),
    })),
  };
}

export class Datasets {
  constructor(private readonly deps: DatasetsDeps) {}

  /**
   * The collection of the active account. Without one, an account id no folder or key is
   * stored under: what is asked then fails as it would for any unknown collection (no_folder,
   * then not_connected).
   */
  ref(collectionId: number): CollectionRef {
    return { accountId: this.deps.settings.activeAccount()?.id ?? '', collectionId };
  }

  folder(collectionId: number): CollectionDatasetSettings {
    const dataset = this.deps.settings.collectionDataset(this.ref(collectionId).accountId, collectionId);
    if (!dataset) throw new AppError('no_folder', `No dataset folder is chosen for collection ${collectionId}.`);
    return dataset;
  }

  /**
   * The folder, unless it has come to hold another collection's dataset since it was chosen
   * (a CLI sync, a copy): then its files, changes and verify results are not this collection's.
   */
  private ownFolder(collectionId: number): CollectionDatasetSettings {
    const dataset = this.folder(collectionId);
    const owner = this.owner(collectionId);
    // A folder's head is peeked here; a bucket's is read over the network, by the sync itself (exit 2 on a conflict).
    const conflict = owner && !dataset.bucket && ownerConflict(dataset.dest, owner);
    if (conflict) throw new AppError('refused', conflict);
    return dataset;
  }

  async list(): Promise<CollectionListItem[]> {
    const client = await this.deps.connection.deliveryClient();
    const accountId = this.deps.connection.activeAccountId();
    const collections = await client.listCollections();
    for (const c of collections) this.deps.syncs.rememberTitle({ accountId, collectionId: c.id }, c.title);
    return Promise.all(
      collections.map(async (c): Promise<CollectionListItem> => {
        const dataset = this.deps.settings.collectionDataset(accountId, c.id);
        // The set counts are the detail's (one small request each, in parallel); a failure hides only them.
        const [history, detail] = await Promise.all([dataset ? datasetHistory(dataset).catch(() => []) : [], client.getCollection(c.id).catch(() => null)]);
        const counts = dataset && !dataset.bucket ? readCounts(dataset.dest) : null;
        const last = history[0] ?? null;
        return {
          ...c,
          dest: dataset?.dest ?? null,
          acceptedSets: detail?.sets.accepted ?? null,
          onDisk: counts?.files ? { sets: counts.setsWithFiles, bytes: counts.bytes } : null,
          lastSync: last && {
            finishedAt: last.finishedAt,
            exitCode: last.exitCode,
            filesDownloaded: last.filesDownloaded,
            filesFailed: last.filesFailed,
            cancelled: last.cancelled,
          },
        };
      }),
    );
  }

  async sets(collectionId: number, query: { status: string; page: number; perPage: number }): Promise<SetsPage> {
    return stripSignerNames(await (await this.deps.connection.deliveryClient()).listSets(collectionId, query));
  }

  /** The service and collection a folder of this collection must belong to (the engine's binding). */
  private owner(collectionId: number): { baseUrl: string; collectionId: number } | null {
    const account = this.deps.settings.activeAccount();
    return account ? { baseUrl: validateBaseUrl(account.baseUrl), collectionId } : null;
  }

  /** Every other collection's folders, of every account: a folder serves one collection only. */
  private knownDatasets(accountId: string, collectionId: number): KnownDataset[] {
    const { settings } = this.deps;
    return settings.accounts().flatMap((account) =>
      Object.entries(settings.datasets(account.id))
        .filter(([id]) => !(account.id === accountId && Number(id) === collectionId))
        .map(([id, dataset]) => ({
          label: account.id === accountId ? `collection ${id}` : `collection ${id} of ${account.client?.name ?? account.baseUrl}`,
          ...dataset,
        })),
    );
  }

  /**
   * The chosen folder is checked before it is kept (folder-check.ts): another collection's
   * dataset, a folder inside a dataset or its consents, or one the app cannot write to is
   * refused in words and the collection keeps its folder. A new folder means a new dataset: a
   * consents folder chosen for the old one is dropped and the engine's default (a sibling of
   * the new folder) applies.
   */
  async choose(collectionId: number, dest: string): Promise<CollectionDatasetSettings> {
    const dataset = { dest };
    const accountId = this.deps.connection.activeAccountId();
    const owner = this.owner(collectionId);
    const refusal = owner && (await checkChosenFolder(dest, owner, this.knownDatasets(accountId, collectionId)));
    if (refusal) throw new AppError('refused', refusal);
    this.deps.settings.setCollectionDataset(accountId, collectionId, dataset);
    // The old folder's last run says nothing about the new one.
    this.deps.syncs.forgetLastSummary({ accountId, collectionId });
    return dataset;
  }

  /**
   * A bucket as the collection's dataset: checked (reachable, credentials, exists, writable),
   * its secret stored in the keychain, the location (no secret) in settings. Like a new folder,
   * a new location is a new dataset.
   */
  async chooseBucket(collectionId: number, location: BucketLocation, secretAccessKey: string): Promise<CollectionDatasetSettings> {
    const accountId = this.deps.connection.activeAccountId();
    const checked = await this.deps.buckets.remember(location, secretAccessKey);
    const dataset = { dest: bucketLabel(checked), bucket: checked };
    this.deps.settings.setCollectionDataset(accountId, collectionId, dataset);
    this.deps.syncs.forgetLastSummary({ accountId, collectionId });
    return dataset;
  }

  async history(collectionId: number): Promise<HistoryEntry[]> {
    const { dest } = this.folder(collectionId);
    return readRunHistory(dest, await datasetHistory(this.folder(collectionId)));
  }

  /**
   * Re-hashes the dataset while no sync of it may start, pushing verify:progress; the card
   * remembers when. Cancelled (syncs.cancelVerify): AppError 'cancelled', nothing recorded.
   */
  verify(collectionId: number): Promise<VerifyReport> {
    const dataset = this.ownFolder(collectionId);
    const { dest } = dataset;
    const ref = this.ref(collectionId);
    return this.deps.syncs.exclusive(ref, async (signal) => {
      const startedAtIso = new Date().toISOString();
      const startedAt = performance.now();
      let shownAt = -Infinity;
      const onProgress = (filesChecked: number, filesTotal: number, step: { bytesChecked: number; bytesTotal: number; bytesHashed: number }) => {
        const now = performance.now();
        if (filesChecked < filesTotal && now - shownAt < VERIFY_PROGRESS_MS) return;
        shownAt = now;
        const seconds = (now - startedAt) / 1000;
        const progress: VerifyProgress = {
          ...ref,
          filesChecked,
          filesTotal,
          bytesChecked: step.bytesChecked,
          bytesTotal: step.bytesTotal,
          bytesPerSecond: seconds > 0 ? Math.round(step.bytesHashed / seconds) : 0,
        };
        this.deps.emit('verify:progress', progress);
      };
      let report: VerifyReport;
      try {
        report = dataset.bucket ? await this.verifyBucket(dataset.bucket, onProgress, signal) : await verify(dest, { onProgress, signal });
      } catch (e) {
        if (signal.aborted) throw new AppError('cancelled', 'Verify cancelled; nothing on disk was changed.');
        // Nothing synced there yet: said as the CLI says it, not as an unexpected error.
        if (e instanceof DestinationError && e.code === 'ENOENT') throw new AppError('refused', `Nothing to verify yet: ${dataset.bucket ? `s3://${dataset.bucket.bucket}/${dataset.bucket.prefix}` : dest} has no manifest.csv (it has not been synced). Sync it first.`);
        throw e;
      }
      // The card's notes live in a folder's engine state; a bucket's verify is reported, not noted.
      if (!dataset.bucket) await recordVerified(dest, report, startedAtIso);
      return report;
    });
  }

  /** A bucket dataset's objects read back and re-hashed, with the secret from the keychain for this verify only. */
  private async verifyBucket(location: BucketLocation, onProgress: VerifyOptions['onProgress'], signal: AbortSignal): Promise<VerifyReport> {
    const { destination, consents, withdrawn } = await this.deps.buckets.open(location);
    try {
      return await verify(destination, { onProgress, signal });
    } finally {
      await Promise.all([destination.close(), consents.close(), withdrawn.close()].map((p) => p.catch(() => undefined)));
    }
  }

  async card(collectionId: number): Promise<DatasetCard> {
    const dataset = this.ownFolder(collectionId);
    const { lastSummary } = await this.deps.syncs.state(this.ref(collectionId));
    return readDatasetCard(dataset, lastSummary);
  }

  /**
   * Remembers the slots and quota groups the dataset holds (null: all); every later sync gives
   * them to the engine, which moves what falls out to the quarantine (withdraw.ts).
   */
  setSubset(collectionId: number, subset: DatasetSubset): CollectionDatasetSettings {
    const dataset = this.folder(collectionId);
    const next: CollectionDatasetSettings = { ...dataset, subset: { slots: subset.slots, groups: subset.groups } };
    this.deps.settings.setCollectionDataset(this.ref(collectionId).accountId, collectionId, next);
    return next;
  }

  /** The sets that left the dataset and wait in its quarantine, per set folder. */
  withdrawn(collectionId: number): Promise<WithdrawnData> {
    return this.withQuarantine(collectionId, async (_dataset, withdrawn) => ({ location: withdrawn.label, ...(await listWithdrawn(withdrawn)) }));
  }

  /** Deletes the quarantine with the code `purge-withdrawn` runs; refused while a sync or verify of the collection runs. */
  purgeWithdrawn(collectionId: number): Promise<WithdrawnData> {
    const ref = this.ref(collectionId);
    if (this.deps.syncs.isBusy(ref)) throw new AppError('busy', `Collection ${collectionId} is syncing or being verified; delete withdrawn data when it has finished.`);
    return this.withQuarantine(collectionId, async (dataset, withdrawn) => ({ location: withdrawn.label, ...(await purgeWithdrawn(dataset, withdrawn)) }));
  }

  /** The dataset and its quarantine opened (a bucket's with the secret from the keychain), closed after `work`. */
  private async withQuarantine<T>(collectionId: number, work: (dataset: Destination, withdrawn: Destination) => Promise<T>): Promise<T> {
    const settings = this.ownFolder(collectionId);
    let opened: Destination[];
    let dataset: Destination;
    let withdrawn: Destination;
    if (settings.bucket) {
      const bucket = await this.deps.buckets.open(settings.bucket);
      ({ destination: dataset, withdrawn } = bucket);
      opened = [bucket.destination, bucket.consents, bucket.withdrawn];
    } else {
      dataset = openDestination(settings.dest);
      withdrawn = openDestination(siblingSpec(parseDestination(settings.dest), '.withdrawn'));
      opened = [dataset, withdrawn];
    }
    try {
      return await work(dataset, withdrawn);
    } finally {
      await Promise.all(opened.map((d) => d.close().catch(() => undefined)));
    }
  }
}
