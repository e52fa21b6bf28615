// What the parts of one sync share: where it writes, what it talks to, what it counts and how
// it reports. Built once by the run (run.ts) and handed to the per-set plan (set-plan.ts).
import type { DeliveryClient } from '../api/delivery-client';
import type { SyncEvent } from '../../src-shared/sync-events';
import type { Accounting } from './accounting';
import type { Clock } from './clock';
import type { RetryPolicy } from './retry';
import type { RunState } from './run-state';

export interface RunContext {
  readonly dest: string;
  readonly consentsDir: string;
  readonly excludeGold: boolean;
  readonly client: DeliveryClient;
  readonly policy: RetryPolicy;
  readonly hashWorkers: number;
  /** tuning.stallTimeoutMs: silence, or under 1 KiB/s, for this long aborts a transfer. */
  readonly stallMs: number;
  /** DEST's real path: a set folder must resolve under it when a file is moved in (transfer.ts). */
  readonly realDest: string;
  readonly clock: Clock;
  /** Aborted on cancel and on a fatal error. */
  readonly signal: AbortSignal;
  readonly accounting: Accounting;
  readonly state: RunState;
  /** Sets whose recorded files the start-of-sync check found missing or changed -> what is wrong (disk-check.ts). */
  readonly damaged: ReadonlyMap<number, string>;
  /** Sets whose folder a transfer found leading outside DEST (swapped for a link); their entries are checked again at the end. */
  readonly escaped: Set<number>;
  /** Folders under DEST made and checked (lstat, part by part) in this sync; see ensureRealDir. */
  readonly checkedDirs: Set<string>;
  emit(e: SyncEvent): void;
  /**
   * True when `e` ends the sync: a fatal error (recorded, and the sync aborted) or the abort
   * itself. Anything else is the caller's to report.
   */
  endsSync(e: unknown): boolean;
}
