// The listing of a run (run.ts), once the folder is held: the collection's detail (the folder is
// bound and collection.json written only after it answered), the page walk feeding each set to
// its plan (set-plan.ts) through the bounded pools, the records a page rejected, the pending sets
// fetched again, and the sets that left `accepted` moved out. Says whether the walk completed, so
// the end (run-finish.ts) knows whether the watermark may advance.
import path from 'node:path';
import { isApiError } from '../api/errors';
import type { SetRecord, SetsPage } from '../../src-shared/delivery-api';
import { writeCollectionJson } from './dataset';
import { adoptSubset, unknownNames } from './subset';
import { findLeftAccepted, withdrawSet } from './withdraw';
import { localFsError } from './local-errors';
import { failureCode } from './failure-code';
import { walkFatal } from './outcome';
import { paced } from './loop-turns';
import { ProgressTracker } from './progress';
import { withRetry } from './retry';
import type { RunFields } from './run-fields';
import type { RunContext } from './run-context';
import { bindFolder, type Listing } from './run-open';
import { failSet, reportNotServed } from './set-outcome';
import { syncSet } from './set-plan';
import { createSyncPools, poolsIdle, type SyncPools } from './sync-pools';
import type { RunSettings } from './sync-options';
import { laterTimestamp } from './walk';

/** Returns true when the page walk completed (so the watermark may advance). */
export async function syncAll(run: RunFields, ctx: RunContext, v: RunSettings, listing: Listing): Promise<boolean> {
  const { signal } = ctx;
  const full = run.options.full === true;
  const acc = run.accounting;
  const { pages, firstPage, since, walk } = listing;
  let collection;
  try {
    collection = await listing.collection;
  } catch (e) {
    walkFailure(run, e, 'fetch the collection');
    return false;
  }
  bindFolder(run, ctx.state);
  // Made once the service has answered for the collection: a refused sync creates no consents folder.
  const consentsReady = ctx.consents.prepare();
  void consentsReady.catch(() => undefined);
  await writeCollectionJson(ctx.dest, collection).catch((e) => {
    throw localFsError(e, `write ${path.join(ctx.dest.label, 'collection.json')}`);
  });
  run.emit({ type: 'collection', collectionId: collection.id, title: collection.title, acceptedSets: collection.sets.accepted });
  // Work the stages owe from earlier syncs (files never checked) runs beside the downloads, under collection.json as now served.
  ctx.stages.start();
  const unknown = unknownNames(ctx.subset, collection);
  if (unknown) {
    run.setFatal({ kind: 'config', message: `${unknown} Nothing was changed; give --slots/--groups again (all = every one).` });
    return false;
  }
  // Remembered from now on; a changed subset clears the watermark, so a walk cut short starts from the beginning next time too.
  adoptSubset(ctx.state.store, run.options);
  const consentsWarnings = await consentsReady.catch((e) => {
    throw localFsError(e, `create the consents folder ${ctx.consents.label}`);
  });
  for (const warning of consentsWarnings) run.emit({ type: 'warning', message: warning });

  acc.setsExpected = run.repairSets ? run.repairSets.length : collection.sets.accepted;
  acc.phase = 'listing';
  const progress = new ProgressTracker(acc, (e) => run.emit(e), v.progressIntervalMs, undefined, run.deps.clock);
  run.progress = progress;
  progress.start();
  const pools = createSyncPools(v.concurrency, ctx.client.multiplexed, run.deps.gate, signal);
  let walkCompleted = false;
  try {
    if (!pages || !firstPage) {
      for (const id of run.repairSets ?? []) {
        if (signal.aborted) break;
        await fetchSetAgain(run, ctx, id, pools);
      }
      listed(run);
      await poolsIdle(pools);
      return false;
    }
    let first = true;
    for (let next = await firstPage; !next.done; next = await pages.next()) {
      const page = next.value;
      // An incremental walk lists only what changed: the other accepted sets are done already.
      if (since !== undefined && first) acc.setsUnchanged = Math.max(0, collection.sets.accepted - page.total);
      first = false;
      const closed = run.deps.gate.whenOpen(signal); // paused: the walk waits too (and is not repeated)
      if (closed) await closed;
      // A record that fails the contract while its page is sound fails its own set, not the walk.
      for (const record of page.rejected ?? []) rejectRecord(run, ctx, record);
      for (const set of page.sets) {
        if (signal.aborted) break;
        await processSet(run, ctx, set, pools);
      }
      if (signal.aborted) break;
    }
    // A list that kept changing under the walk may have hidden sets: keep the watermark where it was.
    walkCompleted = !signal.aborted && walk.stable && !run.unidentifiedReject;
    // A feed cut short (walk.ts) is the service's failure: exit 1, what was listed is kept.
    if (walk.cutShort) failSet(ctx, 0, walk.cutShort, 'bad_listing', false);
    scanLeftAccepted(run, ctx, since);
    // Sets that failed before are retried even when the watermark has passed them.
    for (const id of [...ctx.state.head.pendingSets]) {
      if (signal.aborted) break;
      if (run.seen.has(id)) continue;
      acc.setsRefetched++;
      await fetchSetAgain(run, ctx, id, pools);
    }
    listed(run);
  } catch (e) {
    walkFailure(run, e, 'list the sets');
    walkCompleted = false;
  } finally {
    await pages?.return(undefined).catch(() => undefined); // a walk left early lets go of its page fetched ahead
  }
  await poolsIdle(pools);
  if (!(await withdrawLeftAccepted(run, ctx))) walkCompleted = false;
  if (walkCompleted && full && !signal.aborted) await reportNotServedSets(run, ctx);
  return walkCompleted && !signal.aborted;
}

