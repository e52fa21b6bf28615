// What the parts of one sync share: where it writes, what it talks to, what it counts and how
// it reports. Built once by the run (run.ts) and handed to the per-set plan (set-plan.ts).
import type { DeliveryClient } from '../api/delivery-client';
import type { SyncEvent } from '../../src-shared/sync-events';
import type { Accounting } from './accounting';
import type { Clock } from './clock';
import type { Destination } from './destination/destination';
import type { RetryPolicy } from './retry';
import type { RunState } from './run-state';
import type { Subset } from './subset';
import type { StagePipeline } from './stages/pipeline';
import type { InFlight } from './in-flight';

export interface RunContext {
  /** Where the dataset goes; the engine reaches it only through the Destination interface. */
  readonly dest: Destination;
  /** Where consent records go (never inside dest). */
  readonly consents: Destination;
  /** Where what leaves the dataset goes (DEST.withdrawn, PREFIX.withdrawn/; withdraw.ts). */
  readonly withdrawn: Destination;
  /** The part of the collection the dataset holds (subset.ts). */
  readonly subset: Subset;
  readonly excludeGold: boolean;
  readonly client: DeliveryClient;
  readonly policy: RetryPolicy;
  readonly hashWorkers: number;
  /** tuning.stallTimeoutMs: silence, or under 1 KiB/s, for this long aborts a transfer. */
  readonly stallMs: number;
  readonly clock: Clock;
  /** Aborted on cancel and on a fatal error. */
  readonly signal: AbortSignal;
  readonly accounting: Accounting;
  readonly state: RunState;
  /** Sets whose recorded files the start-of-sync check found missing or changed -> what is wrong (disk-check.ts). */
  readonly damaged: ReadonlyMap<number, string>;
  /** Sets whose folder a transfer found leading outside DEST (swapped for a link); their entries are checked again at the end. */
  readonly escaped: Set<number>;
  /** set.json writes and file removals the sets did not wait for (in-flight.ts); the run waits for them before the index. */
  readonly inFlight: InFlight;
  /** The stages every verified file goes through (stages/: the media check), told of each file as it is verified. */
  readonly stages: StagePipeline;
  emit(e: SyncEvent): void;
  /**
   * True when `e` ends the sync: a fatal error (recorded, and the sync aborted) or the abort
   * itself. Anything else is the caller's to report.
   */
  endsSync(e: unknown): boolean;
}
