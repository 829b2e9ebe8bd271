import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';
import { documentOf, refreshesCache, SSE_TIMING, streamParse } from './parse-upload.handler.js';

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
      const { upload_id: uploadId, extraction_schema: extractionSchema, ...rest } = form;
      const fields = {
        operation_mode: rest.operation_mode,
        maintain_format: rest.maintain_format,
        max_pages: rest.max_pages,
        enable_verification: rest.enable_verification,
        dpi: rest.dpi,
      };
      return streamParse(
        deps,
        {
          tenant: caller?.tenant ?? '',
          ...(caller ? { plan: caller.plan } : {}),
          options: { ...fields, ...query },
          extractionSchema,
          refreshCache: refreshesCache(headers, rest.invalidate_cache),
          ...documentOf(uploadId, file),
        },
        timing,
      );
    },
  );

export const handler = createHandler(deps);
