import { ConflictError, NotFoundError } from '../domain/errors.js';
import { recordFailure } from '../domain/pipeline/record-failure.js';
import type { RequestRecord, RequestStatus } from '../domain/request.js';
import type { AppDeps } from './app-deps.js';

/** Statuses of a parse that some run is (or was, before the server stopped) working on. */
export const IN_FLIGHT_STATUSES: readonly RequestStatus[] = ['queued', 'processing'];

/** The error name recorded for a parse whose restarted run was interrupted again. */
export const PARSE_INTERRUPTED = 'ParseInterruptedError';

/** What {@link recoverInterruptedParses} did with one request. */
export interface RecoveryOutcome {
  requestId: string;
  /**
   * `restarted`: its interrupted run started again; `failed`: marked failed (its restart was
   * interrupted too); `skipped`: not in flight any more, or its run is going.
   */
  action: 'restarted' | 'failed' | 'skipped';
}

/**
 * Parses a server left `queued` or `processing` when it stopped (a crash, SIGKILL): called once
 * at start by a server that is the only runner of its requests (the local server), with the ids
 * of the requests in flight in its store. For each:
 * 1. a request that is no longer in flight, or whose run is going, is skipped;
 * 2. a run never restarted is restarted under its own execution name (the first run's name is
 *    the request id, a resume's `<id>-r<run>`, as `startParse` and `resumeParse` name them), so
 *    that a batch consumer or a `POST /v1/parse/{id}/resume` arriving meanwhile joins the same
 *    execution; ParsePage skips the pages that have a checkpoint, so only the missing ones are
 *    parsed. The restart is noted on the record (`restartedRun`);
 * 3. a run restarted once already (the server stopped again during it: the document may be what
 *    stops it) is not restarted again: the request is marked failed through RecordFailure (page
 *    reservation given back, webhook announced) with kind `unavailable` (503) and a detail
 *    saying it can be resumed with `POST /v1/parse/{id}/resume`.
 *
 * No status is left `processing` with nothing running.
 * @returns one outcome per id, in order.
 * @throws the store's and workflow's errors.
 */
export async function recoverInterruptedParses(
  deps: AppDeps,
  requestIds: readonly string[],
): Promise<RecoveryOutcome[]> {
  const outcomes: RecoveryOutcome[] = [];
  for (const requestId of requestIds) {
    outcomes.push({ requestId, action: await recoverOne(deps, requestId) });
  }
  return outcomes;
}

async function recoverOne(deps: AppDeps, requestId: string): Promise<RecoveryOutcome['action']> {
  const record = await deps.requests.get(requestId);
  if (!record || !IN_FLIGHT_STATUSES.includes(record.status)) return 'skipped';
  if (record.executionId !== undefined && (await deps.workflow.running(record.executionId))) {
    return 'skipped';
  }
  const run = record.runs ?? 0;
  if (record.restartedRun === run) {
    await recordFailure(
      {
        requestId,
        failure: {
          Error: PARSE_INTERRUPTED,
          Cause: `the parse was interrupted twice by a server stop (it was restarted once automatically); resume it with POST /v1/parse/${requestId}/resume, which parses only the pages not yet done`,
        },
      },
      deps,
    );
    return 'failed';
  }
  try {
    await deps.requests.update(
      requestId,
      // `runs` set (0 for the first run) makes Route leave out the checkpointed pages.
      { restartedRun: run, runs: run, updatedAt: deps.clock.now().toISOString() },
      [record.status],
    );
  } catch (error) {
    // Cancelled, finished or removed meanwhile: nothing to restart.
    if (error instanceof ConflictError || error instanceof NotFoundError) return 'skipped';
    throw error;
  }
  await deps.workflow.start(runName(record, run), {
    requestId,
    settings: { pageConcurrency: deps.limits.pageConcurrency },
  });
  return 'restarted';
}

/** The execution name of the request's run `run` (see `startParse`, `resumeParse`). */
function runName(record: RequestRecord, run: number): string {
  return run === 0 ? record.id : `${record.id}-r${String(run)}`;
}
