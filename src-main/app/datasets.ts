// The active account's collections with their dataset folders: what the window lists, where a
// collection syncs to, its history and verification. Folders are kept per (account,
// collection), so connecting to another service whose collection has the same id never
// offers or reuses this one's folder or watermark.
import type { SetsPage } from '../../src-shared/delivery-api';
import type { SettingsStore } from '../settings/settings-store';
import { readHistory } from '../sync/history';
import { verifyDataset } from '../sync/verify';
import type { SyncSummary, VerifyReport } from '../../src-shared/sync-events';
import type { VerifyProgress } from '../../src-shared/ipc-contract';
import type { CollectionDatasetSettings, CollectionListItem, DatasetCard } from '../../src-shared/ipc-contract';
import { readDatasetCard, recordVerified } from './dataset-card';
import { AppError } from './app-error';
import type { BucketLocations } from './bucket-locations';
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

  async list(): Promise<CollectionListItem[]> {
    const client = await this.deps.connection.deliveryClient();
    const accountId = this.deps.connection.activeAccountId();
    const collections = await client.listCollections();
    return Promise.all(
      collections.map(async (c): Promise<CollectionListItem> => {
        const dataset = this.deps.settings.collectionDataset(accountId, c.id);
        const last = dataset ? ((await readHistory(dataset.dest).catch(() => []))[0] ?? null) : null;
        return {
          ...c,
          dest: dataset?.dest ?? null,
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

  /**
   * A new folder means a new dataset: a consents folder chosen for the old one is dropped and
   * the engine's default (a sibling of the new folder) applies.
   */
  choose(collectionId: number, dest: string): CollectionDatasetSettings {
    const dataset = { dest };
    const accountId = this.deps.connection.activeAccountId();
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

  history(collectionId: number): Promise<SyncSummary[]> {
    return readHistory(this.folder(collectionId).dest);
  }

  /**
   * Re-hashes the dataset while no sync of it may start, pushing verify:progress; the card
   * remembers when. Cancelled (syncs.cancelVerify): AppError 'cancelled', nothing recorded.
   */
  verify(collectionId: number): Promise<VerifyReport> {
    const { dest } = this.folder(collectionId);
    const ref = this.ref(collectionId);
    return this.deps.syncs.exclusive(ref, async (signal) => {
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
        report = await verifyDataset(dest, onProgress, signal);
      } catch (e) {
        if (signal.aborted) throw new AppError('cancelled', 'Verify cancelled; nothing on disk was changed.');
        throw e;
      }
      await recordVerified(dest, report.missing.length === 0 && report.changed.length === 0);
      return report;
    });
  }

  async card(collectionId: number): Promise<DatasetCard> {
    const dataset = this.folder(collectionId);
    const { lastSummary } = await this.deps.syncs.state(this.ref(collectionId));
    return readDatasetCard(dataset, lastSummary);
  }
}