/**
 * Asks which local sets left `accepted` since the walk's window began (withdraw.ts), while the
 * downloads drain. Nothing to ask when the dataset held no set when the sync began: a set
 * that leaves `accepted` during a first sync is found by the next one (its updated_at is past
 * the watermark).
 */
function scanLeftAccepted(run: RunFields, ctx: RunContext, since: string | undefined): void {
  if (!ctx.state.heldSetsAtStart) return;
  const store = ctx.state.store;
  run.leftAccepted = findLeftAccepted(ctx.client, run.options.collectionId, since, (id) => store.get(id) !== undefined, ctx.policy, ctx.signal);
  void run.leftAccepted.catch(() => undefined); // awaited once the pools are idle
}

/** Moves the sets the scan found out of the dataset; false when the scan failed (the watermark then stays). */
async function withdrawLeftAccepted(run: RunFields, ctx: RunContext): Promise<boolean> {
  if (!run.leftAccepted) return true;
  let found: Map<number, string>;
  try {
    found = await run.leftAccepted;
  } catch (e) {
    if (run.endsSync(e)) return false;
    run.emit({ type: 'warning', message: `Could not ask which sets left "accepted": ${(e as Error).message}; the next sync asks again.` });
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
function listed(run: RunFields): void {
  run.accounting.listed = true;
  run.accounting.phase = 'downloading';
  run.progress?.update();
}

function walkFailure(run: RunFields, e: unknown, doing: string): void {
  if (run.endsSync(e)) return;
  const fatal = walkFatal(e, doing, run.options.collectionId);
  if (!fatal) throw e;
  run.setFatal(fatal);
}

/** A set from the walk or fetched again; the overlap window repeats sets, so each id is planned once. */
async function processSet(run: RunFields, ctx: RunContext, set: SetRecord, pools: SyncPools): Promise<void> {
  if (run.seen.has(set.id)) return;
  run.seen.add(set.id);
  const { accepted } = await syncSet(ctx, set, pools);
  if (accepted) run.maxUpdatedAt = laterTimestamp(run.maxUpdatedAt, set.updated_at);
}

/**
 * A record of a page that broke the contract (a size as a string, an upper-case sha256...)
 * fails its own set, which stays pending; every other set of the page syncs.
 */
function rejectRecord(run: RunFields, ctx: RunContext, record: NonNullable<SetsPage['rejected']>[number]): void {
  const reason = `the service's record breaks the API contract: ${record.reason}`;
  if (record.id === null) {
    // Without an id it cannot be fetched again: the watermark stays, so the next sync walks this window again.
    run.unidentifiedReject = true;
    failSet(ctx, 0, `a set record without a usable id: ${reason}`, 'bad_listing');
    return;
  }
  if (run.seen.has(record.id)) return;
  run.seen.add(record.id);
  ctx.accounting.sets++;
  ctx.state.store.addPending(record.id);
  failSet(ctx, record.id, `set ${record.id}: ${reason}`, 'bad_listing');
}

/** GET /sets/:id for a set the walk did not return (pending after a failure). */
async function fetchSetAgain(run: RunFields, ctx: RunContext, id: number, pools: SyncPools): Promise<void> {
  let set: SetRecord;
  try {
    set = await withRetry(ctx.policy, () => ctx.client.getSet(run.options.collectionId, id, ctx.signal), { signal: ctx.signal });
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
  await processSet(run, ctx, set, pools);
}

/** --full: local sets the walk did not return are reported; their files are kept. */
async function reportNotServedSets(run: RunFields, ctx: RunContext): Promise<void> {
  // One record read per known set: with event-loop turns (loop-turns.ts), the app's window stays live.
  for await (const id of paced(ctx.state.store.ids())) {
    if (!run.seen.has(id) && ctx.state.store.get(id) !== undefined) reportNotServed(ctx, id, 'no longer served as accepted; local files are kept');
  }
}
