import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { webhookId } from '../../core/domain/webhooks.js';
import type { WebhookHeaders, WebhookSigner } from '../../core/ports/webhook-sender.js';

/** Prefix of a webhook signing secret (Standard Webhooks). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Random bytes in a new secret (the scheme asks for 24 to 64). */
const SECRET_BYTES = 32;
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;

/**
 * A new per-tenant signing secret: `whsec_` + base64 of 32 random bytes.
 *
 * @example
 * newWebhookSecret(); // 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw…'
 */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * The Standard Webhooks headers of one attempt to deliver `body` for event `eventId` at `at`.
 * `webhook-id` depends on the event only (the same on every retry); the timestamp and the
 * signature are those of this attempt, since receivers refuse timestamps more than five minutes
 * away from their clock.
 *
 * @example
 * signWebhook(secret, 'req_1_completed', new Date(), '{"type":"parse.completed",…}');
 * // { 'webhook-id': 'msg_req_1_completed', 'webhook-timestamp': '1741064767',
 * //   'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' }
 * @throws {RangeError} when the event id or the secret is malformed.
 */
export function signWebhook(
  secret: string,
  eventId: string,
  at: Date,
  body: string,
): WebhookHeaders {
  const id = webhookId(eventId);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': webhookFor(secret).sign(id, at, body),
  };
}

/**
 * Checks a delivery as a receiver would, with the `standardwebhooks` package: the signature
 * over `id.timestamp.body` with `secret`, and a timestamp within five minutes of now. Returns
 * the parsed body.
 *
 * @example
 * const event = verifyWebhook(secret, request.headers, rawBody) as WebhookEvent;
 * @throws {WebhookVerificationError} (from `standardwebhooks`) when a header is missing, the
 *   timestamp is too old or too new, or no signature matches.
 */
export function verifyWebhook(
  secret: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  body: string | Buffer,
): unknown {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(' ') : value;
  }
  return webhookFor(secret).verify(body, flat);
}

/** {@link WebhookSigner} over the `standardwebhooks` package. */
export class StandardWebhookSigner implements WebhookSigner {
  sign(secret: string, eventId: string, at: Date, body: string): WebhookHeaders {
    return signWebhook(secret, eventId, at, body);
  }
}

function webhookFor(secret: string): Webhook {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) {
    throw new RangeError(`a webhook secret starts with ${WEBHOOK_SECRET_PREFIX}`);
  }
  const key = Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
  if (key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES) {
    // Never echo the secret: only its decoded length.
    throw new RangeError(
      `a webhook secret holds ${MIN_SECRET_BYTES}-${MAX_SECRET_BYTES} bytes of base64; this one decodes to ${key.length}`,
    );
  }
  try {
    return new Webhook(secret);
  } catch (error) {
    throw new RangeError('a webhook secret is whsec_ followed by base64', { cause: error });
  }
}
