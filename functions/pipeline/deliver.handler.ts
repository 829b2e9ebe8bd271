import { deliver } from '../core/domain/pipeline/deliver.js';
import { StageInput } from '../core/domain/pipeline/stage-input.js';
import { deps, type Deps } from '../container.js';
import { stageHandler } from './stage-handler.js';

/** Task state `Deliver`: runs {@link deliver}. */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  stageHandler(getDeps, 'Deliver', StageInput, (input, d, progress) => deliver(input, d, progress));

export const handler = createHandler(deps);
