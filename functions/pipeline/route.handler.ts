import { route } from '../core/domain/pipeline/route.js';
import { StageInput } from '../core/domain/pipeline/stage-input.js';
import { deps, type Deps } from '../container.js';
import { stageHandler } from './stage-handler.js';

/** Task state `Route`: runs {@link route}. */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  stageHandler(getDeps, 'Route', StageInput, (input, d, progress) => route(input, d, progress));

export const handler = createHandler(deps);
