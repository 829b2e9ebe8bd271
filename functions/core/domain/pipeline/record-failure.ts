import { ConflictError, ERROR_KIND_BY_NAME, isRefusal } from '../errors.js';
import { refundPages } from '../page-quota.js';
import { announceFinished } from './announce.js';
import type { FailureStageInput } from './stage-input.js';
import type { PipelinePorts } from '../../ports/pipeline.js';

/**
 * RecordFailure: the state machine's Catch target. Marks the request failed with the caught
 * error's name, kind (from its name; unknown names are server errors) and message, so the API
 * answers with the matching status, gives the reserved pages that were never parsed back to the
 * tenant's daily quota (`refundPages`, at most once: pages charged before the failure, a failed
 * Deliver's included, stay counted), queues the `parse.failed` webhook event when the
 * request has a webhook, and then deletes the stored original of a document the pipeline refused
 * (400, 413, 422, see `isRefusal`) before any page finished: nothing can parse or resume it, and
 * it would otherwise stay until the uploads expire. A refusal after some pages finished keeps it
 * for `POST /v1/parse/{id}/resume`; transient and internal failures keep it too. Returns the
 * error for the Fail state.
 */
export async function recordFailure(
  input: FailureStageInput,
  ports: Pick<PipelinePorts, 'requests' | 'clock' | 'webhooks' | 'usage' | 'objects'>,
): Promise<{ requestId: string; error: string; cause: string }> {
  const name = input.failure.Error;
  // Local runs (aws-local-stepfunctions) give a timeout no cause beyond its own name.
  const message =
    name === 'States.Timeout' && input.failure.Cause === name
      ? STAGE_TIMEOUT_DETAIL
      : causeMessage(input.failure.Cause);
  const kind = Object.hasOwn(ERROR_KIND_BY_NAME, name)
    ? (ERROR_KIND_BY_NAME[name] ?? 'internal')
    : 'internal';
  let failed;
  try {
    // A cancelled request stays cancelled: the cancel has given its pages back already.
    failed = await ports.requests.update(
      input.requestId,
      {
        status: 'failed',
        error: { name, kind, message },
        updatedAt: ports.clock.now().toISOString(),
      },
      ['queued', 'processing', 'failed'],
    );
  } catch (error) {
    if (error instanceof ConflictError)
      return { requestId: input.requestId, error: name, cause: message };
    throw error;
  }
  // Checked here first so that a request that reserved nothing costs no further read.
  if (failed.reservedPages) await refundPages(ports, failed);
  // Internal failures are not described to the receiver beyond their kind.
  const detail = kind === 'internal' ? 'the parse failed' : message;
  await announceFinished(ports, failed, { status: 'failed', error: { kind, detail } });
  if (isRefusal(kind) && (await ports.requests.listPages(failed.id)).length === 0) {
    // Best effort: the retention rules remove what a failed delete leaves.
    await ports.objects.delete(failed.document.key).catch(() => undefined);
  }
  return { requestId: input.requestId, error: name, cause: message };
}

/**
 * The detail of a stage that ran past its task timeout (`States.Timeout`, kind `unavailable`:
 * 503, the original is kept so the parse can be resumed). The engines' own per-page budgets
 * (`PDF_PAGE_TIMEOUT_MS`) normally end a slow page first, with a 422 naming it.
 */
const STAGE_TIMEOUT_DETAIL =
  'the parse took longer than a pipeline stage may take (its task timeout): a page of the document is too complex to read, render or recognise in time';

/** Lambda failures carry `{"errorMessage": ...}` as their cause; local runs carry the message. */
function causeMessage(cause: string | undefined): string {
  if (!cause) return 'the pipeline failed';
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === 'string') return parsed.errorMessage;
  } catch {
    // a plain message
  }
  return cause;
}
