// Back-off for retryable failures (5xx, 429, network): exponential with full jitter, honouring
// Retry-After when the server gives one.
import { ApiError, isApiError } from '../api/errors';
import { systemClock, type Clock } from './clock';

export interface RetryPolicy {
  baseMs: number;
  maxAttempts: number;
  capMs: number;
  /** Whose time the back-off waits on; the system clock unless a test injects one. */
  clock?: Clock;
  /** Told of every back-off before it starts (the walk's progress shows a countdown). */
  onBackoff?: (attempt: number, maxAttempts: number, delayMs: number) => void;
}

export function retryDelayMs(policy: RetryPolicy, attempt: number, retryAfterSeconds?: number): number {
  if (retryAfterSeconds !== undefined) return Math.min(retryAfterSeconds * 1000, 5 * 60_000);
  const exp = Math.min(policy.capMs, policy.baseMs * 2 ** (attempt - 1));
  // Half fixed, half random: spreads parallel clients without ever retrying instantly.
  return exp / 2 + Math.random() * (exp / 2);
}

export async function backoff(policy: RetryPolicy, attempt: number, err: unknown, signal?: AbortSignal): Promise<void> {
  const ra = isApiError(err) ? err.retryAfterSeconds : undefined;
  const ms = retryDelayMs(policy, attempt, ra);
  policy.onBackoff?.(attempt, policy.maxAttempts, ms);
  await (policy.clock ?? systemClock).sleep(ms, signal);
}

export function isRetryable(e: unknown): boolean {
  return isApiError(e) && e.retryable;
}

/** Runs `fn` until it succeeds, fails with a non-retryable error or runs out of attempts. */
export async function withRetry<T>(
  policy: RetryPolicy,
  fn: () => Promise<T>,
  opts: { signal?: AbortSignal; onRetry?: (attempt: number, err: ApiError) => void } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!isRetryable(e) || attempt >= policy.maxAttempts || opts.signal?.aborted) throw e;
      opts.onRetry?.(attempt, e as ApiError);
      await backoff(policy, attempt, e, opts.signal);
    }
  }
}
