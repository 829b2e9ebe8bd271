import { request, type Dispatcher } from 'undici';
import { WEBHOOK_TIMEOUT_MS } from '../../core/domain/webhooks.js';
import {
  WebhookSendError,
  type WebhookResponse,
  type WebhookSender,
} from '../../core/ports/webhook-sender.js';

/** Most of a receiver's answer that is read before the connection is let go. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** Options of {@link HttpWebhookSender}. */
export interface HttpWebhookSenderOptions {
  /**
   * The dispatcher requests go through: the place for an SSRF-safe one (public addresses
   * only, the checked address connected to).
   * @default - undici's global dispatcher
   */
  readonly dispatcher?: Dispatcher;
  /**
   * Time limit of one attempt, from connecting to the end of the answer.
   * @default 15_000
   */
  readonly timeoutMs?: number;
  /** @default 'docparse-webhooks/1' */
  readonly userAgent?: string;
}

/** undici's request options, plus the per-request redirect limit undici 7 reads but does not type. */
type RequestOptions = NonNullable<Parameters<typeof request>[1]> & { maxRedirections: 0 };

/**
 * {@link WebhookSender} over undici: one POST per call, a 15 s limit for the whole exchange, and
 * redirects never followed. `maxRedirections: 0` goes on every request so that even a
 * dispatcher carrying a redirect interceptor (a URL fetcher's) returns the 3xx as it is.
 */
export class HttpWebhookSender implements WebhookSender {
  readonly #dispatcher: Dispatcher | undefined;
  readonly #timeoutMs: number;
  readonly #userAgent: string;

  constructor(options: HttpWebhookSenderOptions = {}) {
    const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
      throw new RangeError(`timeoutMs must be a positive integer; got ${timeoutMs}`);
    }
    this.#dispatcher = options.dispatcher;
    this.#timeoutMs = timeoutMs;
    this.#userAgent = options.userAgent ?? 'docparse-webhooks/1';
  }

  async send(
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string,
  ): Promise<WebhookResponse> {
    const signal = AbortSignal.timeout(this.#timeoutMs);
    const options: RequestOptions = {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': this.#userAgent, ...headers },
      body,
      signal,
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
      maxRedirections: 0,
      ...(this.#dispatcher ? { dispatcher: this.#dispatcher } : {}),
    };
    let response: Dispatcher.ResponseData<unknown>;
    try {
      response = await request(url, options);
    } catch (error) {
      throw this.#failure(error, signal);
    }
    const retryAfter = firstHeader(response.headers['retry-after']);
    try {
      // The answer's body means nothing to us; read a little of it so the connection can be
      // reused, and give up on it (without failing the attempt) past the cap or the limit.
      await response.body.dump({ limit: MAX_RESPONSE_BYTES, signal });
    } catch {
      response.body.destroy();
    }
    return { status: response.statusCode, retryAfter };
  }

  #failure(error: unknown, signal: AbortSignal): WebhookSendError {
    const code = (error as { code?: unknown }).code;
    if (signal.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return new WebhookSendError(`no answer within ${this.#timeoutMs} ms`, 'timeout', {
        cause: error,
      });
    }
    // The URL is left out: receivers sometimes carry a token in it.
    const what =
      typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
    return new WebhookSendError(`network error: ${what}`, 'network', { cause: error });
  }
}

function firstHeader(value: string | string[] | undefined): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  return first ?? null;
}
