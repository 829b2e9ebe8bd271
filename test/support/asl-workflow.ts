import { join, resolve } from 'node:path';
import { localServiceTasks } from '../../functions/adapters/local/local-service-tasks.js';
import {
  LocalStepFunctionsWorkflow,
  type LocalTask,
} from '../../functions/adapters/local/local-workflow.js';
import type { Deps } from '../../functions/container.js';
import type { RequestStore } from '../../functions/core/ports/request-store.js';
import type { ExecutionOutcome, Workflow } from '../../functions/core/ports/workflow.js';
import { stageTasks } from '../../functions/local-runtime.js';
import { PARSE_DOCUMENT_ASL, serviceTasks, stages } from '../../functions/pipeline/stages.js';

const REPO_ROOT = resolve(import.meta.dirname, '../..');

/**
 * The parse state machine as the local service runs it: the ASL file under aws-local-stepfunctions,
 * each Task state bound to its stage handler module over the test's dependencies (its Retry and
 * Catch, the Map's concurrency, the service integrations' stand-ins), with the Retry waits cut to
 * nothing. It records, for tests, the inputs executions were started with and the Task states in
 * the order they ran (`ParsePage` once per page attempt).
 */
export class AslWorkflow implements Workflow {
  /** Task states in the order they were entered. */
  readonly ran: string[] = [];
  /** The input of each execution started. */
  readonly inputs: Record<string, unknown>[] = [];
  readonly #workflow = new LocalStepFunctionsWorkflow(
    join(REPO_ROOT, PARSE_DOCUMENT_ASL),
    undefined,
    {},
    Object.fromEntries([...stages.map((s) => s.state), ...serviceTasks].map((s) => [s, 0])),
  );

  /** Binds the Task states to the stage handlers over `getDeps()` and MarkFailed to `requests`. */
  async bind(getDeps: () => Promise<Deps>, requests: RequestStore): Promise<void> {
    const tasks: Record<string, LocalTask> = {
      ...(await stageTasks(getDeps)),
      ...localServiceTasks(requests),
    };
    this.#workflow.bindTasks(
      Object.fromEntries(
        Object.entries(tasks).map(([state, task]): [string, LocalTask] => [
          state,
          (input) => {
            this.ran.push(state);
            return task(input);
          },
        ]),
      ),
    );
  }

  executionIdFor(requestId: string): string {
    return this.#workflow.executionIdFor(requestId);
  }

  start(requestId: string, input: Record<string, unknown>): Promise<{ executionId: string }> {
    this.inputs.push(input);
    return this.#workflow.start(requestId, input);
  }

  running(executionId: string): Promise<boolean> {
    return this.#workflow.running(executionId);
  }

  wait(executionId: string): Promise<ExecutionOutcome> {
    return this.#workflow.wait(executionId);
  }

  stop(executionId: string): Promise<void> {
    return this.#workflow.stop(executionId);
  }
}
