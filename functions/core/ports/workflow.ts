/** Terminal outcome of one parse execution. */
export type ExecutionOutcome =
  | { status: 'SUCCEEDED' }
  | { status: 'FAILED'; error: string; cause: string }
  | { status: 'ABORTED' };

/** Starts and awaits executions of the parse state machine (`statemachine/parse-document.asl.json`). */
export interface Workflow {
  /**
   * The id of the execution for `requestId`, known before it starts: executions are named after
   * their request.
   */
  executionIdFor(requestId: string): string;
  /** Starts an execution named after `requestId` (idempotent per name) with `input` as its state. */
  start(requestId: string, input: Record<string, unknown>): Promise<{ executionId: string }>;
  /** Resolves when the execution ends. */
  wait(executionId: string): Promise<ExecutionOutcome>;
  /**
   * Whether the execution is still running here and now: false once it ended, and for an
   * execution this workflow does not know (locally: one of a process that has died).
   */
  running(executionId: string): Promise<boolean>;
  /** Stops a running execution; stopping a finished one is not an error. */
  stop(executionId: string): Promise<void>;
}
