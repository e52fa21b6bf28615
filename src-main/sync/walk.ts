// The page walk over accepted sets (DESIGN 1.3): per_page=200, `updated_since` = watermark
// minus an overlap, pages fetched lazily so the caller's bounded queue sets the pace.
import type { DeliveryClient } from '../api/delivery-client';
import type { SetRecord } from '../api/types';
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

export async function* walkAcceptedSets(
  client: DeliveryClient,
  collectionId: number,
  updatedSince: string | undefined,
  policy: RetryPolicy,
  signal: AbortSignal,
  onRetry?: (message: string) => void,
): AsyncGenerator<SetRecord[]> {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const res = await withRetry(
      policy,
      () => client.listSets(collectionId, { status: 'accepted', updatedSince, page, perPage: PER_PAGE }, signal),
      { signal, onRetry: (n, e) => onRetry?.(`${e.message}; retry ${n}`) },
    );
    yield res.sets;
    // An empty page ends the walk even if has_more says otherwise (beyond-the-end behaviour is not shown).
    if (!res.has_more || res.sets.length === 0) return;
  }
}
