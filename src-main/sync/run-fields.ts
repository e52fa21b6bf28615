// The run as its parts see it (run-open.ts, run-walk.ts, run-finish.ts: functions of the run in
// their own files), and what a run takes from outside. Apart from run.ts so that the parts depend
// on this shape and run.ts on them, never the other way round (test/tooling/import-cycles.test.ts).
import type { DeliveryClient } from '../api/delivery-client';
import type { SyncEvent, SyncOptions } from '../../src-shared/sync-events';
import type { Accounting, RateLimiter } from './accounting';
import type { Clock } from './clock';
import type { Destination } from './destination/destination';
import type { DiskCheck } from './disk-check';
import type { FolderOwner } from './folder-binding';
import type { InFlight } from './in-flight';
import type { Fatal } from './outcome';
import type { ProgressTracker } from './progress';
import type { RunState } from './run-state';
import type { StagePipeline } from './stages/pipeline';
import type { RunSettings } from './sync-options';
import type { PauseGate } from './task-pool';

/** What a run uses from outside; engine.ts fills in the defaults. */
export interface RunDeps {
  /** When given, the caller owns it (the run does not close it). */
  client?: DeliveryClient;
  clock: Clock;
  limiter: RateLimiter;
  gate: PauseGate;
  /** When given, the caller owns it (the run neither opens nor closes it); else the folder options.dest. */
  destination?: Destination;
  /** When given, the caller owns it; else the folder options.consentsDir or `DEST.consents`. */
  consents?: Destination;
  /** When given, the caller owns it; else `DEST.withdrawn` (a bucket's `PREFIX.withdrawn/`). */
  withdrawn?: Destination;
}

/** One run's fields and its few shared acts (SyncRun in run.ts is the one implementation). */
export interface RunFields {
  readonly options: SyncOptions;
  readonly deps: RunDeps;
  readonly startedAt: number;
  readonly accounting: Accounting;
  /** Sets planned in this run: the overlap window repeats sets, each is planned once. */
  readonly seen: Set<number>;
  fatal: Fatal | undefined;
  settings: RunSettings | undefined;
  dest: Destination | undefined;
  consents: Destination | undefined;
  withdrawn: Destination | undefined;
  leftAccepted: Promise<Map<number, string>> | undefined;
  state: RunState | undefined;
  client: DeliveryClient | undefined;
  maxUpdatedAt: string | null;
  readonly escaped: Set<number>;
  readonly inFlight: InFlight;
  repairSets: number[] | undefined;
  unidentifiedReject: boolean;
  diskCheck: DiskCheck | undefined;
  progress: ProgressTracker | undefined;
  stages: StagePipeline | undefined;
  ownerToBind: FolderOwner | undefined;
  readonly signal: AbortSignal;
  emit(e: SyncEvent): void;
  setFatal(f: Fatal): void;
  endsSync(e: unknown): boolean;
}
