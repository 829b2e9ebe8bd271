import { parseUpload } from '../core/app/parse-upload.js';
import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';
import { LONG_PARSE, replyWhenDone, streamParse, type LongParseTiming } from './parse-replies.js';
import {
  documentOf,
  parseOptionsOf,
  refreshesCache,
  submitterOf,
  wantsEventStream,
} from './parse-request.js';

/**
 * POST /v1/parse/upload: multipart upload, synchronous ParseResponse, or Server-Sent Events when
 * the client sends `Accept: text/event-stream` (see `streamParse`). The document is either the
 * `file` part or, for files above the gateway's limit, the `upload_id` of an upload slot
 * (POST /v1/uploads) the file was sent to; exactly one of the two (400 otherwise). An unknown,
 * unsent or foreign `upload_id` answers 404.
 *
 * The response streams (Lambda response streaming): a parse that ends within `commitAfterMs`
 * is answered as usual, with the status of its outcome. A longer one is answered 200 at that
 * point, then spaces every `keepaliveMs`, then the ParseResponse; if it then fails, the body is
 * `{"detail", "request_id", "status"}` under that 200 (see `lateErrorBody`), and
 * `GET /v1/parse/{id}` tells the same.
 */
export const createHandler = (getDeps: () => Promise<Deps>, timing: LongParseTiming = LONG_PARSE) =>
  httpHandler(
    getDeps,
    endpoints.parseUpload,
    async ({ form, query, file, caller, deps, requestId, headers }) => {
      const upload = {
        ...submitterOf(caller),
        options: parseOptionsOf(form, query),
        extractionSchema: form.extraction_schema,
        refreshCache: refreshesCache(headers, form.invalidate_cache),
        ...documentOf(form.upload_id, file),
      };
      if (wantsEventStream(headers)) return streamParse(deps, upload);
      let parseId: string | undefined;
      const parsing = parseUpload(deps, upload, { onSubmitted: (id) => (parseId = id) });
      return replyWhenDone(parsing, timing, () => parseId ?? requestId);
    },
  );

export const handler = createHandler(deps);
