// The one IPC contract between the main process and the window: every channel's argument
// (a zod schema main checks at runtime; its input type is what the window may send) and its
// result, the events main pushes, and the error values. Main (ipc/), the preload and the
// renderer all import it. Types and schemas only: no Node, no Electron.
//
// Every invoke channel takes one argument (an object, or nothing) and answers an IpcResult:
// failures are values, never thrown across the bridge.
import type { z } from 'zod';
// Until the API types move to src-shared, they come from src-main (types only).
import type { CollectionDetail, CollectionSummary, Me, SetsPage } from './delivery-api';
import type { SyncEvent, SyncSummary, VerifyReport } from './sync-events';
import { recruiterArgSchemas, type RecruiterInvokeChannels } from './recruiter-ipc-contract';
import { apiKeySchema, args, baseUrlSchema, bool, integer, matching, noArgument, text } from './schema-kit';
import type { SecretStoreKind } from './secret-store-kind';
import { datasetSetsArgSchema, revealArgSchema, type DatasetSetsPage, type RevealResult } from './dataset-sets';
import { bucketLocationSchema, bucketSecretSchema, subsetListSchema, settingsPatchSchema, type CollectionDatasetSettings, type SettingsView } from './settings';

export type { CollectionDatasetSettings, DatasetSubset, SettingsPatch, SettingsView, Account } from './settings';

export type { SecretStoreKind };
export type { DatasetSetFile, DatasetSetParticipant, DatasetSetRow, DatasetSetsPage, DatasetSetsQuery, FileMediaCheck, RevealResult } from './dataset-sets';

export type IpcErrorKind =
  | 'invalid_argument' // the window sent something the contract does not allow
  | 'not_connected' // no key stored for the account yet
  | 'auth' // 401 from the service
  | 'forbidden'
  | 'not_found'
  | 'validation' // 422 from the recruiter API, with fieldErrors
  | 'network' // unreachable host, reset, timeout
  | 'server' // 5xx after retries
  | 'malformed' // the service answered something outside the contract
  | 'base_url' // not https and not loopback, or not a URL
  | 'busy' // e.g. a sync of this collection is already running
  | 'no_folder' // no dataset folder chosen for the collection
  | 'keychain' // the secret store failed
  | 'cancelled' // the user stopped it (e.g. a verify)
  | 'internal';

export interface IpcError {
  kind: IpcErrorKind;
  message: string;
  fieldErrors?: Record<string, string[]>;
}

export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: IpcError };

/** What the window may know about the connection: never the key itself, only what /me says about it. */
export interface ConnectionInfo {
  /** The account (base URL + client) this connection uses; folders and history are kept per account. */
  accountId: string;
  baseUrl: string;
  client: Me['client'];
  apiKey: Me['api_key'];
  secretStore: SecretStoreKind;
  /** E.g. "The OS keychain is unavailable: the key is kept in memory until you quit." */
  secretStoreWarning?: string;
}

export interface CollectionListItem extends CollectionSummary {
  dest: string | null;
  /** Accepted sets, from the collection's detail; null when the detail could not be read. */
  acceptedSets: number | null;
  /** What the folder's manifest.csv lists: null without a folder, before its first sync, or with an unreadable manifest. */
  onDisk: { sets: number; bytes: number } | null;
  lastSync: Pick<SyncSummary, 'finishedAt' | 'exitCode' | 'filesDownloaded' | 'filesFailed' | 'cancelled'> | null;
}

export interface SyncRunState {
  accountId: string;
  collectionId: number;
  running: boolean;
  startedAt: string | null;
  /** The running sync is held (sync:pause, or waiting for the low-space question): connections and partial files are kept. */
  paused: boolean;
  /**
   * Set while the sync is held because the bytes it still has to download exceed the free space
   * on the dataset's disk; sync:resume answers "download anyway", sync:cancel "stop".
   */
  lowSpace: { bytesToDownload: number; freeBytes: number } | null;
  /** A verify of the dataset runs: no sync of it may start. */
  verifying: boolean;
  lastSummary: SyncSummary | null;
}

