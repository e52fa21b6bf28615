// The stages every sync runs, in order (stage.ts). A new stage is a module and a line here; the run,
// the per-set plan, the transfers, progress and the dataset index pick it up through the pipeline.
import { MediaStage } from '../media/media-stage';
import { StagePipeline } from './pipeline';
import type { StageContext } from './stage';

export function createStages(ctx: StageContext): StagePipeline {
  return new StagePipeline([new MediaStage(ctx)]);
}
