import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  StartExecutionCommand,
  StopExecutionCommand,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import type { ExecutionOutcome, Workflow } from '../../core/ports/workflow.js';

/** Options of {@link StepFunctionsWorkflow}. */
export interface StepFunctionsWorkflowOptions {
  /**
   * Milliseconds between two status reads while `wait` follows an execution.
   * @default 1000
   */
  pollIntervalMs?: number;
}

/**
 * The parse state machine on AWS Step Functions (STANDARD). Executions are named after their
 * request, so their ARN is known before they start and a second start of the same request is
 * the same execution.
 */
export class StepFunctionsWorkflow implements Workflow {
  readonly #client: SFNClient;
  readonly #stateMachineArn: string;
  readonly #pollIntervalMs: number;

  /**
   * @param stateMachineArn `arn:<partition>:states:<region>:<account>:stateMachine:<name>`.
   * @throws {Error} when `stateMachineArn` is not a state machine ARN.
   */
  constructor(
    client: SFNClient,
    stateMachineArn: string,
    options: StepFunctionsWorkflowOptions = {},
  ) {
    if (!/^arn:[\w-]+:states:[\w-]+:\d{12}:stateMachine:[\w-]+$/.test(stateMachineArn)) {
      throw new Error(`not a state machine ARN: ${stateMachineArn}`);
    }
    this.#client = client;
    this.#stateMachineArn = stateMachineArn;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1000;
  }

  /** {@inheritDoc Workflow.executionIdFor} */
  executionIdFor(requestId: string): string {
    return `${this.#stateMachineArn.replace(':stateMachine:', ':execution:')}:${requestId}`;
  }

  /**
   * Starts the execution named `requestId`; starting it again returns the same execution.
   * @throws the service's error for an invalid name or input, throttling and the like.
   */
  async start(requestId: string, input: Record<string, unknown>): Promise<{ executionId: string }> {
    try {
      const { executionArn } = await this.#client.send(
        new StartExecutionCommand({
          stateMachineArn: this.#stateMachineArn,
          name: requestId,
          input: JSON.stringify(input),
        }),
      );
      return { executionId: executionArn ?? this.executionIdFor(requestId) };
    } catch (error) {
      // Started before with another input (a retried request): it is the same execution.
      if (error instanceof ExecutionAlreadyExists) {
        return { executionId: this.executionIdFor(requestId) };
      }
      throw error;
    }
  }

  /** Reads the execution's status every `pollIntervalMs` until it ends. */
  async wait(executionId: string): Promise<ExecutionOutcome> {
    for (;;) {
      const { status, error, cause } = await this.#client.send(
        new DescribeExecutionCommand({ executionArn: executionId }),
      );
      switch (status) {
        case 'SUCCEEDED':
          return { status: 'SUCCEEDED' };
        case 'FAILED':
        case 'TIMED_OUT':
          return {
            status: 'FAILED',
            error: error ?? (status === 'TIMED_OUT' ? 'States.Timeout' : 'States.Runtime'),
            cause: cause ?? '',
          };
        case 'ABORTED':
          return { status: 'ABORTED' };
        case 'RUNNING':
        case 'PENDING_REDRIVE':
        case undefined:
          await new Promise((wake) => setTimeout(wake, this.#pollIntervalMs));
      }
    }
  }

  /** Whether DescribeExecution reads RUNNING; false for an execution that does not exist. */
  async running(executionId: string): Promise<boolean> {
    try {
      const { status } = await this.#client.send(
        new DescribeExecutionCommand({ executionArn: executionId }),
      );
      return status === 'RUNNING';
    } catch (error) {
      if (error instanceof ExecutionDoesNotExist) return false;
      throw error;
    }
  }

  /** Stops the execution (Step Functions accepts stopping a finished one). */
  async stop(executionId: string): Promise<void> {
    await this.#client.send(
      new StopExecutionCommand({ executionArn: executionId, cause: 'cancelled by the client' }),
    );
  }
}
