import { readFile } from 'node:fs/promises';
import {
  ExecutionAbortedError,
  StateMachine,
  type StateMachineDefinition,
} from 'aws-local-stepfunctions';
import type { ExecutionOutcome, Workflow } from '../../core/ports/workflow.js';

/** A Task state bound in-process: receives the state input, returns the state output. */
export type LocalTask = (input: unknown) => Promise<unknown>;

interface Running {
  abort: () => void;
  outcome: Promise<ExecutionOutcome>;
  ended: boolean;
}

/**
 * What aws-local-stepfunctions leaves out of the context object (`$$`) and the definition reads:
 * `State.EnteredTime`, here the time it is read (the state's Parameters are resolved as it is
 * entered).
 */
export function localContextObject(): Record<string, unknown> {
  return {
    State: {
      get EnteredTime() {
        return new Date().toISOString();
      },
    },
  };
}

/**
 * Runs the state machine's ASL file with aws-local-stepfunctions, each Task state bound to its
 * stage handler in the same process: the local stand-in for Step Functions (same definition, no
 * second copy of the orchestration).
 *
 * `${<State>Arn}` placeholders are substituted with local function ARNs, as CDK substitutes real
 * ones; other `${Name}` placeholders (the table name of a service integration) with
 * `substitutions[Name]`. Tasks are bound by state name, service integrations included: loaded by
 * `loadTasks` on first use, or given by {@link bindTasks} once their handlers' dependencies, which
 * the workflow is part of, exist.
 */
export class LocalStepFunctionsWorkflow implements Workflow {
  readonly #aslPath: string;
  readonly #loadTasks: (() => Promise<Record<string, LocalTask>>) | undefined;
  #tasks: Promise<Record<string, LocalTask>> | undefined;
  readonly #executions = new Map<string, Running>();
  readonly #substitutions: Readonly<Record<string, string>>;
  readonly #retryIntervals: Readonly<Record<string, number>> | undefined;
  #machine: Promise<StateMachine> | undefined;

  /**
   * @param retryIntervals milliseconds a state's Retry waits instead of its `IntervalSeconds`
   *   and backoff, by state name (tests run the definition's retries without their waits).
   */
  constructor(
    aslPath: string,
    loadTasks: (() => Promise<Record<string, LocalTask>>) | undefined,
    substitutions: Readonly<Record<string, string>> = {},
    retryIntervals?: Readonly<Record<string, number>>,
  ) {
    this.#aslPath = aslPath;
    this.#loadTasks = loadTasks;
    this.#substitutions = substitutions;
    this.#retryIntervals = retryIntervals;
  }

  /**
   * Binds the Task states of a workflow created without `loadTasks`.
   * @throws {Error} when its tasks are bound already.
   */
  bindTasks(tasks: Readonly<Record<string, LocalTask>>): void {
    if (this.#loadTasks !== undefined || this.#tasks !== undefined) {
      throw new Error('the workflow has its tasks already');
    }
    this.#tasks = Promise.resolve({ ...tasks });
  }

  /** {@inheritDoc Workflow.executionIdFor} */
  executionIdFor(requestId: string): string {
    return `local:parse-document:${requestId}`;
  }

