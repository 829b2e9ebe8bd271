import { parseUrl, resolveProvider, submitUrlParse } from '../core/app/parse-upload.js';
import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';
import { LONG_PARSE, replyWhenDone, type LongParseTiming } from './parse-replies.js';
import {
  parseOptionsOf,
  prefersRespondAsync,
  refreshesCache,
  submitterOf,
  webhookOf,
} from './parse-request.js';
import { outboundOf } from '../outbound-http.js';

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
export const createHandler = (getDeps: () => Promise<Deps>, timing: LongParseTiming = LONG_PARSE) =>
  httpHandler(
    getDeps,
    endpoints.parseUrl,
    async ({ body, query, caller, deps, requestId, baseUrl, headers }) => {
      const { documents, webhookUrls } = outboundOf(deps);
      const request = {
        ...submitterOf(caller),
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
        options: parseOptionsOf(body, query),
      };
      const webhook = await webhookOf(webhookUrls, body.webhook_url, baseUrl);
      if (prefersRespondAsync(headers)) {
        const accepted = await submitUrlParse(deps, documents, {
          ...request,
          ...(webhook ? { webhook } : {}),
        });
        return {
          statusCode: 202,
          body: accepted,
          headers: {
            'preference-applied': 'respond-async',
            location: `${baseUrl}/v1/parse/${String(accepted.id)}`,
          },
        };
      }
      const parsing = parseUrl(deps, documents, { ...request, ...(webhook ? { webhook } : {}) });
      return replyWhenDone(parsing, timing, requestId);
    },
  );

export const handler = createHandler(deps);
