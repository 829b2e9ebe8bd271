import { parsePage } from '../core/domain/pipeline/parse-page.js';
import { PageStageInput } from '../core/domain/pipeline/stage-input.js';
import { deps, type Deps } from '../container.js';
import { stageHandler } from './stage-handler.js';

/** Task state `ParsePage`: runs {@link parsePage}. */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  stageHandler(getDeps, 'ParsePage', PageStageInput, (input, d, progress) =>
    parsePage(input, d, progress),
  );

export const handler = createHandler(deps);
