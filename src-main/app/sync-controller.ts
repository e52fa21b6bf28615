// Runs syncs for the app: at most one per (account, collection), cancellable and pausable (a
// pause gate per run: connections and partial files are kept, resume goes on without walking
// the sets again), with the engine's event stream batched for IPC and a notification when new
// files arrived or a sync failed. A sync whose bytes still to download outgrow the free space
// is held and the window asks before it goes on. Collections are named by account too: two
// services may both have a collection 1. With `engineThread: 'worker'` (the app) each sync and
// repair runs in its own engine thread (engine-thread/worker-job.ts) and this thread only relays.
import type { ResourceLimits } from 'node:worker_threads';
import { consentMissingWords } from '../../src-shared/consent-words';
import type { EventChannel, EventChannels, SyncRunState } from '../../src-shared/ipc-contract';
import type { SettingsStore } from '../settings/settings-store';
import { createPauseGate, readHistory as engineReadHistory, repair as engineRunRepair, sync as engineRunSync, type ControllablePauseGate } from '../sync/engine';
import type { SyncEvent, SyncOptions, SyncSummary } from '../../src-shared/sync-events';
import { AppError } from './app-error';
import { readFreeBytes } from './dataset-card';
import { runEngineJob, type EngineRun } from './engine-job';
import type { Shortfall } from './space-check';
import { datasetHistory, type BucketLocations, type BucketRun } from './bucket-locations';
import type { ConnectionManager } from './connection';
import type { BucketLocation } from '../../src-shared/settings';
import { createEventBatcher, DEFAULT_BATCH_INTERVAL_MS } from './event-batcher';
import type { BucketRecipe } from './engine-thread/messages';
import { workerJob, type WorkerJob } from './engine-thread/worker-job';

/** What a run gets besides its options: the pause gate, and for a bucket dataset the destinations opened with its secret. */
type SyncJob = EngineRun;

/** A bucket dataset's destinations for one run: opened here (for a job in this thread), or what the engine thread opens them from. */
type RunBucket = { opened: BucketRun } | { recipe: BucketRecipe };

export type Emit = <C extends EventChannel>(channel: C, payload: EventChannels[C]) => void;

export interface SyncControllerDeps {
  connection: ConnectionManager;
  /** Bucket datasets: the destination of a run, opened with the secret from the keychain. */
  buckets?: BucketLocations;
  settings: SettingsStore;
  emit: Emit;
  notify(title: string, body: string): void;
  /**
   * Where the engine runs: 'worker' (one engine thread per run, src-main/engine-worker.ts, so this
   * thread never stalls: the app) or 'main' (this thread; the default). The seams below that
   * cannot cross threads keep a run here: runSync, runRepair, readFreeBytes, and a bucket
   * opener injected into `buckets`.
   */
  engineThread?: 'worker' | 'main';
  /** The engine thread's heap limits (Worker resourceLimits; default Node's): out of memory, the run stops, the app stays. */
  engineThreadLimits?: ResourceLimits;
  runSync?: SyncJob;
  /** Verify, then download again what is missing or changed (extra files are kept). */
  runRepair?: SyncJob;
  readHistory?: (dest: string) => Promise<SyncSummary[]>;
  /** Free space on a folder's disk (default: statfs); null when unknown, which never holds a sync. */
  readFreeBytes?: (dest: string) => Promise<number | null>;
  batchIntervalMs?: number;
}

/** One collection of one account. */
export interface CollectionRef {
  accountId: string;
  collectionId: number;
}

const keyOf = (ref: CollectionRef) => `${ref.accountId}/${ref.collectionId}`;

interface Running {
  kind: 'sync' | 'verify';
  startedAt: string;
  abort: AbortController;
  done: Promise<void>;
  /** Syncs only: what pause and resume close and open. */
  gate: ControllablePauseGate;
  /** Held because it would not fit; cleared by resume (the answer "download anyway", asked once per run). */
  lowSpace: Shortfall | null;
}

export class SyncController {
  private readonly running = new Map<string, Running>();
  private readonly lastSummaries = new Map<string, SyncSummary>();
  /** Collection titles as last listed or synced: a failure before the sync names it says it by title too. */
  private readonly titles = new Map<string, string>();
  private readonly runSync: SyncJob;
  private readonly runRepair: SyncJob;
  private readonly readHistory;
  private readonly readFreeBytes;
  /** The engine-thread jobs, when runs go to a worker thread. */
  private readonly threads: { sync: WorkerJob; repair: WorkerJob } | null;

