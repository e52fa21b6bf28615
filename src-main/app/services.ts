// Builds the main process's app layer once: the delivery and recruiter connections, the sync
// controller, the datasets and the scheduler. The IPC layer (ipc/services.ts) puts handlers
// over these; the Electron bootstrap and the browser test bridge both use that, so they run
// exactly the same code below the transport.
import type { ResourceLimits } from 'node:worker_threads';
import type { SecretStore } from '../secrets/secret-store';
import type { SettingsStore } from '../settings/settings-store';
import { BucketLocations, type OpenBucket } from './bucket-locations';
import { ConnectionManager } from './connection';
import { Datasets } from './datasets';
import { DatasetMedia } from './media/dataset-media';
import { RecruiterConnection } from './recruiter-connection';
import { Scheduler } from './scheduler';
import { SyncController, type Emit } from './sync-controller';
import { SyncAll } from './sync-all';

export interface AppServicesDeps {
  secrets: SecretStore;
  /** From chooseSecretStore, shown in the connection info when keys are less protected. */
  secretStoreWarning?: string;
  settings: SettingsStore;
  notify(title: string, body: string): void;
  emit: Emit;
  /**
   * Where syncs and repairs run: 'worker' (default: an engine thread per run, so the main
   * process never stalls, issue #21) or 'main'. The readFreeBytes and openBucket seams keep their runs on the main thread.
   */
  engineThread?: 'worker' | 'main';
  /** The engine thread's heap limits (Worker resourceLimits); default Node's. */
  engineThreadLimits?: ResourceLimits;
  /** Batch interval for sync:events, default 250 ms. */
  batchIntervalMs?: number;
  /** Free space on a dataset folder's disk (default: statfs); a test seam for the low-space question. */
  readFreeBytes?: (dest: string) => Promise<number | null>;
  /** The engine's bucket destination; without it the app offers folders only. */
  openBucket?: OpenBucket;
  /** Reveals a path in the file manager (Electron's shell.showItemInFolder). */
  showItemInFolder(path: string): void;
  /** False where there is no file manager (the web bridge): "Show in folder" answers the path only. Default true. */
  canShowInFolder?: boolean;
  /** The media URLs' path prefix (the web bridge's '/media/<token>/'); default '/'. */
  mediaPathPrefix?: string;
}

export interface AppServices {
  settings: SettingsStore;
  connection: ConnectionManager;
  recruiter: RecruiterConnection;
  syncs: SyncController;
  datasets: Datasets;
  buckets: BucketLocations;
  scheduler: Scheduler;
  syncAll: SyncAll;
  /** Previews, playback and "Show in folder" of the datasets' verified files. */
  media: DatasetMedia;
  /** Cancels running syncs, waits for them to settle (partials stay), stops the timer. */
  shutdown(): Promise<void>;
}

export function createAppServices(deps: AppServicesDeps): AppServices {
  const warning = deps.secretStoreWarning ? { secretStoreWarning: deps.secretStoreWarning } : {};
  const connection = new ConnectionManager({ secrets: deps.secrets, settings: deps.settings, ...warning });
  const recruiter = new RecruiterConnection({ secrets: deps.secrets, settings: deps.settings, ...warning });
  const buckets = new BucketLocations({ secrets: deps.secrets, ...(deps.openBucket ? { openBucket: deps.openBucket } : {}) });
  const syncs = new SyncController({
    connection,
    buckets,
    settings: deps.settings,
    emit: deps.emit,
    notify: deps.notify,
    engineThread: deps.engineThread ?? 'worker',
    ...(deps.engineThreadLimits ? { engineThreadLimits: deps.engineThreadLimits } : {}),
    ...(deps.batchIntervalMs === undefined ? {} : { batchIntervalMs: deps.batchIntervalMs }),
    ...(deps.readFreeBytes ? { readFreeBytes: deps.readFreeBytes } : {}),
  });
  const datasets = new Datasets({ settings: deps.settings, connection, syncs, buckets, emit: deps.emit });
  const scheduler = new Scheduler({ settings: deps.settings, connection, syncs, emit: deps.emit });
  const syncAll = new SyncAll({ settings: deps.settings, syncs, emit: deps.emit });
  const media = new DatasetMedia({
    folder: (collectionId) => datasets.folder(collectionId),
    showItemInFolder: deps.showItemInFolder,
    canShowInFolder: deps.canShowInFolder ?? true,
    onNotice: (message) => deps.emit('notice', { level: 'warning', message }),
    ...(deps.mediaPathPrefix ? { pathPrefix: deps.mediaPathPrefix } : {}),
  });
  let closing: Promise<void> | null = null;
  return {
    settings: deps.settings,
    connection,
    recruiter,
    syncs,
    datasets,
    buckets,
    scheduler,
    syncAll,
    media,
    shutdown: () =>
      (closing ??= (async () => {
        scheduler.stop();
        syncAll.stop();
        await syncs.cancelAll();
        await Promise.all([connection.close(), recruiter.close()]);
      })()),
  };
}
