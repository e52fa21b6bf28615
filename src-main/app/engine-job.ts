// One sync or repair of the app, wherever it runs: in the engine thread (engine-worker.ts) or,
// where a seam cannot cross threads, in the main process (sync-controller.ts). Both ran the same
// steps side by side; they live here once: the free-space hold around the engine's events, the
// run itself, and the folder's notes after it.
import type { SyncEvent, SyncOptions, SyncSummary } from '../../src-shared/sync-events';
import type { ControllablePauseGate, EngineDeps } from '../sync/engine';
import { recordRunNotes } from './dataset-card';
import { SpaceCheck, SpaceHold, type Shortfall } from './space-check';

/** The destinations of a bucket dataset's run (absent: the engine opens the folders of `options`). */
export type RunDestinations = Pick<EngineDeps, 'destination' | 'consents' | 'withdrawn'>;

/** runSync or runRepair as the app calls them (SyncControllerDeps lets tests inject one). */
export type EngineRun = (options: SyncOptions, onEvent: (e: SyncEvent) => void, deps: { gate: ControllablePauseGate } & RunDestinations) => Promise<SyncSummary>;

export interface EngineJob {
  kind: 'sync' | 'repair';
  run: EngineRun;
  options: SyncOptions;
  gate: ControllablePauseGate;
  destinations?: RunDestinations;
  onEvent(event: SyncEvent): void;
  /** A folder not yet confirmed to fit: the run is held (the gate closed) when its bytes still to come outgrow the free space. */
  watchSpace?: { readFreeBytes: () => Promise<number | null>; onHeld: (shortfall: Shortfall) => void };
  /** A folder: the card's changes, "Last verified" and the history row's kind follow the run (dataset-card.ts). */
  recordNotes: boolean;
}

export async function runEngineJob(job: EngineJob): Promise<SyncSummary> {
  let hold: SpaceHold | undefined;
  if (job.watchSpace) {
    const check = new SpaceCheck(job.watchSpace.readFreeBytes);
    await check.prime();
    hold = new SpaceHold(check, job.gate, job.watchSpace.onHeld);
  }
  const onEvent = (event: SyncEvent) => {
    job.onEvent(event);
    hold?.observe(event);
  };
  const summary = await job.run(job.options, onEvent, { gate: job.gate, ...job.destinations });
  if (job.recordNotes) await recordRunNotes(job.options.dest, summary, job.kind);
  return summary;
}
