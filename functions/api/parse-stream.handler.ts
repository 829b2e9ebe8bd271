import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';
import { SSE_TIMING, streamParse } from './parse-replies.js';
import { documentOf, parseOptionsOf, refreshesCache, submitterOf } from './parse-request.js';

/**
 * POST /v1/parse/stream: the upload form (a `file` part or an `upload_id`) plus
 * `extraction_schema`, answered with Server-Sent Events: every progress event of the parse as
 * it happens, then `result.final` with the full ParseResponse (spec §4, §6). A disconnecting
 * client loses nothing: the parse goes on and `GET /v1/parse/{id}` returns it.
 */
export const createHandler = (getDeps: () => Promise<Deps>, timing = SSE_TIMING) =>
  httpHandler(
    getDeps,
    endpoints.parseStream,
    async ({ form, query, file, caller, deps, headers }) => {
      return streamParse(
        deps,
        {
          ...submitterOf(caller),
          options: parseOptionsOf(form, query),
          extractionSchema: form.extraction_schema,
          refreshCache: refreshesCache(headers, form.invalidate_cache),
          ...documentOf(form.upload_id, file),
        },
        timing,
      );
    },
  );

export const handler = createHandler(deps);
