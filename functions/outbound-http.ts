import { parseUrlAllowlist, SafeDocumentFetcher, UrlGuard } from './adapters/http/safe-fetcher.js';
import type { Config } from './config.js';
import type { DocumentFetcher } from './core/ports/document-fetcher.js';

/**
 * Outgoing HTTP to addresses clients give, built apart from the container, so that only the
 * functions that use them carry them: the document download and the `webhook_url` check here;
 * the webhook sender, whose HTTP client (undici, about 0.5 MB minified) only the webhook
 * consumer needs, in `webhook-http.ts`.
 */

/** The adapters of requests to addresses clients give (see {@link outboundHttp}). */
export interface OutboundHttp {
  /** Downloads `file_url` documents (POST /v1/parse, the documents of batches). */
  documents: DocumentFetcher;
  /**
   * Checks a `webhook_url` when a parse or batch is submitted; its refusals (400) start
   * `webhook_url refused:`.
   */
  webhookUrls: Pick<UrlGuard, 'check'>;
}

/**
 * The SSRF-hardened adapters of requests to addresses clients give: https on port 443 to public
 * addresses only, hosts of `URL_FETCH_ALLOWLIST` exempt (tests, local demos).
 */
export function outboundHttp(config: Pick<Config, 'URL_FETCH_ALLOWLIST'>): OutboundHttp {
  const allowlist = parseUrlAllowlist(config.URL_FETCH_ALLOWLIST);
  return {
    documents: new SafeDocumentFetcher({ allowlist }),
    webhookUrls: new UrlGuard({ allowlist, verb: 'called for webhooks', subject: 'webhook_url' }),
  };
}

/**
 * The outgoing HTTP adapters of `deps`: the ones it was given (tests), else built from its
 * configuration on first use and kept on it.
 */
export function outboundOf(deps: {
  config: Pick<Config, 'URL_FETCH_ALLOWLIST'>;
  outbound?: OutboundHttp;
}): OutboundHttp {
  deps.outbound ??= outboundHttp(deps.config);
  return deps.outbound;
}
