import type { RequestRecord } from '../domain/request.js';
import type { RequestStore } from '../ports/request-store.js';
import type { ExecutionOutcome, Workflow } from '../ports/workflow.js';

/** Options of {@link withRecordPolling}. */
export interface RecordPollingOptions {
  /**
   * Milliseconds before the first read of the record; each later wait is `backoffRate` times
   * longer, up to `maxDelayMs`, and each is jittered (half to all of it).
   * @default 250
   */
  firstDelayMs?: number;
  /** @default 1.5 */
  backoffRate?: number;
  /** @default 5000 */
  maxDelayMs?: number;
  /**
   * Milliseconds between two questions to the workflow itself, for an execution that ended
   * without its record saying so (timed out, stopped, its last stage lost).
   * @default 60000
   */
  checkExecutionEveryMs?: number;
  /** Waits `ms` (tests inject it). @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
  /** Milliseconds now. @default Date.now */
  now?: () => number;
  /** A number in [0, 1). @default Math.random */
  random?: () => number;
}

/**
 * The request id an execution runs for. Executions are named after their request: the request
 * id for the first run, `<request id>-r<run>` for a resumed one (see `startParse`, `startRun`
 * and `recoverInterruptedParses`); the name is the execution id's last `:` segment.
 */
export function requestIdOfExecution(executionId: string): string {
  const name = executionId.slice(executionId.lastIndexOf(':') + 1);
  return name.replace(/-r\d+$/, '');
}

/**
 * `workflow` whose `wait` follows the request's record instead of the execution: it reads the
 * record with a jittered backoff (250 ms growing to 5 s by default) until the record has ended
 * (`completed`, `failed`, `cancelled`) for this execution, and asks the workflow only once a
 * minute whether the execution still runs. The stages end the record themselves (Deliver,
 * RecordFailure and its MarkFailed fallback, cancel), so every waiter costs one item read per
 * poll instead of a DescribeExecution a second, which is a per-account API quota shared by every
 * synchronous parse, batch item and resume in flight.
 *
 * The outcome is read from the record: `completed` is SUCCEEDED, `failed` is FAILED with the
 * recorded error's name and message, `cancelled` is ABORTED. An execution that the workflow
 * says has ended while its record has not is answered by the workflow's own `wait`.
 */
export function withRecordPolling(
  workflow: Workflow,
  requests: Pick<RequestStore, 'get'>,
  options: RecordPollingOptions = {},
): Workflow {
  const firstDelayMs = options.firstDelayMs ?? 250;
  const backoffRate = options.backoffRate ?? 1.5;
  const maxDelayMs = options.maxDelayMs ?? 5000;
  const checkEveryMs = options.checkExecutionEveryMs ?? 60_000;
  const sleep =
    options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;

  const wait = async (executionId: string): Promise<ExecutionOutcome> => {
    const requestId = requestIdOfExecution(executionId);
    let delay = firstDelayMs;
    let checkedAt = now();
    for (;;) {
      await sleep(delay * (0.5 + random() / 2));
      delay = Math.min(maxDelayMs, delay * backoffRate);
      const ended = endedOutcome(await requests.get(requestId), executionId);
      if (ended) return ended;
      if (now() - checkedAt >= checkEveryMs) {
        checkedAt = now();
        if (!(await workflow.running(executionId))) return workflow.wait(executionId);
      }
    }
  };

  return {
    executionIdFor: (requestId) => workflow.executionIdFor(requestId),
    start: (requestId, input) => workflow.start(requestId, input),
    wait,
    running: (executionId) => workflow.running(executionId),
    stop: (executionId) => workflow.stop(executionId),
  };
}

/** How the record says the execution ended, or undefined while it has not (for this run). */
function endedOutcome(
  record: RequestRecord | undefined,
  executionId: string,
): ExecutionOutcome | undefined {
  if (!record) return undefined;
  // A record claimed by another run (a resume) speaks for that run, not this one.
  if (record.executionId !== undefined && record.executionId !== executionId) return undefined;
  switch (record.status) {
    case 'completed':
      return { status: 'SUCCEEDED' };
    case 'failed':
      return {
        status: 'FAILED',
        error: record.error?.name ?? 'States.Runtime',
        cause: record.error?.message ?? '',
      };
    case 'cancelled':
      return { status: 'ABORTED' };
    case 'queued':
    case 'processing':
      return undefined;
  }
}
