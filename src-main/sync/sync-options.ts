// SyncOptions checked and resolved once, before anything is touched: a bad option is a
// configuration error (exit 2) with a message naming it.
import { BaseUrlError, validateBaseUrl } from '../api/base-url';
import { CONCURRENCY, concurrencySchema, DEFAULT_CONCURRENCY } from '../../src-shared/settings';
import type { SyncOptions } from '../../src-shared/sync-events';
import { isPositiveId } from './names';
import type { RetryPolicy } from './retry';
import { defaultHashWorkers, MAX_HASH_WORKERS } from './sha256-stream';

export class ConfigError extends Error {}

export interface RunSettings {
  /** Normalised (validateBaseUrl): the form recorded in the engine state. */
  baseUrl: string;
  /** options.dest as given: the run opens it through the registry (a folder by its absolute path). */
  dest: string;
  concurrency: number;
  policy: RetryPolicy;
  stallMs: number;
  progressIntervalMs: number;
  hashWorkers: number;
}

export function resolveOptions(o: SyncOptions): RunSettings {
  let baseUrl: string;
  try {
    baseUrl = validateBaseUrl(o.baseUrl);
  } catch (e) {
    throw new ConfigError(e instanceof BaseUrlError ? e.message : String(e));
  }
  if (!o.apiKey) throw new ConfigError('No API key given.');
  if (!isPositiveId(o.collectionId)) throw new ConfigError(`The collection id must be a positive integer, got ${String(o.collectionId)}.`);
  const concurrency = o.concurrency ?? DEFAULT_CONCURRENCY;
  if (!concurrencySchema.safeParse(concurrency).success) {
    throw new ConfigError(`Concurrency must be an integer from ${CONCURRENCY.min} to ${CONCURRENCY.max}, got ${concurrency}.`);
  }
  const bw = o.bwlimitBytesPerSecond;
  if (bw !== undefined && !(Number.isFinite(bw) && bw >= 0)) throw new ConfigError(`The bandwidth limit must be a number of bytes per second (0 = none), got ${String(bw)}.`);
  if (!o.dest) throw new ConfigError('No destination folder given.');
  const dest = o.dest;
  const t = o.tuning ?? {};
  const hashWorkers = t.hashWorkers ?? defaultHashWorkers();
  if (!Number.isInteger(hashWorkers) || hashWorkers < 0 || hashWorkers > MAX_HASH_WORKERS) {
    throw new ConfigError(`Hash workers must be an integer from 0 to ${MAX_HASH_WORKERS}, got ${hashWorkers}.`);
  }
  return {
    baseUrl,
    dest,
    concurrency,
    policy: { baseMs: t.retryBaseMs ?? 1000, maxAttempts: t.maxAttempts ?? 6, capMs: 30_000 },
    stallMs: t.stallTimeoutMs ?? 30_000,
    progressIntervalMs: t.progressIntervalMs ?? 250,
    hashWorkers,
  };
}
