import { recordFailure } from '../core/domain/pipeline/record-failure.js';
import { FailureStageInput } from '../core/domain/pipeline/stage-input.js';
import { deps, type Deps } from '../container.js';
import { stageHandler } from './stage-handler.js';

/** Task state `RecordFailure`: runs {@link recordFailure}. */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  stageHandler(getDeps, 'RecordFailure', FailureStageInput, (input, d) => recordFailure(input, d));

export const handler = createHandler(deps);
