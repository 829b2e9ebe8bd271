import parsePreferHeader from 'parse-prefer-header';
import { parseUrl, resolveProvider, submitUrlParse } from '../core/app/parse-upload.js';
import { UrlRefusedError } from '../core/domain/errors.js';
import { deps, type Deps } from '../container.js';
import { parseUrlAllowlist, SafeDocumentFetcher, UrlGuard } from '../adapters/http/safe-fetcher.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';
import {
  LONG_PARSE,
  refreshesCache,
  replyWhenDone,
  type LongParseTiming,
} from './parse-upload.handler.js';

/**
 * POST /v1/parse: downloads `file_url` with the SSRF-hardened fetcher (https on port 443,
 * public addresses only, every redirect checked, at most 3, the upload size limit) and answers
 * like the upload: the ParseResponse, with the same long-parse keepalive. A refused URL is 400
 * with a `detail` that says why. Hosts in `URL_FETCH_ALLOWLIST` are exempt (tests only).
 *
 * `preferred_model` sends every page to that provider first (where it can parse the page; the
 * page keeps its tier and falls over to the tier's chain); `compare_provider` parses every page
 * with that provider too and adds a `comparison` (its Markdown and the agreement) to each page.
 *
 * With `webhook_url` (checked by the same address rules, 400 when refused), the answer is the
 * same, and the end of the parse is also POSTed to the webhook, once (`GET /v1/parse/{id}` shows
 * the delivery attempts).
 *
 * `Prefer: respond-async` (RFC 7240) asks for the asynchronous answer instead: 202 at once with
 * the request's status view (`status: "queued"`), `Preference-Applied: respond-async` and the
 * result's URL in `Location`; `GET /v1/parse/{id}` returns the result once it is there, and the
 * webhook, if any, is called as well.
 */
export const createHandler = (
  getDeps: () => Promise<Deps>,
  timing: LongParseTiming = LONG_PARSE,
) => {
  let outbound: { fetcher: SafeDocumentFetcher; webhooks: UrlGuard } | undefined;
  return httpHandler(
    getDeps,
    endpoints.parseUrl,
    async ({ body, query, caller, deps, requestId, baseUrl, headers }) => {
      if (!outbound) {
        const allowlist = parseUrlAllowlist(deps.config.URL_FETCH_ALLOWLIST);
        outbound = {
          fetcher: new SafeDocumentFetcher({ allowlist }),
          webhooks: new UrlGuard({ allowlist, verb: 'called for webhooks' }),
        };
      }
      const request = {
        tenant: caller?.tenant ?? '',
        ...(caller ? { plan: caller.plan } : {}),
        fileUrl: body.file_url,
        extractionSchema: body.extraction_schema,
        refreshCache: refreshesCache(headers, body.invalidate_cache),
        providers: {
          ...(body.preferred_model === null
            ? {}
            : {
                preferred: resolveProvider(deps.providers, 'preferred_model', body.preferred_model),
              }),
          ...(body.compare_provider === null
            ? {}
            : {
                compare: resolveProvider(deps.providers, 'compare_provider', body.compare_provider),
              }),
        },
        options: {
          operation_mode: body.operation_mode,
          maintain_format: body.maintain_format,
          max_pages: body.max_pages,
          enable_verification: body.enable_verification,
          dpi: body.dpi,
          ...query,
        },
      };
      const webhook =
        body.webhook_url === null
          ? {}
          : {
              webhook: {
                url: await checkedWebhookUrl(outbound.webhooks, body.webhook_url),
                apiBaseUrl: baseUrl,
              },
            };
      if (prefersRespondAsync(headers)) {
        const accepted = await submitUrlParse(deps, outbound.fetcher, { ...request, ...webhook });
        return {
          statusCode: 202,
          body: accepted,
          headers: {
            'preference-applied': 'respond-async',
            location: `${baseUrl}/v1/parse/${String(accepted.id)}`,
          },
        };
      }
      const parsing = parseUrl(deps, outbound.fetcher, { ...request, ...webhook });
      return replyWhenDone(parsing, timing, requestId);
    },
  );
};

export const handler = createHandler(deps);

/**
 * The request's `Prefer` header (RFC 7240) holds the `respond-async` preference: preferences are
 * comma-separated, their tokens case-insensitive, and may carry parameters and other
 * preferences beside them (`Prefer: wait=10, Respond-Async`). `wait` is not honoured: the
 * asynchronous answer is given at once.
 */
export function prefersRespondAsync(
  headers: Readonly<Record<string, string | undefined>>,
): boolean {
  return parsePreferHeader(headers.prefer).respondAsync !== undefined;
}

/**
 * The webhook URL once its scheme, host and addresses pass the guard (the deliverer checks it
 * again before every attempt: the name may resolve elsewhere by then).
 * @throws {UrlRefusedError} (400) naming `webhook_url` and why.
 */
export async function checkedWebhookUrl(guard: UrlGuard, url: string): Promise<string> {
  try {
    return (await guard.check(url)).url.href;
  } catch (error) {
    if (!(error instanceof UrlRefusedError)) throw error;
    throw new UrlRefusedError(error.message.replace(/^URL refused/, 'webhook_url refused'), {
      cause: error,
      details: error.details,
    });
  }
}
