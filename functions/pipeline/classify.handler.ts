import { classify } from '../core/domain/pipeline/classify.js';
import { StageInput } from '../core/domain/pipeline/stage-input.js';
import { deps, type Deps } from '../container.js';
import { stageHandler } from './stage-handler.js';

/** Task state `Classify`: runs {@link classify}. */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  stageHandler(getDeps, 'Classify', StageInput, (input, d, progress) =>
    classify(input, d, progress),
  );

export const handler = createHandler(deps);
