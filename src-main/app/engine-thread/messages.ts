// What the main thread and the engine thread (src-main/engine-worker.ts) say to each other. The
// engine runs in a worker thread so that its synchronous work (state reads, the disk check,
// zod parsing, better-sqlite3 queries, GC) never stalls the window's main process; the main
// thread only relays. Everything here crosses by structured clone: plain data only (no
// AbortSignal, no Destination, no functions). The bucket credentials cross too: worker threads
// share the process, so they stay in this process's memory; they are never logged.
import type { SyncEvent, SyncOptions, SyncSummary } from '../../../src-shared/sync-events';
import type { BucketCredentials, DestinationSpec } from '../../sync/engine';
import type { Shortfall } from '../space-check';

/** What the engine thread needs to open a bucket dataset's destinations itself (Destination objects cannot cross). */
export interface BucketRecipe {
  spec: DestinationSpec;
  credentials: BucketCredentials;
}

export interface StartMessage {
  type: 'start';
  kind: 'sync' | 'repair';
  options: Omit<SyncOptions, 'signal'>;
  /** Starts paused (the controller's gate was closed before the thread was up). */
  paused: boolean;
  bucket?: BucketRecipe;
  /** Watch the dataset folder's free space and hold before a file that would not fit (absent: never held). */
  watchSpace: boolean;
  /** A folder dataset: write the app's notes of the run (dataset-card.ts recordRunNotes) before answering done. */
  recordNotes: boolean;
  /** The main thread has a system proxy (useSystemProxy): ask it per origin. */
  systemProxy: boolean;
}

export type ToWorker =
  | StartMessage
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'abort' }
  | { type: 'proxy-answer'; id: number; answer: string }
  | { type: 'proxy-error'; id: number; message: string };

export type FromWorker =
  /** Engine events in the order emitted, a batch every few tens of ms (never one message per event). */
  | { type: 'events'; events: SyncEvent[] }
  /** The thread paused its own gate: what is left to download exceeds the free space. */
  | { type: 'held'; shortfall: Shortfall }
  | { type: 'proxy-ask'; id: number; url: string }
  | { type: 'proxy-notice'; message: string }
  | { type: 'done'; summary: SyncSummary }
  /** The engine threw (a bug: runSync resolves for every expected failure), or the start message was refused. */
  | { type: 'crash'; message: string; stack?: string };

/** Events are posted when this many are pending, or after EVENT_BATCH_MS, whichever comes first. */
export const EVENT_BATCH_SIZE = 1000;
export const EVENT_BATCH_MS = 25;
