import { verify } from '../core/domain/pipeline/verify.js';
import { StageInput } from '../core/domain/pipeline/stage-input.js';
import { deps, type Deps } from '../container.js';
import { stageHandler } from './stage-handler.js';

/** Task state `Verify`: runs {@link verify}. */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  stageHandler(getDeps, 'Verify', StageInput, (input, d) => verify(input, d));

export const handler = createHandler(deps);