  constructor(private readonly deps: SyncControllerDeps) {
    this.runSync = deps.runSync ?? engineRunSync;
    this.runRepair = deps.runRepair ?? ((options, onEvent, engineDeps) => engineRunRepair(options, onEvent, undefined, engineDeps));
    this.readHistory = deps.readHistory ?? engineReadHistory;
    this.readFreeBytes = deps.readFreeBytes ?? readFreeBytes;
    const seams = deps.runSync || deps.runRepair || deps.readFreeBytes;
    this.threads = deps.engineThread === 'worker' && !seams ? { sync: workerJob('sync', deps.engineThreadLimits), repair: workerJob('repair', deps.engineThreadLimits) } : null;
  }

  isBusy(ref: CollectionRef): boolean {
    return this.running.has(keyOf(ref));
  }

  runningCollections(): CollectionRef[] {
    return [...this.running.keys()].map((key) => {
      const at = key.lastIndexOf('/');
      return { accountId: key.slice(0, at), collectionId: Number(key.slice(at + 1)) };
    });
  }

  /** The run state; lastSummary falls back to the newest history entry on disk. */
  async state(ref: CollectionRef): Promise<SyncRunState> {
    const state = this.snapshot(ref);
    if (!state.lastSummary) {
      const dataset = this.deps.settings.collectionDataset(ref.accountId, ref.collectionId);
      if (dataset) state.lastSummary = (await (dataset.bucket ? datasetHistory(dataset) : this.readHistory(dataset.dest)).catch(() => []))[0] ?? null;
    }
    return state;
  }

  rememberTitle(ref: CollectionRef, title: string): void {
    this.titles.set(keyOf(ref), title);
  }

  /** How messages name the collection: its title in quotes when known, else its number. */
  titleOf(ref: CollectionRef): string {
    const title = this.titles.get(keyOf(ref));
    return title === undefined ? `collection ${ref.collectionId}` : `"${title}"`;
  }

  /** A new folder was chosen: the run kept in memory belongs to the old one. */
  forgetLastSummary(ref: CollectionRef): void {
    this.lastSummaries.delete(keyOf(ref));
  }

  private snapshot(ref: CollectionRef): SyncRunState {
    const run = this.running.get(keyOf(ref));
    return {
      accountId: ref.accountId,
      collectionId: ref.collectionId,
      running: run?.kind === 'sync',
      startedAt: run?.kind === 'sync' ? run.startedAt : null,
      paused: run?.kind === 'sync' && run.gate.paused,
      lowSpace: run?.kind === 'sync' ? run.lowSpace : null,
      verifying: run?.kind === 'verify',
      lastSummary: this.lastSummaries.get(keyOf(ref)) ?? null,
    };
  }

  private busyFailure(ref: CollectionRef): AppError {
    const what = this.running.get(keyOf(ref))?.kind === 'verify' ? 'being verified' : 'already syncing';
    return new AppError('busy', `Collection ${ref.collectionId} is ${what}; wait for it to finish or cancel it.`);
  }

  /**
   * Starts a sync (or, with `repair`, a repair: verify, then fetch again what is missing or
   * changed) in the background and returns at once; throws busy / not_connected / no_folder.
   */
  async start(ref: CollectionRef, opts: { full?: boolean; repair?: boolean; spaceConfirmed?: boolean } = {}): Promise<SyncRunState> {
    const { collectionId } = ref;
    if (this.running.has(keyOf(ref))) throw this.busyFailure(ref);
    const dataset = this.deps.settings.collectionDataset(ref.accountId, collectionId);
    if (!dataset) throw new AppError('no_folder', `Choose a dataset folder for collection ${collectionId} before syncing.`);
    const credentials = await this.deps.connection.credentialsFor(ref.accountId);
    if (!credentials) throw new AppError('not_connected', 'Not connected: enter the service address and an API key first.');
    const bucket = dataset.bucket ? await this.bucketDestination(dataset.bucket) : undefined;
    // Re-check after the await: another start may have won the race.
    if (this.running.has(keyOf(ref))) {
      await closeBucketRun(bucket);
      throw this.busyFailure(ref);
    }

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
    // The subset chosen in the window, given on every sync (absent: as the engine remembers it).
    if (dataset.subset) {
      options.slots = dataset.subset.slots;
      options.groups = dataset.subset.groups;
    }
    // Read at each start: a changed limit applies from the next sync.
    if (settings.bwlimitBytesPerSecond !== null) options.bwlimitBytesPerSecond = settings.bwlimitBytesPerSecond;

    const run = this.newRun('sync', abort);
    this.running.set(keyOf(ref), run);
    run.done = this.execute(ref, run, options, opts.repair ? 'Repair' : 'Sync', opts.spaceConfirmed === true, bucket);
    const state = this.snapshot(ref);
    this.deps.emit('sync:state', state);
    return state;
  }