/** How far a verify is (at most 4 a second, and a last one when it ends). */
export interface VerifyProgress {
  accountId: string;
  collectionId: number;
  filesChecked: number;
  filesTotal: number;
  /** Sizes (from the manifest) of the files checked so far, missing ones included. */
  bytesChecked: number;
  bytesTotal: number;
  /** Bytes read and hashed per second since the verify started. */
  bytesPerSecond: number;
}

/** One file of the last run as the Files table lists it when no run has been watched since the app started. */
export interface DatasetFileRow {
  setId: number;
  path: string;
  sizeBytes: number;
  state: 'verified' | 'up_to_date' | 'failed';
  reason?: string;
  /** A failed row that is the last Verify's finding on disk, not a download that failed. */
  damage?: 'missing' | 'changed';
}

/** What the last sync changed, per set. */
export interface DatasetChanges {
  at: string;
  newSets: number[];
  editedSets: number[];
  /** Sets the service no longer serves as accepted (seen by a full rescan). */
  leftAccepted: number[];
}

/** The answer of the bucket form's Test button. */
export interface BucketTestResult {
  ok: boolean;
  /** What was checked or what failed, naming the endpoint and bucket; never a secret. */
  message: string;
}

/** A collection's dataset on disk (dataset-card.ts in main). */
export interface LastVerified {
  at: string;
  ok: boolean;
  missing?: number;
  changed?: number;
  extra?: number;
  /** Set when a repair fixed what this verify found (its downloads are hash-verified). */
  repairedAt?: string;
}

/** A row of a folder's history: a sync, a repair (a sync of damaged files), or a verify. */
export type HistoryEntry = (SyncSummary & { kind: 'sync' | 'repair' }) | VerifyRun;

export interface VerifyRun {
  kind: 'verify';
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  filesChecked: number;
  ok: number;
  missing: number;
  changed: number;
  extra: number;
  bytesHashed: number;
}

export interface DatasetCard {
  dest: string;
  consentsDir: string;
  /** From the engine's records (sync/state/queries.ts); null when they are unreadable. */
  filesOnDisk: number | null;
  bytesOnDisk: number | null;
  /** Sets with verified files in the engine's records; null when they are unreadable. */
  setsOnDisk: number | null;
  /** Free space on the folder's disk; null when it cannot be read. */
  freeBytes: number | null;
  /**
   * The last verify (or a repair, which verifies and fetches again what was damaged). Counts are
   * absent in notes written before they were kept. `beforeSync`: a sync ran since (it re-checks
   * sizes and dates, not hashes), so the problems found may be fixed: verify again to know.
   */
  lastVerified: (LastVerified & { beforeSync?: boolean }) | null;
  lastChanges: DatasetChanges | null;
  /** The last run's failed, then downloaded, then up-to-date files; at most 2000. */
  lastRunFiles: DatasetFileRow[];
  lastRunFilesTruncated: boolean;
  /** Whose word the rows are: the last run's, or a verify's that came after it (every intact file verified). */
  lastRunFilesFrom: 'run' | 'verify';
}

/** What left the dataset (DEST.withdrawn, a bucket's PREFIX.withdrawn): per set folder, its files and bytes. */
export interface WithdrawnData {
  /** Where it is kept: the quarantine folder's path, or the bucket's s3:// label. */
  location: string;
  sets: Array<{ name: string; objects: number; bytes: number }>;
  objects: number;
  bytes: number;
}

export const connectArgSchema = args({ apiKey: apiKeySchema, baseUrl: baseUrlSchema });

const collectionId = integer(1, Number.MAX_SAFE_INTEGER);
const collectionRef = args({ collectionId });

