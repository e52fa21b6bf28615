// Runs syncs for the app: at most one per collection, cancellable, with the engine's event
// stream batched for IPC and a notification when new files arrived or a sync failed.
import type { EventChannel, EventChannels, SyncRunState } from '../ipc/contract';
import { IpcFailure } from '../ipc/ipc-failure';
import type { SettingsStore } from '../settings/settings-store';
import { runSync as engineRunSync } from '../sync/engine';
import type { SyncEvent, SyncOptions, SyncSummary } from '../../src-shared/sync-events';
import { readHistory as engineReadHistory } from '../sync/history';
import type { ConnectionManager } from './connection';
import { createEventBatcher, DEFAULT_BATCH_INTERVAL_MS } from './event-batcher';

export type Emit = <C extends EventChannel>(channel: C, payload: EventChannels[C]) => void;

export interface SyncControllerDeps {
  connection: ConnectionManager;
  settings: SettingsStore;
  emit: Emit;
  notify(title: string, body: string): void;
  runSync?: (options: SyncOptions, onEvent: (e: SyncEvent) => void) => Promise<SyncSummary>;
  readHistory?: (dest: string) => Promise<SyncSummary[]>;
  batchIntervalMs?: number;
}

interface Running {
  kind: 'sync' | 'verify';
  startedAt: string;
  abort: AbortController;
  done: Promise<void>;
}

export class SyncController {
  private readonly running = new Map<number, Running>();
  private readonly lastSummaries = new Map<number, SyncSummary>();
  private readonly runSync;
  private readonly readHistory;

  constructor(private readonly deps: SyncControllerDeps) {
    this.runSync = deps.runSync ?? engineRunSync;
    this.readHistory = deps.readHistory ?? engineReadHistory;
  }

  isBusy(collectionId: number): boolean {
    return this.running.has(collectionId);
  }

  runningCollections(): number[] {
    return [...this.running.keys()];
  }

  /** The run state; lastSummary falls back to the newest history entry on disk. */
  async state(collectionId: number): Promise<SyncRunState> {
    const run = this.running.get(collectionId);
    let lastSummary = this.lastSummaries.get(collectionId) ?? null;
    if (!lastSummary) {
      const dataset = this.deps.settings.collectionDataset(collectionId);
      if (dataset) lastSummary = (await this.readHistory(dataset.dest).catch(() => []))[0] ?? null;
    }
    return {
      collectionId,
      running: run?.kind === 'sync',
      startedAt: run?.kind === 'sync' ? run.startedAt : null,
      lastSummary,
    };
  }

  private snapshot(collectionId: number): SyncRunState {
    const run = this.running.get(collectionId);
    return {
      collectionId,
      running: run?.kind === 'sync',
      startedAt: run?.kind === 'sync' ? run.startedAt : null,
      lastSummary: this.lastSummaries.get(collectionId) ?? null,
    };
  }

  private busyFailure(collectionId: number): IpcFailure {
    const what = this.running.get(collectionId)?.kind === 'verify' ? 'being verified' : 'already syncing';
    return new IpcFailure('busy', `Collection ${collectionId} is ${what}; wait for it to finish or cancel it.`);
  }

  /** Starts a sync in the background and returns at once; throws busy / not_connected / no_folder. */
  async start(collectionId: number, opts: { full?: boolean } = {}): Promise<SyncRunState> {
    if (this.running.has(collectionId)) throw this.busyFailure(collectionId);
    const dataset = this.deps.settings.collectionDataset(collectionId);
    if (!dataset) throw new IpcFailure('no_folder', `Choose a dataset folder for collection ${collectionId} before syncing.`);
    const credentials = await this.deps.connection.requireCredentials();
    // Re-check after the await: another start may have won the race.
    if (this.running.has(collectionId)) throw this.busyFailure(collectionId);

    const settings = this.deps.settings.view();
    const abort = new AbortController();
    const options: SyncOptions = {
      baseUrl: credentials.baseUrl,
      apiKey: credentials.apiKey,
      collectionId,
      dest: dataset.dest,
      concurrency: settings.concurrency,
      excludeGold: settings.excludeGold,
      full: opts.full ?? false,
      signal: abort.signal,
    };
    if (dataset.consentsDir) options.consentsDir = dataset.consentsDir;

    const run: Running = { kind: 'sync', startedAt: new Date().toISOString(), abort, done: Promise.resolve() };
    this.running.set(collectionId, run);
    run.done = this.execute(collectionId, options);
    const state = this.snapshot(collectionId);
    this.deps.emit('sync:state', state);
    return state;
  }

  private async execute(collectionId: number, options: SyncOptions): Promise<void> {
    const batcher = createEventBatcher((events) => this.deps.emit('sync:events', { collectionId, events }), this.deps.batchIntervalMs ?? DEFAULT_BATCH_INTERVAL_MS);
    let title = `collection ${collectionId}`;
    try {
      const summary = await this.runSync(options, (event) => {
        if (event.type === 'collection') title = `"${event.title}"`;
        batcher.push(event);
      });
      batcher.flush();
      this.lastSummaries.set(collectionId, summary);
      this.notifyOutcome(summary, title);
    } catch (e) {
      // runSync resolves for every expected failure; reaching here is a bug in the engine.
      batcher.flush();
      console.error(`Sync of collection ${collectionId} crashed`, e);
      this.deps.emit('notice', { level: 'error', message: `The sync of ${title} stopped unexpectedly; see the log for details.` });
      this.deps.notify('Sync failed', `The sync of ${title} stopped unexpectedly.`);
    } finally {
      this.running.delete(collectionId);
      this.deps.emit('sync:state', this.snapshot(collectionId));
    }
  }

  private notifyOutcome(summary: SyncSummary, title: string): void {
    if (summary.filesDownloaded > 0) {
      const files = summary.filesDownloaded === 1 ? '1 new file' : `${summary.filesDownloaded} new files`;
      this.deps.notify('New files synced', `${files} in ${title}.`);
    }
    if (summary.cancelled) return;
    if (summary.fatal) {
      this.deps.notify('Sync failed', `${title}: ${summary.fatal.message}`);
    } else if (summary.exitCode !== 0) {
      this.deps.notify('Sync finished with failures', `${title}: ${summary.filesFailed} file(s) and ${summary.setsFailed} set(s) failed; they are retried next time.`);
    }
  }

  /** Aborts the running sync and waits for it to settle; partial downloads stay for resume. */
  async cancel(collectionId: number): Promise<SyncRunState> {
    const run = this.running.get(collectionId);
    if (run?.kind === 'sync') {
      run.abort.abort();
      await run.done;
    }
    return this.snapshot(collectionId);
  }

  /** Runs `work` (e.g. verify) while no sync of the collection may start; busy if one runs. */
  async exclusive<T>(collectionId: number, work: () => Promise<T>): Promise<T> {
    if (this.running.has(collectionId)) throw this.busyFailure(collectionId);
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    this.running.set(collectionId, { kind: 'verify', startedAt: new Date().toISOString(), abort: new AbortController(), done });
    try {
      return await work();
    } finally {
      this.running.delete(collectionId);
      release();
    }
  }

  /** On quit or disconnect: cancel every sync and wait until all have settled. */
  async cancelAll(): Promise<void> {
    const runs = [...this.running.values()];
    for (const run of runs) if (run.kind === 'sync') run.abort.abort();
    await Promise.all(runs.map((r) => r.done));
  }
}
