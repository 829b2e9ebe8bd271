import { resumeParse } from '../core/app/parse-control.js';
import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';
import { LONG_PARSE, replyWhenDone, type LongParseTiming } from './parse-replies.js';

/**
 * POST /v1/parse/{request_id}/resume: finishes the caller's parse from its checkpoints (only the
 * missing pages are parsed) and answers its full ParseResponse, like a synchronous upload (with
 * the same keepalive when it takes long). Concurrent resumes of one parse share one run and get
 * identical bodies. 404 for unknown or foreign ids, cancelled parses and parses without a
 * checkpoint.
 */
export const createHandler = (getDeps: () => Promise<Deps>, timing: LongParseTiming = LONG_PARSE) =>
  httpHandler(getDeps, endpoints.resumeParse, async ({ params, query, caller, deps, requestId }) =>
    replyWhenDone(
      resumeParse(deps, caller.tenant, params.request_id, query.include_warnings),
      timing,
      requestId,
    ),
  );

export const handler = createHandler(deps);
