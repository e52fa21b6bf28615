// The start of a run (run.ts), before any set is walked: the destinations opened from the options,
// the folder taken (prepared, locked, its state loaded, its owner checked again) and bound once
// the service answered, and the listing's first requests (the collection, page 1) sent at once so
// their round trips overlap the folder's opening. A folder that cannot be taken sets the run's
// fatal error and is left held by nothing.
import type { DeliveryClient } from '../api/delivery-client';
import type { CollectionDetail, SetsPage } from '../../src-shared/delivery-api';
import type { Destination, DestinationLock } from './destination/destination';
import { openConsents, openDestination } from './destination/open';
import { siblingSpec } from './destination/open';
import { parseDestination } from './destination/parse-destination';
import { bindingConflict, type FolderOwner } from './folder-binding';
import { localFsError } from './local-errors';
import { fatalAnywhere } from './outcome';
import { withRetry } from './retry';
import type { RunFields } from './run-fields';
import { RunState } from './run-state';
import { ConfigError, type RunSettings } from './sync-options';
import { walkAcceptedSets, type WalkOutcome } from './walk';

/** The listing's first requests, in flight from the start of the run (openListing). */
export interface Listing {
  collection: Promise<CollectionDetail>;
  pages: AsyncGenerator<SetsPage> | undefined;
  firstPage: Promise<IteratorResult<SetsPage>> | undefined;
  since: string | undefined;
  walk: WalkOutcome;
}

/** Opens the destinations (nothing is touched yet): a spec that cannot be served is a config error. */
export function openDestinations(run: RunFields, v: RunSettings): { dest: Destination; consents: Destination; withdrawn: Destination } {
  try {
    // Whatever backend the text names (registry.ts), with a store's endpoint from the options or
    // the environment (credentials from the store's default chain; the app injects destinations
    // it opened itself).
    const where = run.options.s3Endpoint ? { endpoint: run.options.s3Endpoint } : {};
    const spec = parseDestination(v.dest, where);
    return {
      dest: run.deps.destination ?? openDestination(spec),
      consents: run.deps.consents ?? openConsents(spec, run.options.consentsDir, where),
      withdrawn: run.deps.withdrawn ?? openDestination(siblingSpec(spec, '.withdrawn')),
    };
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
}

/**
 * Takes the destination for this sync (its owner was checked before): prepares it (a folder
 * makes its state folders part by part with lstat, so a symlinked .dataset-sync or partial
 * folder never takes our writes elsewhere), takes the lock, loads (and migrates) the state,
 * checks the owner again. On failure the fatal error is set, nothing is held, and undefined is
 * returned.
 */
export async function openFolder(run: RunFields, dest: Destination, owner: FolderOwner): Promise<{ lock: DestinationLock; state: RunState } | undefined> {
  let lock: DestinationLock | undefined;
  let state: RunState | undefined;
  try {
    for (const warning of await dest.prepare()) run.emit({ type: 'warning', message: warning });
    lock = await dest.lock();
    state = await RunState.open(dest, run.deps.clock);
  } catch (e) {
    const err = localFsError(e, `use the dataset folder ${dest.label}`);
    run.fatal = fatalAnywhere(err) ?? { kind: 'local_fs', message: err.message };
    // Taken but unusable (state unreadable, scratch folder not writable): never leave it held by a live app.
    state?.store.close();
    await lock?.release().catch(() => undefined);
    return undefined;
  }
  const head = state.head;
  const lateConflict = bindingConflict(dest.label, head, owner); // another sync bound it in between
  if (lateConflict) {
    run.fatal = { kind: 'config', message: lateConflict };
    state.store.close();
    await lock.release().catch(() => undefined);
    return undefined;
  }
  if (head.collectionId === null && !state.heldSetsAtStart) {
    // A new folder: bound once the service has answered for the collection (bindFolder).
    run.ownerToBind = owner;
  } else {
    // Synced before the service was recorded: it is bound from now on (a no-op when it is).
    state.store.bind(owner);
  }
  return { lock, state };
}

/** A new folder belongs to this sync's service and collection from now on (ownerToBind). */
export function bindFolder(run: RunFields, state: RunState): void {
  const owner = run.ownerToBind;
  if (!owner) return;
  run.ownerToBind = undefined;
  state.store.bind(owner);
}

/** The collection's detail (it names the accepted-set count progress needs from its first event). */
export function fetchCollection(run: RunFields, client: DeliveryClient, v: RunSettings): Promise<CollectionDetail> {
  const signal = run.signal;
  const collection = withRetry({ ...v.policy, clock: run.deps.clock }, () => client.getCollection(run.options.collectionId, signal), {
    signal,
    onRetry: (n, e) => run.emit({ type: 'warning', message: `${e.message}; retry ${n}` }),
  });
  void collection.catch(() => undefined); // awaited in syncAll; unobserved when the start fails before it
  return collection;
}

/** The listing: the collection on its way, and (unless this is a repair) page 1 of the walk from `since`, sent at once. */
export function openListing(run: RunFields, client: DeliveryClient, v: RunSettings, since: string | undefined, collection: Promise<CollectionDetail>): Listing {
  const signal = run.signal;
  const collectionId = run.options.collectionId;
  const policy = { ...v.policy, clock: run.deps.clock };
  const acc = run.accounting;
  const walk: WalkOutcome = { stable: true, passes: 0 };
  // The walk's back-off shows as phase `retrying` with a countdown.
  const walkPolicy = {
    ...policy,
    onBackoff: (attempt: number, of: number, ms: number) => {
      acc.walkRetry = { attempt: attempt + 1, of, until: run.deps.clock.now() + ms };
      run.progress?.update();
    },
  };
  // A repair (repair.ts) syncs exactly its sets, no walk, so the watermark stays where it was.
  const pages = run.options.repair
    ? undefined
    : walkAcceptedSets(client, collectionId, since, walkPolicy, signal, (m) => run.emit({ type: 'warning', message: m }), walk);
  const firstPage = pages?.next();
  void firstPage?.catch(() => undefined); // awaited in syncAll; unobserved when the start fails before it
  return { collection, pages, firstPage, since, walk };
}
