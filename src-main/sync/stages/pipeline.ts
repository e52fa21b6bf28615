// The stages of one sync, as one (stage.ts): the transfers, the per-set plan, the run's end and
// progress talk to this object and never name a stage. A download's bytes go to every stage's tap
// at once; each stage gets back its own tap when the file is verified.
import type { Stage, StageFile, StageWork, StreamTap, VerifiedHow } from './stage';

/** The taps of one attempt at a body, one per stage (undefined where a stage did not ask for the bytes). */
export class StageTaps implements StreamTap {
  private open: StreamTap[];

  constructor(readonly byStage: ReadonlyArray<StreamTap | undefined>) {
    this.open = byStage.filter((t): t is StreamTap => t !== undefined);
  }

  get done(): boolean {
    return this.open.length === 0;
  }

  push(chunk: Buffer): void {
    let finished = false;
    for (const tap of this.open) {
      tap.push(chunk);
      if (tap.done) finished = true;
    }
    if (finished) this.open = this.open.filter((t) => !t.done);
  }
}

export class StagePipeline {
  constructor(readonly stages: readonly Stage[]) {}

  /** Taps for one attempt at the file's body; undefined when no stage wants the bytes (the transfer then hands them to nobody). */
  taps(file: StageFile): StageTaps | undefined {
    let any = false;
    const byStage = this.stages.map((s) => {
      const tap = s.tap?.(file);
      if (tap) any = true;
      return tap;
    });
    return any ? new StageTaps(byStage) : undefined;
  }

  verified(file: StageFile, how: VerifiedHow, taps: StageTaps | undefined): void {
    this.stages.forEach((s, i) => s.verified(file, how, taps?.byStage[i]));
  }

  start(): void {
    for (const s of this.stages) s.start?.();
  }

  /** Every stage's own work, summed (progress: the stages' share of the bar). */
  work(): StageWork {
    let done = 0;
    let total = 0;
    for (const s of this.stages) {
      const w = s.work();
      done += w.done;
      total += w.total;
    }
    return { done, total };
  }

  async finish(): Promise<void> {
    await Promise.all(this.stages.map((s) => s.finish()));
  }

  get datasetFiles() {
    return this.stages.flatMap((s) => s.datasetFiles);
  }
}
