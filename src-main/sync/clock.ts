// Time as the engine sees it: back-off waits, the state-save interval, progress rates and the
// summary's timestamps. Injected (runSync's deps) so a test can run retries without waiting.
import { setTimeout as sleep } from 'node:timers/promises';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with an AbortError when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleep(ms, undefined, { signal }),
};
