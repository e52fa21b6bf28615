// The one IPC contract between the main process and the renderer. Main (handlers), the
// preload (which exposes exactly these channels) and the renderer all import it. Types only:
// importing this file pulls in no code with side effects.
//
// Every invoke channel takes one argument (an object, or undefined) that main validates at
// runtime, and answers an IpcResult: failures are values, never thrown across the bridge.

import type { CollectionDetail, CollectionSummary, Me, SetsPage } from '../../src-shared/delivery-api';
import type { SyncEvent, SyncSummary, VerifyReport } from '../sync/events';
import type { RecruiterInvokeChannels } from './recruiter-contract';

export type SecretStoreKind = 'keychain' | 'safe-storage' | 'memory';

export type IpcErrorKind =
  | 'invalid_argument' // the renderer sent something the contract does not allow
  | 'not_connected' // no key stored for the base URL yet
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
  | 'internal';

export interface IpcError {
  kind: IpcErrorKind;
  message: string;
  fieldErrors?: Record<string, string[]>;
}

export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: IpcError };

/** What the UI may know about the connection: never the key itself, only what /me says about it. */
export interface ConnectionInfo {
  baseUrl: string;
  client: Me['client'];
  apiKey: Me['api_key'];
  secretStore: SecretStoreKind;
  /** E.g. "The OS keychain is unavailable: the key is kept in memory until you quit." */
  secretStoreWarning?: string;
}

export interface CollectionListItem extends CollectionSummary {
  dest: string | null;
  lastSync: Pick<SyncSummary, 'finishedAt' | 'exitCode' | 'filesDownloaded' | 'filesFailed' | 'cancelled'> | null;
}

export interface CollectionDatasetSettings {
  dest: string;
  consentsDir?: string;
}

export interface SettingsView {
  baseUrl: string | null;
  concurrency: number; // 1..16
  autoSyncMinutes: number | null; // null = off, else 15..60
  excludeGold: boolean;
  collections: Record<string, CollectionDatasetSettings>; // keyed by collection id
}

export type SettingsPatch = Partial<Pick<SettingsView, 'concurrency' | 'autoSyncMinutes' | 'excludeGold'>>;

export interface SyncRunState {
  collectionId: number;
  running: boolean;
  startedAt: string | null;
  lastSummary: SyncSummary | null;
}

export interface CoreInvokeChannels {
  'connection:get': { arg: undefined; result: ConnectionInfo | null };
  'connection:connect': { arg: { baseUrl: string; apiKey: string }; result: ConnectionInfo };
  'connection:forget': { arg: undefined; result: null };
  'collections:list': { arg: undefined; result: CollectionListItem[] };
  'collections:get': { arg: { collectionId: number }; result: CollectionDetail };
  /** Signer names are stripped before sets cross to the renderer. */
  'sets:list': { arg: { collectionId: number; status: string; page: number; perPage: number }; result: SetsPage };
  'settings:get': { arg: undefined; result: SettingsView };
  'settings:update': { arg: SettingsPatch; result: SettingsView };
  /** Opens the native folder picker; resolves the chosen folder (already saved) or null. */
  'dataset:pickFolder': { arg: { collectionId: number }; result: CollectionDatasetSettings | null };
  'dataset:showInFolder': { arg: { collectionId: number }; result: null };
  'sync:start': { arg: { collectionId: number; full?: boolean }; result: SyncRunState };
  /** Stops the running sync; partial downloads are kept and resumed by the next one. */
  'sync:cancel': { arg: { collectionId: number }; result: SyncRunState };
  'sync:state': { arg: { collectionId: number }; result: SyncRunState };
  'sync:history': { arg: { collectionId: number }; result: SyncSummary[] };
  'verify:run': { arg: { collectionId: number }; result: VerifyReport };
  /** Opens an https URL in the system browser; anything else is refused. */
  'app:openExternal': { arg: { url: string }; result: null };
}

export type InvokeChannels = CoreInvokeChannels & RecruiterInvokeChannels;
export type InvokeChannel = keyof InvokeChannels;

/** Main -> renderer pushes. Sync events arrive batched (a few messages a second), never one per chunk. */
export interface EventChannels {
  'sync:events': { collectionId: number; events: SyncEvent[] };
  'sync:state': SyncRunState;
  'notice': { level: 'info' | 'warning' | 'error'; message: string };
}
export type EventChannel = keyof EventChannels;

/** The object the preload exposes as `window.api` (and the browser test bridge imitates). */
export interface RendererApi {
  invoke<C extends InvokeChannel>(channel: C, arg: InvokeChannels[C]['arg']): Promise<IpcResult<InvokeChannels[C]['result']>>;
  on<C extends EventChannel>(channel: C, listener: (payload: EventChannels[C]) => void): () => void;
}
