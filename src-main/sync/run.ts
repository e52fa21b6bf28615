// One sync of one collection into DEST, from start to summary (docs/contracts.md §1 and §4): the
// run's lifecycle and what it keeps on the way. It opens the destinations and takes the folder
// (run-open.ts: lock, state), walks the accepted sets page by page feeding a bounded queue and
// fetches the pending sets again (run-walk.ts), then writes the dataset index and the state and
// says how it ended (run-finish.ts). What each set needs is planned in set-plan.ts; counting is
// accounting.ts; exit codes are outcome.ts.
import { setMaxListeners } from 'node:events';
import { createDeliveryClient, type DeliveryClient } from '../api/delivery-client';
import type { SetsPage } from '../../src-shared/delivery-api';
import type { SyncEvent, SyncOptions, SyncSummary } from '../../src-shared/sync-events';
import { Accounting } from './accounting';
import type { Destination, DestinationLock } from './destination/destination';
import { changesSubset, resolveSubset } from './subset';
import { warmIndexExtension } from './dataset-index';
import { checkRecordedFiles, type DiskCheck } from './disk-check';
import { bindingConflict, type FolderOwner } from './folder-binding';
import { fatalAnywhere, isAbortError, type Fatal } from './outcome';
import type { ProgressTracker } from './progress';
import type { RunContext } from './run-context';
import { fetchCollection, openDestinations, openFolder, openListing } from './run-open';
import { finish } from './run-finish';
import type { RunState } from './run-state';
import { syncAll } from './run-walk';
import { untrustFiles } from './repair-plan';
import { peekHead, peekRecordsMatch } from './state/published-head';
import type { StagePipeline } from './stages/pipeline';
import { createStages } from './stages/registry';
import { InFlight } from './in-flight';
import { ConfigError, resolveOptions, type RunSettings } from './sync-options';
import { connectionsFor } from './sync-pools';
import { updatedSinceFor } from './walk';
import type { RunDeps, RunFields } from './run-fields';

export type { RunDeps } from './run-fields';


/**
 * One run. Its parts are functions of the run in their own files (run-open.ts, run-walk.ts,
 * run-finish.ts): they read and fill the fields below, so those are not private; nothing outside
 * the run touches them (run-sync.ts only calls run()).
 */
export class SyncRun implements RunFields {
  readonly startedAt: number;
  private readonly controller = new AbortController();
  readonly accounting: Accounting;
  readonly seen = new Set<number>();
  fatal: Fatal | undefined;
  settings: RunSettings | undefined;
  /** Where the dataset and the consent records go, once opened (run()). */
  dest: Destination | undefined;
  consents: Destination | undefined;
  withdrawn: Destination | undefined;
  /** Left-accepted scan (withdraw.ts), started once the walk listed every page. */
  leftAccepted: Promise<Map<number, string>> | undefined;
  state: RunState | undefined;
  client: DeliveryClient | undefined;
  maxUpdatedAt: string | null = null;
  /** Sets whose folder a transfer found leading outside DEST (RunContext.escaped). */
  readonly escaped = new Set<number>();
  /** What the sets started and did not wait for (in-flight.ts): ended before the index is written. */
  readonly inFlight = new InFlight();
  /** The sets a repair syncs (SyncOptions.repair), instead of the walk. */
  repairSets: number[] | undefined;
  /** A page record without a usable id was rejected: the walk cannot count as complete. */
  unidentifiedReject = false;
  diskCheck: DiskCheck | undefined;
  /** Progress events, from the collection's detail (setsTotal known) to the end of finish (run-finish.ts). */
  progress: ProgressTracker | undefined;
  /** The stages every verified file goes through (stages/), once the state is loaded. */
  stages: StagePipeline | undefined;
  /**
   * A new folder's owner, bound only once the service answered for its collection (run-open.ts bindFolder): a
   * first sync stopped by a wrong key, a wrong collection or an unreachable service leaves the
   * folder free for the right one, and writes no dataset files into it.
   */
  ownerToBind: FolderOwner | undefined;

  constructor(
    readonly options: SyncOptions,
    private readonly onEvent: (e: SyncEvent) => void,
    readonly deps: RunDeps,
  ) {
    this.startedAt = deps.clock.now();
    // Every request in flight listens to the run's signal (sync-pools.ts: dozens of small files and consents at once).
    setMaxListeners(256, this.controller.signal);
    this.accounting = new Accounting(deps.limiter, deps.gate, this.controller.signal, deps.clock);
    const outer = options.signal;
    if (outer) {
      if (outer.aborted) this.controller.abort();
      else outer.addEventListener('abort', () => this.controller.abort(), { once: true });
    }
  }

