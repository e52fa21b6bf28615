// One sync of one collection into DEST, from start to summary (docs/contracts.md §1 and §4): take the
// folder (lock, state), walk the accepted sets page by page feeding a bounded queue, fetch the
// pending sets again, write the dataset index and the state, and say how it ended. What each set
// needs is planned in set-plan.ts; counting is accounting.ts; exit codes are outcome.ts.
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { createDeliveryClient, type DeliveryClient } from '../api/delivery-client';
import { isApiError } from '../api/errors';
import type { CollectionDetail, SetRecord, SetsPage } from '../../src-shared/delivery-api';
import type { SyncEvent, SyncOptions, SyncSummary } from '../../src-shared/sync-events';
import { Accounting, type RateLimiter } from './accounting';
import type { Clock } from './clock';
import { writeCollectionJson } from './dataset';
import type { Destination, DestinationLock } from './destination/destination';
import { openConsents, openDestination } from './destination/open';
import { siblingSpec } from './destination/open';
import { adoptSubset, changesSubset, resolveSubset, unknownNames } from './subset';
import { findLeftAccepted, withdrawSet } from './withdraw';
import { parseDestination } from './destination/parse-destination';
import { warmIndexExtension, writeDatasetIndex } from './dataset-index';
import { checkRecordedFiles, dropEntries, findUnhealedEntries, type DiskCheck } from './disk-check';
import { bindingConflict, type FolderOwner } from './folder-binding';
import { localFsError } from './local-errors';
import { failureCode } from './failure-code';
import { fatalAnywhere, isAbortError, summaryExitCode, walkFatal, type Fatal } from './outcome';
import { paced } from './loop-turns';
import { ProgressTracker } from './progress';
import { withRetry } from './retry';
import type { RunContext } from './run-context';
import { RunState } from './run-state';
import { untrustFiles } from './repair-plan';
import { failSet, reportNotServed } from './set-outcome';
import { syncSet } from './set-plan';
import { peekHead, peekRecordsMatch } from './state/published-head';
import { appendHistory } from './state/history';
import type { StagePipeline } from './stages/pipeline';
import { createStages } from './stages/registry';
import { InFlight } from './in-flight';
import { ConfigError, resolveOptions, type RunSettings } from './sync-options';
import { connectionsFor, createSyncPools, poolsIdle, type SyncPools } from './sync-pools';
import type { PauseGate } from './task-pool';
import { laterTimestamp, updatedSinceFor, walkAcceptedSets, type WalkOutcome } from './walk';

/** What a run uses from outside; engine.ts fills in the defaults. */
export interface RunDeps {
  /** When given, the caller owns it (the run does not close it). */
  client?: DeliveryClient;
  clock: Clock;
  limiter: RateLimiter;
  gate: PauseGate;
  /** When given, the caller owns it (the run neither opens nor closes it); else the folder options.dest. */
  destination?: Destination;
  /** When given, the caller owns it; else the folder options.consentsDir or `DEST.consents`. */
  consents?: Destination;
  /** When given, the caller owns it; else `DEST.withdrawn` (a bucket's `PREFIX.withdrawn/`). */
  withdrawn?: Destination;
}

/** The listing's first requests, in flight from the start of the run (SyncRun.openListing). */
interface Listing {
  collection: Promise<CollectionDetail>;
  pages: AsyncGenerator<SetsPage> | undefined;
  firstPage: Promise<IteratorResult<SetsPage>> | undefined;
  since: string | undefined;
  walk: WalkOutcome;
}