export const coreArgSchemas = {
  'connection:get': noArgument(),
  'connection:connect': connectArgSchema,
  'connection:forget': noArgument(),
  'accounts:switch': args({ accountId: matching(64, /^[A-Za-z0-9_-]{1,64}$/, 'an account id') }),
  'collections:list': noArgument(),
  'collections:get': collectionRef,
  'sets:list': args({
    collectionId,
    status: matching(32, /^[a-z_]{1,32}$/, 'a set status such as "accepted" or "in_review"'),
    page: integer(1, 1_000_000),
    perPage: integer(1, 200),
  }),
  'settings:get': noArgument(),
  'settings:update': settingsPatchSchema,
  'dataset:pickFolder': collectionRef,
  'dataset:showInFolder': collectionRef,
  'dataset:showConsents': collectionRef,
  'dataset:card': collectionRef,
  // The secret goes to the keychain in main; it is never sent back to the window.
  'dataset:chooseBucket': args({ collectionId, location: bucketLocationSchema, secretAccessKey: bucketSecretSchema }),
  // Without a secret, the one stored for the same endpoint, bucket and access key id is used.
  'dataset:testBucket': args({ collectionId, location: bucketLocationSchema, secretAccessKey: bucketSecretSchema.optional() }),
  // spaceConfirmed: the window already asked whether to sync although it would not fit (the run does not ask again).
  'sync:start': args({ collectionId, full: bool().optional(), spaceConfirmed: bool().optional() }),
  'sync:repair': collectionRef,
  'sync:cancel': collectionRef,
  'sync:pause': collectionRef,
  'sync:resume': collectionRef,
  'sync:state': collectionRef,
  'sync:history': collectionRef,
  'verify:run': collectionRef,
  'verify:cancel': collectionRef,
  'app:openExternal': args({ url: text(2048) }),
  'autosync:next': noArgument(),
  'sync:all': noArgument(),
  // Previews and playback (src-main/app/media): the dataset's own sets, files shown in the file manager, the media URL base.
  'dataset:sets': datasetSetsArgSchema,
  'dataset:reveal': revealArgSchema,
  'media:base': noArgument(),
  // Subsets and withdrawn sets (docs/contracts.md §1): null = all slots / every set.
  'dataset:setSubset': args({ collectionId, slots: subsetListSchema, groups: subsetListSchema }),
  'dataset:withdrawn': collectionRef,
  'dataset:purgeWithdrawn': collectionRef,
} as const satisfies { [C in keyof CoreResults]: z.ZodType };

