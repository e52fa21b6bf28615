// Sets that leave the dataset (docs/contracts.md §1): a set that left `accepted`, or fell out of
// the chosen subset, moves whole — its files, set.json, and its consent records — to the
// quarantine beside the dataset, DEST.withdrawn/<set_id>/ (a bucket's PREFIX.withdrawn/), and
// leaves the engine state, so manifest.csv and SHA256SUMS no longer list it. Nothing is deleted
// here: only purge-withdrawn (purgeWithdrawn below) deletes the quarantine.
import type { DeliveryClient } from '../api/delivery-client';
import type { SetRecord } from '../../src-shared/delivery-api';
import { readSetJson } from './dataset';
import type { Destination, DestinationLock } from './destination/destination';
import { peekHead } from './state/published-head';
import { withRetry, type RetryPolicy } from './retry';
import type { RunContext } from './run-context';
import { PER_PAGE } from './walk';

/**
 * The statuses a set can leave `accepted` for (delivery-api.md "States": the values that occur).
 * Each is one request per sync (more only past 200 sets changed in the window): the sets feed
 * answers them with metadata only.
 */
export const LEFT_ACCEPTED_STATUSES = ['in_review', 'rework', 'rejected', 'in_progress'] as const;

/** Pages of one status a scan follows at most (200 sets each); more is a feed that does not end. */
const MAX_PAGES = 50;

/**
 * Ids of local sets listed under a status other than `accepted` and changed since `since`
 * (undefined: every such set), with that status. `isLocal` says whether the dataset holds a set.
 * The statuses are asked at once (their round trips overlap).
 */
export async function findLeftAccepted(
  client: DeliveryClient,
  collectionId: number,
  since: string | undefined,
  isLocal: (id: number) => boolean,
  policy: RetryPolicy,
  signal: AbortSignal,
): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  await Promise.all(
    LEFT_ACCEPTED_STATUSES.map(async (status) => {
      const seen = new Set<number>();
      for (let page = 1; page <= MAX_PAGES; page++) {
        const res = await withRetry(policy, () => client.listSets(collectionId, { status, updatedSince: since, page, perPage: PER_PAGE }, signal), { signal });
        // Only a record that itself says it is not accepted moves a set out: a server that ignores
        // the status filter (answers every set) or a record that breaks the contract (its status
        // unknown) must never empty the dataset.
        for (const s of res.sets) if (s.status !== 'accepted' && isLocal(s.id)) found.set(s.id, s.status);
        // A page that brings no set not seen before ends the scan, as it ends the walk (walk.ts):
        // a feed whose has_more never turns false costs one more page, not MAX_PAGES.
        const ids = [...res.sets.map((s) => s.id), ...(res.rejected ?? []).flatMap((r) => (r.id === null ? [] : [r.id]))];
        const fresh = ids.filter((id) => !seen.has(id));
        for (const id of fresh) seen.add(id);
        if (!res.has_more || fresh.length === 0) break;
      }
    }),
  );
  return found;
}

/** Consent ids the dataset's set.json names (written from the set's record when it was synced). */
async function consentIdsOf(dest: Destination, setId: number): Promise<number[]> {
  const set = (await readSetJson(dest, setId)) as { participants?: unknown } | null;
  const participants = Array.isArray(set?.participants) ? (set.participants as Array<{ consent?: { id?: unknown } | null } | null>) : [];
  return participants.flatMap((p) => (Number.isSafeInteger(p?.consent?.id) && (p!.consent!.id as number) > 0 ? [p!.consent!.id as number] : []));
}

/**
 * Moves everything of set `id` out of the dataset into `withdrawn` (<id>/…, consents under
 * <id>/consents/) and forgets the set. `record`: the set as the service lists it now, when
 * known (its consent ids are moved too). Resolves with whether the dataset held anything of it.
 */
export async function withdrawSet(ctx: RunContext, id: number, record: SetRecord | null, reason: string): Promise<boolean> {
  const { dest, consents, withdrawn, state } = ctx;
  const consentIds = new Set<number>(await consentIdsOf(dest, id));
  for (const p of record?.participants ?? []) if (p.consent && Number.isSafeInteger(p.consent.id) && p.consent.id > 0) consentIds.add(p.consent.id);
  const local = state.store.get(id);
  let moved = 0;
  // Every object of the set folder (files the state does not know of too), set.json last: a
  // move cut short leaves set.json behind, and the next sync finds the set again.
  const keys: string[] = [];
  for await (const o of dest.list(`sets/${id}/`)) keys.push(o.key);
  keys.sort((a, b) => Number(a.endsWith('/set.json')) - Number(b.endsWith('/set.json')));
  for (const key of keys) {
    if (await dest.move(key, withdrawn, `${id}/${key.slice(`sets/${id}/`.length)}`)) moved++;
  }
  for (const cid of consentIds) {
    if (await consents.move(`${cid}.json`, withdrawn, `${id}/consents/${cid}.json`)) moved++;
  }
  state.store.dropPending(id);
  if (local) state.store.forget(id);
  if (moved === 0 && !local) return false;
  ctx.accounting.withdrawnSets++;
  ctx.emit({ type: 'set', setId: id, state: 'withdrawn', files: local ? Object.keys(local.files).length : 0, isGold: local?.isGold ?? false, reason });
  return true;
}

/** A file of a set that stays, outside the chosen slots: it moves to the quarantine and leaves the state. */
export async function withdrawFile(ctx: RunContext, setId: number, rel: string): Promise<void> {
  await ctx.dest.move(rel, ctx.withdrawn, `${setId}/${rel.slice(`sets/${setId}/`.length)}`);
  ctx.state.store.dropFiles(setId, [rel], 'left_out');
}

/** What purge-withdrawn deletes: per set folder, its objects and bytes. */
export interface WithdrawnSummary {
  sets: Array<{ name: string; objects: number; bytes: number }>;
  objects: number;
  bytes: number;
}

export async function listWithdrawn(withdrawn: Destination): Promise<WithdrawnSummary> {
  const bySet = new Map<string, { objects: number; bytes: number }>();
  let objects = 0;
  let bytes = 0;
  for await (const o of withdrawn.list('')) {
    const name = o.key.split('/')[0]!;
    const s = bySet.get(name) ?? { objects: 0, bytes: 0 };
    s.objects++;
    s.bytes += o.size;
    bySet.set(name, s);
    objects++;
    bytes += o.size;
  }
  const sets = [...bySet].map(([name, s]) => ({ name, ...s })).sort((a, b) => Number(a.name) - Number(b.name) || a.name.localeCompare(b.name));
  return { sets, objects, bytes };
}

/**
 * Deletes the quarantine `withdrawn` of `dataset` (the one implementation: the CLI and the app's
 * Delete withdrawn data). Holds the dataset's lock while it lists and deletes (when the dataset
 * has been synced), so no sync moves sets into it meanwhile; `onFound` hears what will be
 * deleted before anything is. Resolves with what was deleted. The caller closes both.
 */
export async function purgeWithdrawn(dataset: Destination, withdrawn: Destination, onFound?: (found: WithdrawnSummary) => void): Promise<WithdrawnSummary> {
  let lock: DestinationLock | undefined;
  try {
    if ((await peekHead(dataset)) !== null) {
      await dataset.prepare();
      lock = await dataset.lock();
    }
    const found = await listWithdrawn(withdrawn);
    onFound?.(found);
    await withdrawn.removeAll(); // an empty folder left behind goes too
    return found;
  } finally {
    await lock?.release().catch(() => undefined);
  }
}
