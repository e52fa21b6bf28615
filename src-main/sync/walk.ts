// The page walk over accepted sets (docs/contracts.md §4): per_page=200, `updated_since` = watermark
// minus an overlap, pages fetched lazily so the caller's bounded queue sets the pace.
import type { DeliveryClient } from '../api/delivery-client';
import { ApiError } from '../api/errors';
import type { SetsPage } from '../../src-shared/delivery-api';
import { withRetry, type RetryPolicy } from './retry';

export const PER_PAGE = 200;
/** Sets committed while a walk ran, or sharing the watermark's instant, fall inside this window. */
export const WATERMARK_OVERLAP_MS = 5 * 60_000;
/** Pages beyond what `total` needs that a walk follows before has_more is taken for a lie (the list may grow while we walk). */
const EXTRA_PAGES = 2;

export function updatedSinceFor(watermark: string | null): string | undefined {
  if (watermark === null) return undefined;
  const t = Date.parse(watermark);
  if (Number.isNaN(t)) return undefined;
  return new Date(t - WATERMARK_OVERLAP_MS).toISOString();
}

/** The later of two server timestamps (compared as instants, kept as the server wrote them). */
export function laterTimestamp(a: string | null, b: string): string {
  if (a === null) return b;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

/**
 * Filled in by walkAcceptedSets: `stable` is false when the list kept changing under the walk
 * or when a feed that never ended was cut short before every set `total` announces was seen;
 * `cutShort` says why the walk stopped a feed whose `has_more` never turned false.
 */
export interface WalkOutcome {
  stable: boolean;
  passes: number;
  cutShort?: string;
}

/**
 * A set leaving `accepted` during a walk shifts every later page back by one, so the set that
 * slides onto an already fetched page would be missed; its old updated_at puts it behind the
 * watermark for good. The walk notices the list changing (a page's `total` differs from the
 * first page's) and walks again (sets already seen are skipped by the caller); after
 * MAX_PASSES unstable walks `outcome.stable` stays false and the caller must not advance the
 * watermark. Not detectable this way: a leave and an accept between the same two pages
 * (total unchanged); the next sync's walk from the unchanged watermark catches it only if the
 * walk was flagged unstable.
 */
const MAX_PASSES = 3;

export async function* walkAcceptedSets(
  client: DeliveryClient,
  collectionId: number,
  updatedSince: string | undefined,
  policy: RetryPolicy,
  signal: AbortSignal,
  onRetry?: (message: string) => void,
  outcome: WalkOutcome = { stable: true, passes: 0 },
): AsyncGenerator<SetsPage> {
  const fetchPage = (page: number) =>
    withRetry(policy, () => client.listSets(collectionId, { status: 'accepted', updatedSince, page, perPage: PER_PAGE }, signal), {
      signal,
      onRetry: (n, e) => onRetry?.(`${e.message}; retry ${n}`),
    });
  for (let pass = 1; pass <= MAX_PASSES; pass++) {
    outcome.passes = pass;
    let firstTotal: number | undefined;
    let changed: string | undefined;
    let maxTotal = 0;
    let ahead: Promise<SetsPage> | undefined;
    // Ids this pass listed: a page that brings none but still says has_more is a feed going round.
    const listed = new Set<number>();
    for (let page = 1; ; page++) {
      const res = await (ahead ?? fetchPage(page));
      ahead = undefined;
      const rejected = res.rejected ?? [];
      const records = res.sets.length + rejected.length;
      // A page larger than asked is outside the contract (per_page is 1 to 200): refuse it
      // rather than let one answer queue thousands of sets.
      if (records > PER_PAGE) {
        throw new ApiError('malformed', `GET /collections/${collectionId}/sets: page ${page} has ${records} sets, more than the ${PER_PAGE} asked for`);
      }
      firstTotal ??= res.total;
      if (res.total !== firstTotal) changed ??= `${firstTotal} -> ${res.total}`;
      maxTotal = Math.max(maxTotal, res.total);
      const before = listed.size;
      for (const set of res.sets) listed.add(set.id);
      for (const record of rejected) if (record.id !== null) listed.add(record.id);
      const broughtNew = listed.size > before || records === 0 || rejected.some((r) => r.id === null);
      // An empty page ends the walk even if has_more says otherwise (beyond-the-end behaviour is not shown).
      const more = res.has_more && records > 0;
      // Bounded by what `total` announces: a has_more that never turns false is a broken answer, not an endless list.
      const needed = Math.ceil(maxTotal / PER_PAGE);
      const withinBound = page < needed + EXTRA_PAGES;
      const goesOn = more && withinBound && broughtNew;
      // The next page is asked for now, while the caller works through this one: its round trip is hidden.
      if (goesOn) {
        ahead = fetchPage(page + 1);
        void ahead.catch(() => undefined); // awaited next turn; unobserved when the caller stops early
      }
      yield res;
      if (!more) break;
      // A list that changed under the walk explains repeated sets (sets leaving shift pages back): walk it again.
      if (!goesOn && changed !== undefined) break;
      if (!goesOn) {
        // Stopped, not failed: what was listed syncs and is kept. The watermark may advance only
        // when every set `total` announces was listed (and the list held still); otherwise the
        // next sync walks the same window again, so no set slips behind the watermark.
        const why = broughtNew ? `${maxTotal} sets fit in ${needed} page${needed === 1 ? '' : 's'}` : 'it brought no set not listed before';
        const complete = listed.size >= maxTotal;
        outcome.cutShort =
          `The service's list of accepted sets did not end: page ${page} still says has_more, but ${why}. ` +
          `The walk stopped there and syncs the ${listed.size} set${listed.size === 1 ? '' : 's'} listed` +
          (complete ? ` (all ${maxTotal} the service counts).` : ` of the ${maxTotal} the service counts; the next sync lists them again.`);
        outcome.stable = complete;
        onRetry?.(outcome.cutShort);
        return;
      }
    }
    outcome.stable = changed === undefined;
    if (outcome.stable) return;
    if (pass < MAX_PASSES) onRetry?.(`the list of accepted sets changed during the walk (total ${changed}); walking it again so no set is missed`);
  }
}