/** What each core channel answers. Collection channels act on the active account's collections. */
export interface CoreResults {
  'connection:get': ConnectionInfo | null;
  /** Checks the key with GET /me; stores it for the account it belongs to, which becomes the active one. */
  'connection:connect': ConnectionInfo;
  /** Removes the active account's key; the account and its folders stay, so reconnecting is one paste. */
  'connection:forget': null;
  /** Makes another known account the active one; null when no key is stored for it (connect again). */
  'accounts:switch': ConnectionInfo | null;
  'collections:list': CollectionListItem[];
  'collections:get': CollectionDetail;
  /** Signer names are stripped before sets cross to the window. */
  'sets:list': SetsPage;
  'settings:get': SettingsView;
  'settings:update': SettingsView;
  /** Opens the native folder picker; resolves the chosen folder (already saved) or null. */
  'dataset:pickFolder': CollectionDatasetSettings | null;
  'dataset:showInFolder': null;
  /** Reveals the consents folder (kept beside the dataset, never inside it). */
  'dataset:showConsents': null;
  'dataset:card': DatasetCard;
  /** Checks the bucket (reachable, credentials, exists, writable), stores the secret in the keychain and the location in settings. */
  'dataset:chooseBucket': CollectionDatasetSettings;
  /** The Test button: what the bucket answered, in words (never a secret). */
  'dataset:testBucket': BucketTestResult;
  'sync:start': SyncRunState;
  /**
   * Verifies the dataset, then downloads again every missing or changed file (their sets only);
   * extra files are listed by verify and never deleted. Runs and reports like a sync.
   */
  'sync:repair': SyncRunState;
  /** Stops the running sync; partial downloads are kept and resumed by the next one. */
  'sync:cancel': SyncRunState;
  /** Holds the running sync: nothing is received, connections' state and partial files are kept; no-op when none runs. */
  'sync:pause': SyncRunState;
  /** Lets a held sync go on where it stopped (no second walk of the sets); also "download anyway" after the low-space question. */
  'sync:resume': SyncRunState;
  'sync:state': SyncRunState;
  /** Syncs, repairs and verifies of the current folder, newest first. */
  'sync:history': HistoryEntry[];
  /** Re-hashes the dataset, pushing verify:progress; fails with kind "cancelled" when verify:cancel stops it. */
  'verify:run': VerifyReport;
  /** Stops the running verify (nothing on disk changes); no-op when none runs. */
  'verify:cancel': SyncRunState;
  /** Opens an https URL in the system browser; anything else is refused. */
  'app:openExternal': null;
  /** Auto-sync's interval and next round; null when it is off. */
  'autosync:next': { minutes: number; nextAt: string } | null;
  /** Syncs every collection of the active account that has a folder, one after the other; answers their ids at once. */
  'sync:all': number[];
  /** A page of the sets in the dataset folder (verified files, participants, media check), filtered. */
  'dataset:sets': DatasetSetsPage;
  /** Shows a set's folder, or one verified file of it, in the file manager. */
  'dataset:reveal': RevealResult;
  /**
   * Where the window loads previews and videos from: `dataset-media://local/` in the app, the web
   * bridge's `/media/<token>/` in a browser. Then `<base>video|thumb/<collectionId>/<setId>/<file name>`.
   */
  'media:base': string;
  /** Remembers which slots and quota groups the dataset holds; every later sync is given them. */
  'dataset:setSubset': CollectionDatasetSettings;
  /** The sets that left the dataset and wait in its quarantine. */
  'dataset:withdrawn': WithdrawnData;
  /** Deletes the quarantine (as `purge-withdrawn` does), holding the dataset's lock; busy while a sync runs. Answers what was deleted. */
  'dataset:purgeWithdrawn': WithdrawnData;
}

type Schemas = typeof coreArgSchemas;
export type CoreInvokeChannels = { [C in keyof CoreResults]: { arg: z.input<Schemas[C]>; result: CoreResults[C] } };
/** The argument a core handler receives once checked. */
export type CoreArgs = { [C in keyof CoreResults]: z.output<Schemas[C]> };

export const invokeArgSchemas = { ...coreArgSchemas, ...recruiterArgSchemas };

export type InvokeChannels = CoreInvokeChannels & RecruiterInvokeChannels;
export type InvokeChannel = keyof InvokeChannels;

/** Main -> window pushes. Sync events arrive batched (a few messages a second), never one per chunk; a batch keeps only each file's newest state and the newest progress (app/pending-events.ts). */
export interface EventChannels {
  'sync:events': { accountId: string; collectionId: number; events: SyncEvent[] };
  'sync:state': SyncRunState;
  'verify:progress': VerifyProgress;
  /**
   * A message for the window. `accountId`: the account it is about (a sync's outcome); the
   * window shows it only while that account is active and drops it on a switch. Info notices go
   * by themselves after a few seconds; warnings and errors stay until dismissed.
   */
  'notice': { level: 'info' | 'warning' | 'error'; message: string; accountId?: string };
}
export type EventChannel = keyof EventChannels;

/** The object the preload exposes as `window.api` (and the browser test bridge imitates). */
export interface RendererApi {
  invoke<C extends InvokeChannel>(channel: C, arg: InvokeChannels[C]['arg']): Promise<IpcResult<InvokeChannels[C]['result']>>;
  on<C extends EventChannel>(channel: C, listener: (payload: EventChannels[C]) => void): () => void;
}
