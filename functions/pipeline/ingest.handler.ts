import { ingest } from '../core/domain/pipeline/ingest.js';
import { StageInput } from '../core/domain/pipeline/stage-input.js';
import { deps, type Deps } from '../container.js';
import { stageHandler } from './stage-handler.js';

/** Task state `Ingest`: runs {@link ingest}. */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  stageHandler(getDeps, 'Ingest', StageInput, (input, d, progress) => ingest(input, d, progress));

export const handler = createHandler(deps);
