// The page walk over accepted sets (DESIGN 1.3): per_page=200, `updated_since` = watermark
// minus an overlap, pages fetched lazily so the caller's bounded queue sets the pace.
import type { DeliveryClient } from '../api/delivery-client';
import { ApiError } from '../api/errors';
import type { SetRecord } from '../../src-shared/delivery-api';
import { withRetry, type RetryPolicy } from './retry';

export const PER_PAGE = 200;
/** Sets committed while a walk ran, or sharing the watermark's instant, fall inside this window. */
export const WATERMARK_OVERLAP_MS = 5 * 60_000;
/** A guard against a server whose has_more never turns false. */
const MAX_PAGES = 100_000;

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

/** Filled in by walkAcceptedSets: `stable` is false when the list kept changing under the walk. */
export interface WalkOutcome {
  stable: boolean;
  passes: number;
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
): AsyncGenerator<SetRecord[]> {
  for (let pass = 1; pass <= MAX_PASSES; pass++) {
    outcome.passes = pass;
    let firstTotal: number | undefined;
    let changed: string | undefined;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const res = await withRetry(
        policy,
        () => client.listSets(collectionId, { status: 'accepted', updatedSince, page, perPage: PER_PAGE }, signal),
        { signal, onRetry: (n, e) => onRetry?.(`${e.message}; retry ${n}`) },
      );
      // A page larger than asked is outside the contract (per_page is 1 to 200): refuse it
      // rather than let one answer queue thousands of sets.
      const records = res.sets.length + res.rejected.length;
      if (records > PER_PAGE) {
        throw new ApiError('malformed', `GET /collections/${collectionId}/sets: page ${page} has ${records} sets, more than the ${PER_PAGE} asked for`);
      }
      // Interim (until the engine fails rejected sets one by one, issue 12): a rejected record still ends the walk.
      if (res.rejected.length > 0) {
        throw new ApiError('malformed', `GET /collections/${collectionId}/sets: unexpected answer: ${res.rejected[0]!.reason}`);
      }
      firstTotal ??= res.total;
      if (res.total !== firstTotal) changed ??= `${firstTotal} -> ${res.total}`;
      yield res.sets;
      // An empty page ends the walk even if has_more says otherwise (beyond-the-end behaviour is not shown).
      if (!res.has_more || res.sets.length === 0) break;
    }
    outcome.stable = changed === undefined;
    if (outcome.stable) return;
    if (pass < MAX_PASSES) onRetry?.(`the list of accepted sets changed during the walk (total ${changed}); walking it again so no set is missed`);
  }
}
