import { appError } from '../domain/errors.js';

/** What a webhook receiver answered: its status and `Retry-After` header. */
export interface WebhookResponse {
  status: number;
  /** The `Retry-After` header as received (seconds or an HTTP-date), or null. */
  retryAfter: string | null;
}

/** No answer came from a webhook receiver: a network error, the time limit, or a refused address. */
export class WebhookSendError extends appError('WebhookSendError', 'transient') {
  readonly reason: 'network' | 'timeout' | 'refused';

  constructor(message: string, reason: 'network' | 'timeout' | 'refused', options?: ErrorOptions) {
    super(message, { ...options, details: { reason } });
    this.reason = reason;
  }
}

/**
 * POSTs webhook bodies to receivers. One call is one attempt: no retries, no redirects
 * followed (a 3xx is returned as it is), and a bounded time.
 */
export interface WebhookSender {
  /**
   * Sends `body` with `headers` (the signature headers included) to `url` and reports the
   * answer, whatever its status. The response body is read and discarded.
   * @throws {WebhookSendError} when no response came (DNS, connection, TLS, refused address,
   *   time limit).
   */
  send(
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string,
  ): Promise<WebhookResponse>;
}

/** The three Standard Webhooks headers of one attempt. */
export interface WebhookHeaders {
  /** `msg_<event id>`: the same on every attempt of one event, so receivers can deduplicate. */
  'webhook-id': string;
  /** Seconds since the epoch at which this attempt was signed. */
  'webhook-timestamp': string;
  /** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
  'webhook-signature': string;
}

/** Signs webhook bodies (Standard Webhooks). */
export interface WebhookSigner {
  /**
   * The headers of an attempt made at `at` to deliver `body` for event `eventId`.
   * @throws {RangeError} when `eventId` is not a valid event id, or `secret` is not a
   *   `whsec_` secret.
   */
  sign(secret: string, eventId: string, at: Date, body: string): WebhookHeaders;
}

/** Per-tenant webhook signing secrets (`whsec_...`), looked up by reference. */
export interface WebhookSecrets {
  /**
   * The current secret behind `secretRef` (for example a tenant id).
   * @throws {NotFoundError} when nothing is stored under `secretRef`.
   */
  get(secretRef: string): Promise<string>;
}

/** The per-tenant signing secrets, created on first use. */
export interface WebhookSecretStore extends WebhookSecrets {
  /**
   * The tenant's secret, created (a new random `whsec_` secret) when it has none. Concurrent
   * first calls agree on one secret.
   */
  getOrCreate(tenant: string): Promise<string>;
}
