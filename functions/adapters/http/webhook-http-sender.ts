import { Agent, request, type Dispatcher } from 'undici';
import { AppError } from '../../core/domain/errors.js';
import { WEBHOOK_TIMEOUT_MS } from '../../core/domain/webhooks.js';
import { pinnedLookup, type CheckedUrl, type UrlGuard } from './safe-fetcher.js';
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
   * Checks each URL before each attempt (https, public addresses only) and connects to the
   * addresses it checked, through a connection of its own. A refused URL is an attempt without
   * an answer (`WebhookSendError` with reason `refused`).
   * @default - no check (the dispatcher's)
   */
  readonly guard?: UrlGuard;
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
  readonly #guard: UrlGuard | undefined;
  readonly #timeoutMs: number;
  readonly #userAgent: string;

  constructor(options: HttpWebhookSenderOptions = {}) {
    const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
      throw new RangeError(`timeoutMs must be a positive integer; got ${timeoutMs}`);
    }
    this.#dispatcher = options.dispatcher;
    this.#guard = options.guard;
    this.#timeoutMs = timeoutMs;
    this.#userAgent = options.userAgent ?? 'docparse-webhooks/1';
  }

  async send(
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string,
  ): Promise<WebhookResponse> {
    if (!this.#guard) return this.#send(url, headers, body, this.#dispatcher);
    let checked: CheckedUrl;
    try {
      checked = await this.#guard.check(url);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      throw new WebhookSendError(error.message, 'refused', { cause: error });
    }
    if (checked.addresses.length === 0) return this.#send(url, headers, body, this.#dispatcher);
    const pinned = new Agent({
      connect: { lookup: pinnedLookup(checked.host, checked.addresses) },
    });
    try {
      return await this.#send(url, headers, body, pinned);
    } finally {
      await pinned.destroy().catch(() => undefined);
    }
  }

  async #send(
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string,
    dispatcher: Dispatcher | undefined,
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
      ...(dispatcher ? { dispatcher } : {}),
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
