// Timestamps of the service: ISO 8601 UTC with milliseconds, e.g. 2026-03-02T09:15:00.000Z.

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * Wall clock for mutations that never goes backwards and never repeats a millisecond, so
 * two admin changes in quick succession still get distinct, ordered updated_at values.
 * (Seeded data shares timestamps on purpose; live changes need not add to that.)
 */
export function createMonotonicClock(): () => number {
  let last = 0;
  return () => {
    const now = Math.max(Date.now(), last + 1);
    last = now;
    return now;
  };
}
