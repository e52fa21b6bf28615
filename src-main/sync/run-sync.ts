// One sync (docs/contracts.md §1 and §4), behind the engine's face (engine.ts exports it as `sync`).
// runSync never rejects for expected failures: whole-sync failures come back as summary.fatal
// with an exit code. The engine receives what it uses (docs/contracts.md §7): the HTTP client, the
// clock its back-off waits on, the rate limiter every downloaded byte passes, the gate its queue
// waits at and the destinations; each has a default for real use.
import type { DeliveryClient } from '../api/delivery-client';
import type { SyncEvent, SyncOptions, SyncSummary } from '../../src-shared/sync-events';
import { noRateLimit, type RateLimiter } from './accounting';
import { systemClock, type Clock } from './clock';
import type { Destination } from './destination/destination';
import { rateLimiterFor } from './rate-limit';
import { SyncRun } from './run';
import { openGate, type PauseGate } from './task-pool';

export interface EngineDeps {
  /** Default: an undici client for options.baseUrl with options.apiKey. An injected client is not closed by the engine. */
  client?: DeliveryClient;
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: a token bucket for options.bwlimitBytesPerSecond (rate-limit.ts), else no limit. */
  limiter?: RateLimiter;
  /** Default: always open. Pass createPauseGate() to pause and resume the sync (no re-walk). */
  gate?: PauseGate;
  /**
   * Where the dataset goes. Default: the folder options.dest (destination/open.ts). An injected
   * destination is not closed by the engine; events and the summary name it by its label.
   */
  destination?: Destination;
  /** Where consent records go. Default: the folder options.consentsDir, else `DEST.consents` beside a folder. Not closed by the engine. */
  consents?: Destination;
  /** Where what leaves the dataset goes. Default: `DEST.withdrawn` (a bucket's `PREFIX.withdrawn/`, SDK credentials). Not closed by the engine. */
  withdrawn?: Destination;
}

export async function runSync(options: SyncOptions, onEvent: (e: SyncEvent) => void, deps: EngineDeps = {}): Promise<SyncSummary> {
  const clock = deps.clock ?? systemClock;
  const bw = options.bwlimitBytesPerSecond;
  // A bad value is reported by resolveOptions (exit 2); only a valid one makes a limiter.
  const fromOptions = typeof bw === 'number' && Number.isFinite(bw) && bw > 0 ? rateLimiterFor(bw, clock) : undefined;
  const run = new SyncRun(options, onEvent, {
    client: deps.client,
    clock,
    limiter: deps.limiter ?? fromOptions ?? noRateLimit,
    gate: deps.gate ?? openGate,
    destination: deps.destination,
    consents: deps.consents,
    withdrawn: deps.withdrawn,
  });
  return run.run();
}