  emit(e: SyncEvent): void {
    try {
      this.onEvent(e);
    } catch {
      // A failing listener must not break the sync.
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  setFatal(f: Fatal): void {
    this.fatal ??= f;
    this.controller.abort();
  }

  /** See RunContext.endsSync. */
  endsSync(e: unknown): boolean {
    const fatal = fatalAnywhere(e);
    if (fatal) this.setFatal(fatal);
    return fatal !== undefined || isAbortError(e) || this.signal.aborted;
  }

  async run(): Promise<SyncSummary> {
    try {
      return await this.runOpened();
    } finally {
      // Destinations this run opened itself; injected ones are the caller's.
      if (!this.deps.destination) await this.dest?.close().catch(() => undefined);
      if (!this.deps.consents) await this.consents?.close().catch(() => undefined);
      if (!this.deps.withdrawn) await this.withdrawn?.close().catch(() => undefined);
    }
  }

  private async runOpened(): Promise<SyncSummary> {
    let lock: DestinationLock | undefined;
    let walkCompleted = false;
    try {
      let v: RunSettings;
      let opened: { dest: Destination; consents: Destination; withdrawn: Destination };
      try {
        v = resolveOptions(this.options);
        opened = openDestinations(this, v);
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        this.fatal = { kind: 'config', message: e.message };
        return await finish(this, false);
      }
      this.settings = v;
      const { dest, consents } = opened;
      this.dest = dest;
      this.consents = consents;
      this.withdrawn = opened.withdrawn;
      const full = this.options.full === true;
      const owner = { baseUrl: v.baseUrl, collectionId: this.options.collectionId };
      // The destination's state as it is now, without the lock or creating anything (a folder
      // that does not exist yet has no owner). One that belongs elsewhere stops here: nothing is
      // written or asked. The run checks again once it holds the lock.
      const peek = peekHead(dest);
      const peeked = peek instanceof Promise ? await peek : peek;
      const conflict = peeked ? bindingConflict(dest.label, peeked, owner) : null;
      if (conflict) {
        this.fatal = { kind: 'config', message: conflict };
        return await finish(this, false);
      }
      this.client =
        this.deps.client ??
        createDeliveryClient({
          baseUrl: v.baseUrl,
          apiKey: this.options.apiKey,
          connections: connectionsFor(v.concurrency, v.baseUrl.startsWith('https:')),
          headersTimeoutMs: Math.max(v.stallMs, 1000),
          bodyTimeoutMs: v.stallMs,
        });
      // The listing's first round trips overlap the folder's opening (lock, state) and the local
      // checks below: page 1 names the watermark read ahead of the lock (checked once it is held).
      const collection = fetchCollection(this, this.client, v);
      const peekedSince = full || (peeked && !peekRecordsMatch(dest, peeked)) || changesSubset(peeked, this.options) ? undefined : updatedSinceFor(peeked?.watermark ?? null);
      const early = this.options.repair ? undefined : openListing(this, this.client, v, peekedSince, collection);
      const taken = await openFolder(this, dest, owner);
      if (!taken) {
        this.controller.abort(); // the early requests, if any: nothing will read their answers
        return await finish(this, false);
      }
      lock = taken.lock;
      const state = taken.state;
      this.state = state;
      const stages = createStages({ dest, state, emit: (e) => this.emit(e), signal: this.signal });
      this.stages = stages;
      this.accounting.stageWork = () => stages.work();
      // A changed subset (subset.ts) walks from the beginning; it is remembered once its names are checked (syncAll).
      const subset = resolveSubset(state.head.subset, this.options);
      const subsetChanged = changesSubset(state.head, this.options);

      this.emit({ type: 'start', collectionId: this.options.collectionId, dest: dest.label, consentsDir: consents.label, full, watermark: state.head.watermark });
      this.repairSets = this.options.repair ? untrustFiles(state, this.options.repair.files) : undefined;
      // A bucket synced from another machine (or never from this one): its watermark says nothing
      // of the records here, so every accepted set is walked once (files in the bucket are adopted).
      const matches = state.recordsMatch;
      if (!matches && !full) this.emit({ type: 'warning', message: `${dest.label} was last synced from another machine (or never from this one): every accepted set is listed once; files already there are adopted by their sha256, not downloaded again.` });
      const since = full || !matches || subsetChanged ? undefined : updatedSinceFor(state.head.watermark);
      // Another sync moved the watermark between the peek and the lock: page 1 is asked again.
      const listing = early && early.since === since ? early : openListing(this, this.client, v, since, collection);
      if (listing !== early) void early?.pages?.return(undefined).catch(() => undefined);
      // Page 1 of an incremental walk brings a set the records do not hold as listed (not the
      // sets of the watermark's overlap, listed again by every sync): the end will likely extend
      // the index files, which a folder then copies during the disk check below, not at the end.
      if (since !== undefined) {
        const news = (page: SetsPage) => page.sets.some((set) => state.store.get(set.id)?.updatedAt !== set.updated_at);
        void listing.firstPage?.then((r) => !r.done && news(r.value) && warmIndexExtension(dest, stages.datasetFiles), () => undefined);
      }
      await new Promise((resolve) => setImmediate(resolve)); // the requests leave before the synchronous disk check
      const check = await checkRecordedFiles(dest, state, this.deps.clock);
      this.diskCheck = check;
      const ctx: RunContext = {
        dest,
        consents,
        withdrawn: opened.withdrawn,
        subset,
        excludeGold: this.options.excludeGold === true,
        client: this.client,
        policy: { ...v.policy, clock: this.deps.clock },
        hashWorkers: v.hashWorkers,
        stallMs: v.stallMs,
        clock: this.deps.clock,
        signal: this.signal,
        accounting: this.accounting,
        state,
        damaged: check.damaged,
        escaped: this.escaped,
        inFlight: this.inFlight,
        stages,
        emit: (e) => this.emit(e),
        endsSync: (e) => this.endsSync(e),
      };
      walkCompleted = await syncAll(this, ctx, v, listing);
    } catch (e) {
      if (!this.endsSync(e)) {
        this.fatal ??= { kind: 'internal', message: `Unexpected error: ${(e as Error)?.message ?? String(e)}` };
      }
    }
    try {
      return await finish(this, walkCompleted);
    } finally {
      await lock?.release().catch(() => undefined);
    }
  }
}
