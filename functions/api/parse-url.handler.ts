import { z } from 'zod';
import { parseUrl } from '../core/app/parse-upload.js';
import { OperationMode } from '../core/domain/schemas.js';
import { deps, type Deps } from '../container.js';
import { parseUrlAllowlist, SafeDocumentFetcher } from '../adapters/http/safe-fetcher.js';
import { httpHandler } from './http-handler.js';
import {
  LONG_PARSE,
  replyWhenDone,
  UploadQuery,
  type LongParseTiming,
} from './parse-upload.handler.js';

/**
 * ParseURLRequest (spec §4 POST /v1/parse). `extraction_schema` must be a JSON object when given.
 * `webhook_url`, `compare_provider` and `preferred_model` are refused with 422 until this
 * deployment delivers webhooks and pins providers, rather than silently ignored.
 */
export const ParseUrlRequest = z.strictObject({
  file_url: z.string().trim().min(1).max(2048),
  operation_mode: OperationMode.default('ocr'),
  extraction_schema: z.record(z.string(), z.unknown()).nullable().default(null),
  maintain_format: z.boolean().default(true),
  webhook_url: z
    .null()
    .or(
      z.string().refine(() => false, {
        message: 'webhook deliveries are not available on this deployment yet',
      }),
    )
    .default(null),
  max_pages: z.number().int().min(1).max(100_000).nullable().default(null),
  compare_provider: z
    .null()
    .or(z.string().refine(() => false, { message: 'not available on this deployment yet' }))
    .default(null),
  preferred_model: z
    .null()
    .or(z.string().refine(() => false, { message: 'not available on this deployment yet' }))
    .default(null),
  enable_verification: z.boolean().nullable().default(null),
  dpi: z.number().int().min(36).max(600).nullable().default(null),
});

/**
 * POST /v1/parse: downloads `file_url` with the SSRF-hardened fetcher (https on port 443,
 * public addresses only, every redirect checked, at most 3, the upload size limit) and answers
 * like the upload: the ParseResponse, with the same long-parse keepalive. A refused URL is 400
 * with a `detail` that says why. Hosts in `URL_FETCH_ALLOWLIST` are exempt (tests only).
 */
export const createHandler = (
  getDeps: () => Promise<Deps>,
  timing: LongParseTiming = LONG_PARSE,
) => {
  let fetcher: SafeDocumentFetcher | undefined;
  return httpHandler(
    getDeps,
    { body: ParseUrlRequest, query: UploadQuery, streaming: true },
    async ({ body, query, caller, deps, requestId }) => {
      fetcher ??= new SafeDocumentFetcher({
        allowlist: parseUrlAllowlist(deps.config.URL_FETCH_ALLOWLIST),
      });
      const parsing = parseUrl(deps, fetcher, {
        tenant: caller?.tenant ?? '',
        fileUrl: body.file_url,
        options: {
          operation_mode: body.operation_mode,
          maintain_format: body.maintain_format,
          max_pages: body.max_pages,
          enable_verification: body.enable_verification,
          dpi: body.dpi,
          ...query,
        },
      });
      return replyWhenDone(parsing, timing, requestId);
    },
  );
};

export const handler = createHandler(deps);