  /**
   * Starts an execution named after `requestId`, once: as Step Functions' StartExecution is
   * idempotent per name, a second start of the same name (even one made while the first is
   * still loading the definition) starts nothing and answers the same execution id.
   * @throws {Error} when no tasks are bound (nothing is started).
   */
  async start(requestId: string, input: Record<string, unknown>): Promise<{ executionId: string }> {
    const executionId = this.executionIdFor(requestId);
    if (this.#executions.has(executionId)) return { executionId };
    // Claimed before the first await, so that concurrent starts of one name run it once.
    const stopping: { abort?: () => void; aborted: boolean } = { aborted: false };
    let started!: () => void;
    let failedToStart!: (error: unknown) => void;
    const starting = new Promise<void>((resolve, reject) => {
      started = resolve;
      failedToStart = reject;
    });
    const running: Running = {
      abort: () => {
        stopping.aborted = true;
        stopping.abort?.();
      },
      outcome: (async (): Promise<ExecutionOutcome> => {
        let machine: StateMachine;
        let tasks: Record<string, LocalTask>;
        try {
          ({ machine, tasks } = await this.#load());
        } catch (error) {
          this.#executions.delete(executionId);
          failedToStart(error);
          return { status: 'FAILED', error: 'States.Runtime', cause: String(error) };
        }
        if (stopping.aborted) {
          started();
          return { status: 'ABORTED' };
        }
        const run = machine.run(input as never, {
          context: localContextObject(),
          overrides: {
            taskResourceLocalHandlers: tasks as never,
            ...(this.#retryIntervals
              ? { retryIntervalOverrides: { ...this.#retryIntervals } }
              : {}),
          },
        });
        stopping.abort = run.abort;
        started();
        return run.result.then(
          (): ExecutionOutcome => ({ status: 'SUCCEEDED' }),
          (error: unknown): ExecutionOutcome => {
            if (error instanceof ExecutionAbortedError) return { status: 'ABORTED' };
            const cause = (error as { cause?: { name?: string; message?: string } }).cause;
            return {
              status: 'FAILED',
              error: cause?.name ?? 'States.Runtime',
              cause: cause?.message ?? String(error),
            };
          },
        );
      })(),
      ended: false,
    };
    this.#executions.set(executionId, running);
    void running.outcome.then(() => (running.ended = true));
    // Finished executions are forgotten after a while; their results live in the stores.
    void running.outcome.then(() =>
      setTimeout(() => this.#executions.delete(executionId), 60_000).unref(),
    );
    await starting;
    return { executionId };
  }

  async wait(executionId: string): Promise<ExecutionOutcome> {
    const running = this.#executions.get(executionId);
    if (!running) throw new Error(`no local execution ${executionId}`);
    return running.outcome;
  }

  /**
   * Parses the definition and loads the stage handlers now instead of on the first execution.
   * @throws {Error} when no tasks are bound.
   */
  async warmUp(): Promise<void> {
    await this.#load();
  }

  running(executionId: string): Promise<boolean> {
    const execution = this.#executions.get(executionId);
    return Promise.resolve(execution !== undefined && !execution.ended);
  }

  stop(executionId: string): Promise<void> {
    this.#executions.get(executionId)?.abort();
    return Promise.resolve();
  }

  async #load(): Promise<{ machine: StateMachine; tasks: Record<string, LocalTask> }> {
    this.#tasks ??= this.#loadTasks?.();
    if (this.#tasks === undefined) {
      throw new Error('no Task state is bound to the workflow: call bindTasks first');
    }
    const [machine, tasks] = await Promise.all([this.#parse(), this.#tasks]);
    return { machine, tasks };
  }

  #parse(): Promise<StateMachine> {
    // The definition is the repository's own file, checked against the ASL schema by the test
    // suite (`readLocalDefinition`); checking it at every start costs about a second of CPU.
    this.#machine ??= readLocalDefinition(this.#aslPath, this.#substitutions).then(
      (definition) => new StateMachine(definition, { validationOptions: { noValidate: true } }),
    );
    return this.#machine;
  }
}

/**
 * The ASL definition at `aslPath` as the local workflow runs it: `${<State>Arn}` placeholders
 * replaced by local function ARNs, other `${Name}` placeholders by `substitutions[Name]` (left as
 * they are when absent).
 * @throws {Error} when the file cannot be read or is not JSON.
 */
export async function readLocalDefinition(
  aslPath: string,
  substitutions: Readonly<Record<string, string>>,
): Promise<StateMachineDefinition> {
  const text = await readFile(aslPath, 'utf8');
  const substituted = text
    .replace(
      /\$\{(\w+)Arn\}/g,
      (_, state: string) => `arn:aws:lambda:us-east-1:000000000000:function:${state}`,
    )
    .replace(/\$\{(\w+)\}/g, (placeholder, name: string) =>
      JSON.stringify(substitutions[name] ?? placeholder).slice(1, -1),
    );
  return JSON.parse(substituted) as StateMachineDefinition;
}