export class SyncRun {
  private readonly startedAt: number;
  private readonly controller = new AbortController();
  private readonly accounting: Accounting;
  private readonly seen = new Set<number>();
  private fatal: Fatal | undefined;
  private settings: RunSettings | undefined;
  /** Where the dataset and the consent records go, once opened (run()). */
  private dest: Destination | undefined;
  private consents: Destination | undefined;
  private withdrawn: Destination | undefined;
  /** Left-accepted scan (withdraw.ts), started once the walk listed every page. */
  private leftAccepted: Promise<Map<number, string>> | undefined;
  private state: RunState | undefined;
  private client: DeliveryClient | undefined;
  private maxUpdatedAt: string | null = null;
  /** Sets whose folder a transfer found leading outside DEST (RunContext.escaped). */
  private readonly escaped = new Set<number>();
  /** What the sets started and did not wait for (in-flight.ts): ended before the index is written. */
  private readonly inFlight = new InFlight();
  /** The sets a repair syncs (SyncOptions.repair), instead of the walk. */
  private repairSets: number[] | undefined;
  /** A page record without a usable id was rejected: the walk cannot count as complete. */
  private unidentifiedReject = false;
  private diskCheck: DiskCheck | undefined;
  /** Progress events, from the collection's detail (setsTotal known) to the end of finish(). */
  private progress: ProgressTracker | undefined;
  /** The stages every verified file goes through (stages/), once the state is loaded. */
  private stages: StagePipeline | undefined;
  /**
   * A new folder's owner, bound only once the service answered for its collection (bindFolder): a
   * first sync stopped by a wrong key, a wrong collection or an unreachable service leaves the
   * folder free for the right one, and writes no dataset files into it.
   */
  private ownerToBind: FolderOwner | undefined;