  private newRun(kind: Running['kind'], abort: AbortController): Running {
    return { kind, startedAt: new Date().toISOString(), abort, done: Promise.resolve(), gate: createPauseGate(), lowSpace: null };
  }

  /** A bucket dataset's destination with its secret from the keychain for this run: for the engine thread to open, else opened here. */
  private async bucketDestination(location: BucketLocation): Promise<RunBucket> {
    if (!this.deps.buckets) throw new AppError('refused', 'This build of the app cannot sync into object storage.');
    const recipe = this.threads ? await this.deps.buckets.recipeForThread(location) : null;
    return recipe ? { recipe } : { opened: await this.deps.buckets.open(location) };
  }

  private async execute(ref: CollectionRef, run: Running, options: SyncOptions, what: RunName, spaceConfirmed: boolean, bucket?: RunBucket): Promise<void> {
    const { accountId, collectionId } = ref;
    const batcher = createEventBatcher((events) => this.deps.emit('sync:events', { accountId, collectionId, events }), this.deps.batchIntervalMs ?? DEFAULT_BATCH_INTERVAL_MS);
    let title = this.titleOf(ref);
    // A bucket has no disk to fill and its card is not shown: only a folder is asked.
    const local = bucket === undefined;
    const watchSpace = local && !spaceConfirmed;
    const onHeld = (shortfall: Shortfall) => this.holdForSpace(ref, run, shortfall, title);
    const onEvent = (event: SyncEvent) => {
      if (event.type === 'collection') {
        this.rememberTitle(ref, event.title);
        title = this.titleOf(ref);
      }
      batcher.push(event);
    };
    try {
      let summary: SyncSummary;
      if (this.threads && !(bucket && 'opened' in bucket)) {
        // The engine thread watches the free space itself: events reach this thread too late to hold its queue.
        const job = what === 'Repair' ? this.threads.repair : this.threads.sync;
        // It also writes the folder's notes (recordRunNotes): their query over the run's sets would stall this thread.
        summary = await job(options, onEvent, { gate: run.gate, recordNotes: local, ...(bucket ? { bucket: bucket.recipe } : {}), ...(watchSpace ? { onHeld } : {}) });
      } else {
        summary = await runEngineJob({
          kind: what === 'Repair' ? 'repair' : 'sync',
          run: what === 'Repair' ? this.runRepair : this.runSync,
          options,
          gate: run.gate,
          destinations: bucket && 'opened' in bucket ? bucket.opened : undefined,
          onEvent,
          watchSpace: watchSpace ? { readFreeBytes: () => this.readFreeBytes(options.dest), onHeld } : undefined,
          recordNotes: local,
        });
      }
      batcher.flush();
      this.lastSummaries.set(keyOf(ref), summary);
      this.notifyOutcome(accountId, summary, title, what);
    } catch (e) {
      // runSync resolves for every expected failure; reaching here is a bug in the engine (or its thread died).
      batcher.flush();
      console.error(`Sync of collection ${collectionId} crashed`, e);
      this.deps.emit('notice', { level: 'error', message: `The sync of ${title} stopped unexpectedly; see the log for details.`, accountId });
      this.deps.notify('Sync failed', `The sync of ${title} stopped unexpectedly.`);
    } finally {
      await closeBucketRun(bucket); // injected destinations are the caller's to close
      this.running.delete(keyOf(ref));
      this.deps.emit('sync:state', this.snapshot(ref));
    }
  }

  /** The run's gate is closed already (SpaceHold, inside the engine's event: the queue did not start the file that did not fit). */
  private holdForSpace(ref: CollectionRef, run: Running, shortfall: Shortfall, title: string): void {
    run.lowSpace = shortfall;
    this.deps.emit('sync:state', this.snapshot(ref));
    this.deps.notify('Sync paused: not enough disk space', `The sync of ${title} needs more space than is free; open it to go on or cancel.`);
  }

  private notifyOutcome(accountId: string, summary: SyncSummary, title: string, what: RunName): void {
    this.deps.emit('notice', { ...inAppMessage(summary, title, what), accountId });
    if (summary.filesDownloaded > 0) {
      const files = summary.filesDownloaded === 1 ? '1 new file' : `${summary.filesDownloaded} new files`;
      this.deps.notify('New files synced', `${files} in ${title}.`);
    }
    if (summary.cancelled) return;
    if (summary.fatal) {
      this.deps.notify(`${what} failed`, `${title}: ${summary.fatal.message}`);
    } else if (summary.exitCode !== 0) {
      this.deps.notify(`${what} finished with failures`, `${title}: ${summary.filesFailed} file(s) and ${summary.setsFailed} set(s) failed; they are retried next time.`);
    }
  }

