import { compareProviders } from '../core/app/compare.js';
import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';
import { LONG_PARSE, replyWhenDone, type LongParseTiming } from './parse-replies.js';
import { documentOf, NO_FLAGS, parseOptionsOf, submitterOf } from './parse-request.js';

/**
 * POST /v1/compare: the document parsed by each of 1 to 4 configured providers at once (see
 * `compareProviders`): `compare_id`, `filename`, `providers_requested`, `runs` (`status`
 * `completed`, `failed` or `cancelled`, each with its request id and ParseResponse), and
 * `page_agreement` per page. Answers like a synchronous upload, with the same keepalive when
 * the runs take long.
 */
export const createHandler = (getDeps: () => Promise<Deps>, timing: LongParseTiming = LONG_PARSE) =>
  httpHandler(
    getDeps,
    endpoints.compareProviders,
    async ({ form, file, caller, deps, requestId }) => {
      const source = documentOf(form.upload_id, file);
      const comparing = compareProviders(deps, {
        ...submitterOf(caller),
        source: { tenant: caller.tenant, ...source },
        filename: 'filename' in source ? source.filename : null,
        providers: form.providers,
        extractionSchema: form.extraction_schema,
        options: parseOptionsOf(
          { ...form, maintain_format: true, enable_verification: null, dpi: null },
          NO_FLAGS,
        ),
      });
      return replyWhenDone(comparing, timing, requestId);
    },
  );

export const handler = createHandler(deps);
