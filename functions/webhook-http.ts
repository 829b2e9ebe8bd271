import { parseUrlAllowlist, UrlGuard } from './adapters/http/safe-fetcher.js';
import { HttpWebhookSender } from './adapters/http/webhook-http-sender.js';
import { StandardWebhookSigner } from './adapters/http/webhook-signer.js';
import type { Config } from './config.js';
import type { WebhookSender, WebhookSigner } from './core/ports/webhook-sender.js';

/** The webhook consumer's adapters: the sender (over undici) and the signer. */
export interface WebhookHttp {
  /** Sends webhook attempts, checking the address again before each. */
  webhooks: WebhookSender;
  /** Signs webhook attempts (Standard Webhooks). */
  webhookSigner: WebhookSigner;
}

/**
 * The webhook consumer's adapters: attempts go over https on port 443 to public addresses only,
 * hosts of `URL_FETCH_ALLOWLIST` exempt. Only the webhook consumer imports this module, so its
 * HTTP client stays out of the other functions' bundles.
 */
export function webhookHttp(config: Pick<Config, 'URL_FETCH_ALLOWLIST'>): WebhookHttp {
  const allowlist = parseUrlAllowlist(config.URL_FETCH_ALLOWLIST);
  return {
    webhooks: new HttpWebhookSender({
      guard: new UrlGuard({ allowlist, verb: 'called for webhooks' }),
    }),
    webhookSigner: new StandardWebhookSigner(),
  };
}

/** The webhook adapters of `deps`: the ones it was given (tests), else built once and kept. */
export function webhookHttpOf(deps: {
  config: Pick<Config, 'URL_FETCH_ALLOWLIST'>;
  webhookHttp?: WebhookHttp;
}): WebhookHttp {
  deps.webhookHttp ??= webhookHttp(deps.config);
  return deps.webhookHttp;
}