  /** Resolves when the collection's current run (if any) has settled. */
  settled(ref: CollectionRef): Promise<void> {
    return this.running.get(keyOf(ref))?.done ?? Promise.resolve();
  }

  /** Holds the running sync (nothing is received; partial files and the walk's place are kept). */
  pause(ref: CollectionRef): SyncRunState {
    const run = this.running.get(keyOf(ref));
    if (run?.kind === 'sync' && !run.gate.paused) {
      run.gate.pause();
      this.deps.emit('sync:state', this.snapshot(ref));
    }
    return this.snapshot(ref);
  }

  /** Lets a held sync go on; after the low-space question this is the answer "download anyway". */
  resume(ref: CollectionRef): SyncRunState {
    const run = this.running.get(keyOf(ref));
    if (run?.kind === 'sync' && run.gate.paused) {
      run.lowSpace = null;
      run.gate.resume();
      this.deps.emit('sync:state', this.snapshot(ref));
    }
    return this.snapshot(ref);
  }

  /** Aborts the running sync and waits for it to settle; partial downloads stay for resume. */
  cancel(ref: CollectionRef): Promise<SyncRunState> {
    return this.stop(ref, 'sync');
  }

  /** Stops the running verify (it only reads: nothing to undo) and waits for it to settle. */
  cancelVerify(ref: CollectionRef): Promise<SyncRunState> {
    return this.stop(ref, 'verify');
  }

  private async stop(ref: CollectionRef, kind: Running['kind']): Promise<SyncRunState> {
    const run = this.running.get(keyOf(ref));
    if (run?.kind === kind) {
      run.abort.abort();
      await run.done;
    }
    return this.snapshot(ref);
  }

  /** Runs `work` (a verify) while no sync of the collection may start; busy if one runs. `signal`: cancelVerify. */
  async exclusive<T>(ref: CollectionRef, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.running.has(keyOf(ref))) throw this.busyFailure(ref);
    let release!: () => void;
    const run = this.newRun('verify', new AbortController());
    run.done = new Promise<void>((resolve) => (release = resolve));
    this.running.set(keyOf(ref), run);
    this.deps.emit('sync:state', this.snapshot(ref));
    try {
      return await work(run.abort.signal);
    } finally {
      this.running.delete(keyOf(ref));
      release();
      this.deps.emit('sync:state', this.snapshot(ref));
    }
  }


  /** On quit, or when an account's key is forgotten: cancel its syncs and verifies (all without an account) and wait until they have settled. */
  async cancelAll(accountId?: string): Promise<void> {
    const prefix = accountId === undefined ? '' : `${accountId}/`;
    const runs = [...this.running.entries()].filter(([key]) => key.startsWith(prefix)).map(([, run]) => run);
    for (const run of runs) run.abort.abort();
    await Promise.all(runs.map((r) => r.done));
  }
}

/** The message in the window when a run ends: what it did, in counts. */
/** What a run is called in messages: a repair (sync:repair) is a sync of chosen files. */
type RunName = 'Sync' | 'Repair';

export function inAppMessage(summary: SyncSummary, title: string, what: RunName = 'Sync'): EventChannels['notice'] {
  if (summary.cancelled) return { level: 'info', message: `${what} of ${title} cancelled; partial downloads are kept.` };
  if (summary.fatal) return { level: 'error', message: `${what} of ${title} failed: ${summary.fatal.message}` };
  const counts = `${summary.filesDownloaded} downloaded, ${summary.filesUpToDate} up to date, ${summary.filesFailed} failed`;
  const consent = consentMissingWords(summary.consentMissingSets);
  const tail = consent ? ` ${consent}.` : '';
  return summary.exitCode === 0
    ? { level: consent ? 'warning' : 'info', message: `${what} of ${title} finished: ${counts}.${tail}` }
    : { level: 'warning', message: `${what} of ${title} finished with failures: ${counts}.${tail}` };
}

/** Closes the destinations opened here; the engine thread closes its own. */
async function closeBucketRun(bucket: RunBucket | undefined): Promise<void> {
  if (!bucket || !('opened' in bucket)) return;
  const run = bucket.opened;
  await Promise.all([run.destination.close(), run.consents.close(), run.withdrawn.close()].map((p) => p.catch(() => undefined)));
}
