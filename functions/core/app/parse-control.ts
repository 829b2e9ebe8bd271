import { ConflictError, NotFoundError } from '../domain/errors.js';
import { refundPages } from '../domain/page-quota.js';
import { workKeys } from '../domain/object-keys.js';
import type { RequestRecord } from '../domain/request.js';
import type { ParseResponse } from '../domain/schemas.js';
import type { AppDeps } from './app-deps.js';
import { ownedRecord } from './parse-result-body.js';
import { failureOf } from './parse-upload.js';
import { readResult, resultView } from './stored-result.js';

/** Statuses of a parse that is still running (spec §3 "in-flight parse"). */
const IN_FLIGHT = ['queued', 'processing'] as const;

/** The 202 body of a cancel (spec §4: a JSON object of string values). */
export interface CancelReceipt {
  request_id: string;
  status: 'cancelled';
  detail: string;
}

/**
 * POST /v1/parse/{id}/cancel: stops an in-flight parse of `tenant`.
 *
 * 1. Marks the request `cancelled`, conditionally on its being `queued` or `processing`: of a
 *    cancel racing the parse's own end, exactly one wins.
 * 2. Stops the execution (StopExecution on AWS, abort locally). Stages that are already running
 *    check the status before each page and call no provider for a cancelled request.
 * 3. Deletes the page checkpoints, so a later resume answers 404.
 * 4. Gives back the reserved pages that were never parsed (`refundPages`): a page whose parse
 *    began before the cancel (checkpointed, or with a provider call in flight) stays counted
 *    against the tenant's daily quota, since the cancel does not undo its cost.
 *
 * @throws {NotFoundError} (404, identical for every case, spec §5) when the id is unknown,
 *   belongs to another tenant, or the parse is not in flight (completed, failed, cancelled).
 */
export async function cancelParse(
  deps: Pick<AppDeps, 'requests' | 'workflow' | 'clock' | 'usage'>,
  tenant: string,
  requestId: string,
): Promise<CancelReceipt> {
  const record = await ownedRecord(deps, tenant, requestId);
  let cancelled: RequestRecord;
  try {
    cancelled = await deps.requests.update(
      requestId,
      { status: 'cancelled', updatedAt: deps.clock.now().toISOString() },
      IN_FLIGHT,
    );
  } catch (error) {
    if (error instanceof ConflictError) throw notInFlight(requestId);
    throw error;
  }
  if (cancelled.executionId) await deps.workflow.stop(cancelled.executionId);
  await deps.requests.deletePages(requestId);
  await refundPages(deps, cancelled);
  return {
    request_id: record.id,
    status: 'cancelled',
    detail: 'the parse was stopped; its checkpoints are deleted and no result will be saved',
  };
}

/**
 * POST /v1/parse/{id}/resume: finishes a parse from its page checkpoints and returns the full
 * ParseResponse (saved again as the request's result).
 *
 * - A completed parse: its stored result.
 * - A parse whose run is still going: that run, waited for.
 * - Otherwise (a process that died mid-parse, a parse that failed after some pages): one new run
 *   of the pipeline, claimed with `RequestStore.claimRun` and started under a name derived from
 *   the run number, so that concurrent resumers start it once; ParsePage skips the pages that
 *   have a checkpoint, so only the missing ones are parsed. Every resumer waits for that run and
 *   reads the same stored result: all get identical bodies.
 *
 * @throws {NotFoundError} (404) when the id is unknown or another tenant's, when the parse was
 *   cancelled, or when no page checkpoint exists.
 * @throws the recorded failure (as `parseUpload` does) when the resumed run fails too.
 */
export async function resumeParse(
  deps: AppDeps,
  tenant: string,
  requestId: string,
  includeWarnings: boolean,
): Promise<ParseResponse> {
  let record = await ownedRecord(deps, tenant, requestId);
  if (record.status === 'cancelled') throw noCheckpoint(requestId, 'it was cancelled');
  if (record.status !== 'completed') {
    const checkpoints = await deps.requests.listPages(requestId);
    if (checkpoints.length === 0) throw noCheckpoint(requestId, 'no page has finished');
    // A run still going (the first, or another resumer's) is waited for, not started again.
    const live =
      record.executionId !== undefined && (await deps.workflow.running(record.executionId));
    const executionId =
      live && record.executionId ? record.executionId : await startRun(deps, record);
    await deps.workflow.wait(executionId);
    record = await ownedRecord(deps, tenant, requestId);
  }
  if (record.status === 'completed') {
    const key = record.resultKey ?? workKeys.resultJson(record.tenant, record.id);
    return resultView(await readResult(deps, key), includeWarnings);
  }
  if (record.status === 'failed' && record.error) throw failureOf(record.error);
  if (record.status === 'cancelled') throw noCheckpoint(requestId, 'it was cancelled');
  throw new Error(`the resumed parse ${requestId} ended in status ${record.status}`);
}

/**
 * Starts the request's next run and returns its execution id. Concurrent resumers of one record
 * compute the same run: one claims it (counter, status, execution id on the record) and all
 * start the same execution name, which starts it once (starting is idempotent per name).
 */
async function startRun(deps: AppDeps, record: RequestRecord): Promise<string> {
  const run = (record.runs ?? 0) + 1;
  const runName = `${record.id}-r${run}`;
  const executionId = deps.workflow.executionIdFor(runName);
  await deps.requests.claimRun(record.id, run, {
    status: 'queued',
    executionId,
    error: undefined,
    updatedAt: deps.clock.now().toISOString(),
  });
  await deps.workflow.start(runName, {
    requestId: record.id,
    settings: { pageConcurrency: deps.limits.pageConcurrency },
  });
  return executionId;
}

function notInFlight(requestId: string): NotFoundError {
  return new NotFoundError(
    `parse request ${requestId} is not in flight (completed, failed or cancelled already)`,
  );
}

function noCheckpoint(requestId: string, why: string): NotFoundError {
  return new NotFoundError(`parse request ${requestId} has no checkpoint to resume: ${why}`);
}
