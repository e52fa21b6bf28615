// The two work queues of a sync and what a request costs in them (README "Latency"):
// - transfers: the user's `concurrency` is the number of large files transferred at once. A small
//   file costs a fraction of such a slot, so more small files are in flight (their time is mostly
//   round trips, not bandwidth) while large ones never run more than `concurrency` at a time;
// - consents: small JSON requests on a pool of their own, so they never wait behind (nor hold) a
//   transfer slot, and a set's consents go out in parallel.
import { TaskPool, type PauseGate } from './task-pool';

/** A file at least this large takes a whole transfer slot. */
export const LARGE_FILE_BYTES = 1024 * 1024;
/**
 * Consent requests in flight at once: four times a slot's small files. A set has up to two
 * consents for four files, so at a long round trip a smaller pool would finish after the files.
 * And a consent holds its place until its record is written, so the pool paces the walk: with
 * twice a slot's files (8 over HTTP/1.1) a first sync of small files had half of its places
 * empty on average; with 16 (and the file writer's held batches) it took 10.6 s instead of
 * 11.4 s at 10,000 sets (bench/NOTES.md).
 */
export function consentRequests(multiplexed: boolean): number {
  return 4 * requestsPerSlot(multiplexed);
}

/**
 * Small files per transfer slot. Over HTTP/1.1 each request in flight is a connection (a
 * handshake, its own slow start), so 4; over HTTP/2 they are streams of one connection, so 8.
 */
export function requestsPerSlot(multiplexed: boolean): number {
  return multiplexed ? 8 : 4;
}

/** The cost of a file in transfer units (a slot is `perSlot` units): its share of a large file, at least one unit. */
export function transferCost(sizeBytes: number, perSlot: number): number {
  return Math.min(perSlot, Math.max(1, Math.ceil((sizeBytes * perSlot) / LARGE_FILE_BYTES)));
}

/** Connections the HTTP client may open: every transfer and consent request in flight, plus the page walk's. */
export function connectionsFor(concurrency: number, multiplexed: boolean): number {
  return concurrency * requestsPerSlot(multiplexed) + consentRequests(multiplexed) + 2;
}

/**
 * Verified bytes that may wait for their commit to the local disk after their download gave its
 * transfer slot back (file-download.ts): past this, a download keeps its slot until its commit ends, so
 * small files held in memory (memory-upload.ts) stay bounded when the disk is slower than the network.
 */
export const COMMITTING_BYTES_MAX = 16 * 1024 * 1024;

export interface SyncPools {
  transfers: TaskPool;
  consents: TaskPool;
  /** Units of one transfer slot (transferCost). */
  perSlot: number;
  /** Bytes of the downloads committing after their slot was given back (at most COMMITTING_BYTES_MAX). */
  committing: { bytes: number };
}

export function createSyncPools(concurrency: number, multiplexed: boolean, gate: PauseGate, signal: AbortSignal): SyncPools {
  const perSlot = requestsPerSlot(multiplexed);
  return {
    // Queued ahead: enough small files to refill every unit twice.
    transfers: new TaskPool(concurrency * perSlot, concurrency * perSlot * 2, gate, signal),
    consents: new TaskPool(consentRequests(multiplexed), consentRequests(multiplexed) * 8, gate, signal),
    perSlot,
    committing: { bytes: 0 },
  };
}

/** Resolves once both queues are empty and nothing runs. */
export async function poolsIdle(pools: SyncPools): Promise<void> {
  // A consent task never queues a transfer nor the reverse, so one pass over each suffices.
  await pools.transfers.idle();
  await pools.consents.idle();
}