  constructor(
    private readonly options: SyncOptions,
    private readonly onEvent: (e: SyncEvent) => void,
    private readonly deps: RunDeps,
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

  private emit(e: SyncEvent): void {
    try {
      this.onEvent(e);
    } catch {
      // A failing listener must not break the sync.
    }
  }

  private get signal(): AbortSignal {
    return this.controller.signal;
  }

  private setFatal(f: Fatal): void {
    this.fatal ??= f;
    this.controller.abort();
  }

  /** See RunContext.endsSync. */
  private endsSync(e: unknown): boolean {
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

  /** Opens the destinations (nothing is touched yet): a spec that cannot be served is a config error. */
  private openDestinations(v: RunSettings): { dest: Destination; consents: Destination; withdrawn: Destination } {
    try {
      // Whatever backend the text names (registry.ts), with a store's endpoint from the options or
      // the environment (credentials from the store's default chain; the app injects destinations
      // it opened itself).
      const where = this.options.s3Endpoint ? { endpoint: this.options.s3Endpoint } : {};
      const spec = parseDestination(v.dest, where);
      return {
        dest: this.deps.destination ?? openDestination(spec),
        consents: this.deps.consents ?? openConsents(spec, this.options.consentsDir, where),
        withdrawn: this.deps.withdrawn ?? openDestination(siblingSpec(spec, '.withdrawn')),
      };
    } catch (e) {
      throw new ConfigError((e as Error).message);
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
        opened = this.openDestinations(v);
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        this.fatal = { kind: 'config', message: e.message };
        return await this.finish(false);
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
        return await this.finish(false);
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
      const collection = this.fetchCollection(this.client, v);
      const peekedSince = full || (peeked && !peekRecordsMatch(dest, peeked)) || changesSubset(peeked, this.options) ? undefined : updatedSinceFor(peeked?.watermark ?? null);
      const early = this.options.repair ? undefined : this.openListing(this.client, v, peekedSince, collection);
      const taken = await this.openFolder(dest, owner);
      if (!taken) {
        this.controller.abort(); // the early requests, if any: nothing will read their answers
        return await this.finish(false);
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
      const listing = early && early.since === since ? early : this.openListing(this.client, v, since, collection);
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
      walkCompleted = await this.syncAll(ctx, v, listing);
    } catch (e) {
      if (!this.endsSync(e)) {
        this.fatal ??= { kind: 'internal', message: `Unexpected error: ${(e as Error)?.message ?? String(e)}` };
      }
    }
    try {
      return await this.finish(walkCompleted);
    } finally {
      await lock?.release().catch(() => undefined);
    }
  }

  /**
   * Takes the destination for this sync (its owner was checked before): prepares it (a folder
   * makes its state folders part by part with lstat, so a symlinked .dataset-sync or partial
   * folder never takes our writes elsewhere), takes the lock, loads (and migrates) the state,
   * checks the owner again. On failure the fatal error is set, nothing is held, and undefined is
   * returned.
   */
  private async openFolder(dest: Destination, owner: FolderOwner): Promise<{ lock: DestinationLock; state: RunState } | undefined> {
    let lock: DestinationLock | undefined;
    let state: RunState | undefined;
    try {
      for (const warning of await dest.prepare()) this.emit({ type: 'warning', message: warning });
      lock = await dest.lock();
      state = await RunState.open(dest, this.deps.clock);
    } catch (e) {
      const err = localFsError(e, `use the dataset folder ${dest.label}`);
      this.fatal = fatalAnywhere(err) ?? { kind: 'local_fs', message: err.message };
      // Taken but unusable (state unreadable, scratch folder not writable): never leave it held by a live app.
      state?.store.close();
      await lock?.release().catch(() => undefined);
      return undefined;
    }
    const head = state.head;
    const lateConflict = bindingConflict(dest.label, head, owner); // another sync bound it in between
    if (lateConflict) {
      this.fatal = { kind: 'config', message: lateConflict };
      state.store.close();
      await lock.release().catch(() => undefined);
      return undefined;
    }
    if (head.collectionId === null && !state.heldSetsAtStart) {
      // A new folder: bound once the service has answered for the collection (bindFolder).
      this.ownerToBind = owner;
    } else {
      // Synced before the service was recorded: it is bound from now on (a no-op when it is).
      state.store.bind(owner);
    }
    return { lock, state };
  }

  /** A new folder belongs to this sync's service and collection from now on (ownerToBind). */
  private bindFolder(state: RunState): void {
    const owner = this.ownerToBind;
    if (!owner) return;
    this.ownerToBind = undefined;
    state.store.bind(owner);
  }

  /** The collection's detail (it names the accepted-set count progress needs from its first event). */
  private fetchCollection(client: DeliveryClient, v: RunSettings): Promise<CollectionDetail> {
    const signal = this.signal;
    const collection = withRetry({ ...v.policy, clock: this.deps.clock }, () => client.getCollection(this.options.collectionId, signal), {
      signal,
      onRetry: (n, e) => this.emit({ type: 'warning', message: `${e.message}; retry ${n}` }),
    });
    void collection.catch(() => undefined); // awaited in syncAll; unobserved when the start fails before it
    return collection;
  }

  /** The listing: the collection on its way, and (unless this is a repair) page 1 of the walk from `since`, sent at once. */
  private openListing(client: DeliveryClient, v: RunSettings, since: string | undefined, collection: Promise<CollectionDetail>): Listing {
    const signal = this.signal;
    const collectionId = this.options.collectionId;
    const policy = { ...v.policy, clock: this.deps.clock };
    const acc = this.accounting;
    const walk: WalkOutcome = { stable: true, passes: 0 };
    // The walk's back-off shows as phase `retrying` with a countdown.
    const walkPolicy = {
      ...policy,
      onBackoff: (attempt: number, of: number, ms: number) => {
        acc.walkRetry = { attempt: attempt + 1, of, until: this.deps.clock.now() + ms };
        this.progress?.update();
      },
    };
    // A repair (repair.ts) syncs exactly its sets, no walk, so the watermark stays where it was.
    const pages = this.options.repair
      ? undefined
      : walkAcceptedSets(client, collectionId, since, walkPolicy, signal, (m) => this.emit({ type: 'warning', message: m }), walk);
    const firstPage = pages?.next();
    void firstPage?.catch(() => undefined); // awaited in syncAll; unobserved when the start fails before it
    return { collection, pages, firstPage, since, walk };
  }

  /** Returns true when the page walk completed (so the watermark may advance). */
  private async syncAll(ctx: RunContext, v: RunSettings, listing: Listing): Promise<boolean> {
    const { signal } = ctx;
    const full = this.options.full === true;
    const acc = this.accounting;
    const { pages, firstPage, since, walk } = listing;
    let collection;
    try {
      collection = await listing.collection;
    } catch (e) {
      this.walkFailure(e, 'fetch the collection');
      return false;
    }
    this.bindFolder(ctx.state);
    // Made once the service has answered for the collection: a refused sync creates no consents folder.
    const consentsReady = ctx.consents.prepare();
    void consentsReady.catch(() => undefined);
    await writeCollectionJson(ctx.dest, collection).catch((e) => {
      throw localFsError(e, `write ${path.join(ctx.dest.label, 'collection.json')}`);
    });
    this.emit({ type: 'collection', collectionId: collection.id, title: collection.title, acceptedSets: collection.sets.accepted });
    // Work the stages owe from earlier syncs (files never checked) runs beside the downloads, under collection.json as now served.
    ctx.stages.start();
    const unknown = unknownNames(ctx.subset, collection);
    if (unknown) {
      this.setFatal({ kind: 'config', message: `${unknown} Nothing was changed; give --slots/--groups again (all = every one).` });
      return false;
    }
    // Remembered from now on; a changed subset clears the watermark, so a walk cut short starts from the beginning next time too.
    adoptSubset(ctx.state.store, this.options);
    const consentsWarnings = await consentsReady.catch((e) => {
      throw localFsError(e, `create the consents folder ${ctx.consents.label}`);
    });
    for (const warning of consentsWarnings) this.emit({ type: 'warning', message: warning });

    acc.setsExpected = this.repairSets ? this.repairSets.length : collection.sets.accepted;
    acc.phase = 'listing';
    const progress = new ProgressTracker(acc, (e) => this.emit(e), v.progressIntervalMs, undefined, this.deps.clock);
    this.progress = progress;
    progress.start();
    const pools = createSyncPools(v.concurrency, ctx.client.multiplexed, this.deps.gate, signal);
    let walkCompleted = false;
    try {
      if (!pages || !firstPage) {
        for (const id of this.repairSets ?? []) {
          if (signal.aborted) break;
          await this.fetchSetAgain(ctx, id, pools);
        }
        this.listed();
        await poolsIdle(pools);
        return false;
      }
      let first = true;
      for (let next = await firstPage; !next.done; next = await pages.next()) {
        const page = next.value;
        // An incremental walk lists only what changed: the other accepted sets are done already.
        if (since !== undefined && first) acc.setsUnchanged = Math.max(0, collection.sets.accepted - page.total);
        first = false;
        const closed = this.deps.gate.whenOpen(signal); // paused: the walk waits too (and is not repeated)
        if (closed) await closed;
        // A record that fails the contract while its page is sound fails its own set, not the walk.
        for (const record of page.rejected ?? []) this.rejectRecord(ctx, record);
        for (const set of page.sets) {
          if (signal.aborted) break;
          await this.processSet(ctx, set, pools);
        }
        if (signal.aborted) break;
      }
      // A list that kept changing under the walk may have hidden sets: keep the watermark where it was.
      walkCompleted = !signal.aborted && walk.stable && !this.unidentifiedReject;
      // A feed cut short (walk.ts) is the service's failure: exit 1, what was listed is kept.
      if (walk.cutShort) failSet(ctx, 0, walk.cutShort, 'bad_listing', false);
      this.scanLeftAccepted(ctx, since);
      // Sets that failed before are retried even when the watermark has passed them.
      for (const id of [...ctx.state.head.pendingSets]) {
        if (signal.aborted) break;
        if (this.seen.has(id)) continue;
        acc.setsRefetched++;
        await this.fetchSetAgain(ctx, id, pools);
      }
      this.listed();
    } catch (e) {
      this.walkFailure(e, 'list the sets');
      walkCompleted = false;
    } finally {
      await pages?.return(undefined).catch(() => undefined); // a walk left early lets go of its page fetched ahead
    }
    await poolsIdle(pools);
    if (!(await this.withdrawLeftAccepted(ctx))) walkCompleted = false;
    if (walkCompleted && full && !signal.aborted) await this.reportNotServed(ctx);
    return walkCompleted && !signal.aborted;
  }

  /**
   * Asks which local sets left `accepted` since the walk's window began (withdraw.ts), while the
   * downloads drain. Nothing to ask when the dataset held no set when the sync began: a set
   * that leaves `accepted` during a first sync is found by the next one (its updated_at is past
   * the watermark).
   */
  private scanLeftAccepted(ctx: RunContext, since: string | undefined): void {
    if (!ctx.state.heldSetsAtStart) return;
    const store = ctx.state.store;
    this.leftAccepted = findLeftAccepted(ctx.client, this.options.collectionId, since, (id) => store.get(id) !== undefined, ctx.policy, ctx.signal);
    void this.leftAccepted.catch(() => undefined); // awaited once the pools are idle
  }

  /** Moves the sets the scan found out of the dataset; false when the scan failed (the watermark then stays). */
  private async withdrawLeftAccepted(ctx: RunContext): Promise<boolean> {
    if (!this.leftAccepted) return true;
    let found: Map<number, string>;
    try {
      found = await this.leftAccepted;
    } catch (e) {
      if (this.endsSync(e)) return false;
      this.emit({ type: 'warning', message: `Could not ask which sets left "accepted": ${(e as Error).message}; the next sync asks again.` });
      return false;
    }
    for (const [id, status] of found) {
      if (ctx.signal.aborted) return false;
      await withdrawSet(ctx, id, null, `the set is now "${status}": moved to ${ctx.withdrawn.label}`).catch((e) => {
        throw localFsError(e, `move set ${id} to ${ctx.withdrawn.label}`);
      });
    }
    return true;
  }

  /** Every set is listed and planned: file totals are final, the progress fraction goes by bytes. */
  private listed(): void {
    this.accounting.listed = true;
    this.accounting.phase = 'downloading';
    this.progress?.update();
  }

  private walkFailure(e: unknown, doing: string): void {
    if (this.endsSync(e)) return;
    const fatal = walkFatal(e, doing, this.options.collectionId);
    if (!fatal) throw e;
    this.setFatal(fatal);
  }

  /** A set from the walk or fetched again; the overlap window repeats sets, so each id is planned once. */
  private async processSet(ctx: RunContext, set: SetRecord, pools: SyncPools): Promise<void> {
    if (this.seen.has(set.id)) return;
    this.seen.add(set.id);
    const { accepted } = await syncSet(ctx, set, pools);
    if (accepted) this.maxUpdatedAt = laterTimestamp(this.maxUpdatedAt, set.updated_at);
  }

  /**
   * A record of a page that broke the contract (a size as a string, an upper-case sha256...)
   * fails its own set, which stays pending; every other set of the page syncs.
   */
  private rejectRecord(ctx: RunContext, record: NonNullable<SetsPage['rejected']>[number]): void {
    const reason = `the service's record breaks the API contract: ${record.reason}`;
    if (record.id === null) {
      // Without an id it cannot be fetched again: the watermark stays, so the next sync walks this window again.
      this.unidentifiedReject = true;
      failSet(ctx, 0, `a set record without a usable id: ${reason}`, 'bad_listing');
      return;
    }
    if (this.seen.has(record.id)) return;
    this.seen.add(record.id);
    ctx.accounting.sets++;
    ctx.state.store.addPending(record.id);
    failSet(ctx, record.id, `set ${record.id}: ${reason}`, 'bad_listing');
  }

  /** GET /sets/:id for a set the walk did not return (pending after a failure). */
  private async fetchSetAgain(ctx: RunContext, id: number, pools: SyncPools): Promise<void> {
    let set: SetRecord;
    try {
      set = await withRetry(ctx.policy, () => ctx.client.getSet(this.options.collectionId, id, ctx.signal), { signal: ctx.signal });
    } catch (e) {
      if (ctx.endsSync(e)) return;
      if (isApiError(e) && e.kind === 'not_found') {
        ctx.state.store.dropPending(id);
        reportNotServed(ctx, id, 'the set is no longer part of the collection (404)');
        return;
      }
      failSet(ctx, id, `could not fetch the set again: ${(e as Error).message}`, failureCode(e));
      return;
    }
    await this.processSet(ctx, set, pools);
  }

  /** --full: local sets the walk did not return are reported; their files are kept. */
  private async reportNotServed(ctx: RunContext): Promise<void> {
    // One record read per known set: with event-loop turns (loop-turns.ts), the app's window stays live.
    for await (const id of paced(ctx.state.store.ids())) {
      if (!this.seen.has(id) && ctx.state.store.get(id) !== undefined) reportNotServed(ctx, id, 'no longer served as accepted; local files are kept');
    }
  }

  private newSummary(): SyncSummary {
    return {
      collectionId: this.options.collectionId,
      dest: this.dest?.label ?? this.settings?.dest ?? this.options.dest,
      ...(this.consents ? { consentsDir: this.consents.label } : {}),
      sets: 0,
      setsComplete: 0,
      setsFailed: 0,
      setsNotServed: [],
      withdrawnSets: 0,
      filesDownloaded: 0,
      filesUpToDate: 0,
      filesFailed: 0,
      bytesDownloaded: 0,
      bytesHashed: 0,
      requests: 0,
      failures: [],
      mediaProblems: 0,
      watermark: null,
      startedAt: new Date(this.startedAt).toISOString(),
      finishedAt: '',
      durationMs: 0,
      exitCode: 0,
      cancelled: false,
    };
  }

  private async finish(walkCompleted: boolean): Promise<SyncSummary> {
    const s = this.newSummary();
    s.cancelled = this.options.signal?.aborted === true && !this.fatal;
    const state = this.state;
    const dest = this.dest;
    // A new folder the service never answered for stays as it was: unbound, no dataset files.
    if (state && dest && this.ownerToBind) state.store.close();
    else if (state && dest) {
      const head = state.head;
      s.watermark = head.watermark;
      try {
        if (walkCompleted && !this.fatal && this.maxUpdatedAt !== null) {
          const watermark = laterTimestamp(head.watermark, this.maxUpdatedAt);
          if (watermark !== null) state.store.setWatermark(watermark);
        }
        // A set with no file to fetch ends with its set.json, which may still be on its way.
        await this.inFlight.settled();
        const stages = this.stages;
        if (stages) {
          // Every transfer has ended; what the stages still read on their own is waited for (and
          // recorded) before the index is written. Said as such, with the files left.
          const work = stages.work();
          if (work.total > work.done) {
            this.accounting.phase = 'checking_media';
            this.progress?.update();
          }
          await stages.finish();
        }
        this.accounting.phase = 'writing_manifest';
        this.progress?.update();
        await state.settled();
        // The sets this sync worked on are looked at again too: a file verified here may have gone
        // since. The look only reads, so it runs beside the dataset files' pass (their files'
        // lstat calls on the file writer thread while this one writes the files); in the rare sync
        // where it finds an entry to drop, the files are written again without it.
        const unhealed = this.diskCheck ? findUnhealedEntries(dest, state, [...this.diskCheck.damaged.keys(), ...this.escaped, ...this.seen]) : undefined;
        void unhealed?.catch(() => undefined); // its failure is thrown below, once the writing has ended
        const stageFiles = this.stages?.datasetFiles ?? [];
        let stageSummary;
        try {
          stageSummary = await writeDatasetIndex(dest, state, stageFiles);
        } finally {
          // Never left running past a failed writing: the state and the destination close after it.
          await unhealed?.catch(() => undefined);
        }
        const lost = dropEntries(state, (await unhealed) ?? new Map());
        for (const id of lost) if (this.seen.has(id)) state.store.addPending(id);
        if (lost.length > 0) stageSummary = await writeDatasetIndex(dest, state, stageFiles, true);
        Object.assign(s, stageSummary);
        if (state.head.research) s.consentMissingSets = state.head.research.consentMissingSets;
        await state.saveIfChanged();
      } catch (e) {
        const err = localFsError(e, `write the dataset index in ${dest.label}`);
        this.fatal ??= fatalAnywhere(err) ?? { kind: 'local_fs', message: err.message };
      }
      s.watermark = head.watermark;
      state.store.close();
    }
    this.progress?.stop();
    this.accounting.fill(s);
    if (this.diskCheck) {
      const { files, missing, changed, durationMs } = this.diskCheck;
      s.diskCheck = { files, missing, changed, durationMs };
    }
    s.requests = this.client?.requestCount ?? 0;
    const finished = this.deps.clock.now();
    s.finishedAt = new Date(finished).toISOString();
    s.durationMs = finished - this.startedAt;
    if (this.fatal) s.fatal = { kind: this.fatal.kind, message: this.fatal.message };
    s.exitCode = summaryExitCode(this.fatal, s);
    if (dest && state && s.exitCode === 0 && dest.cleanUp) {
      // Under the lock still: no multipart upload of this destination stays open after a clean sync.
      await dest.cleanUp().catch((e: unknown) => this.emit({ type: 'warning', message: `Could not abort leftover uploads in ${dest.label}: ${(e as Error).message}` }));
    }
    const storage = dest?.stats?.();
    if (storage) s.storage = storage;
    if (!this.deps.client) await this.client?.close().catch(() => undefined);
    if (state && dest) await appendHistory(dest.stateDir, s).catch(() => undefined);
    this.emit({ type: 'summary', summary: s });
    return s;
  }
}
