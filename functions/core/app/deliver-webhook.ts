import {
  WEBHOOK_MAX_ATTEMPTS,
  nextAttempt,
  type AttemptOutcome,
  type WebhookAttemptRecord,
  type WebhookDecision,
  type WebhookDelivery,
} from '../domain/webhooks.js';
import type { Clock } from '../ports/clock.js';
import type { WebhookSecretStore, WebhookSender, WebhookSigner } from '../ports/webhook-sender.js';

/** What {@link deliverWebhook} needs. */
export interface DeliverWebhookDeps {
  sender: WebhookSender;
  signer: WebhookSigner;
  /** Only the deliverer and GET /v1/webhooks/secret may read (and create) secrets. */
  secrets: WebhookSecretStore;
  clock: Clock;
}

/** The result of one attempt: what follows, what to record, and the next message if any. */
export interface WebhookAttemptResult {
  decision: WebhookDecision;
  /** To append to the request's delivery attempts. */
  record: WebhookAttemptRecord;
  /**
   * The message asking for the next attempt (when the decision is `retry`): the same event,
   * `attempt + 1`, `notBefore` = now + the delay. The caller sends it with
   * `queueDelaySeconds(next.notBefore, now)`. Null otherwise.
   */
  next: WebhookDelivery | null;
}

/**
 * Makes one attempt to deliver a webhook event and decides what follows. The queue consumer
 * calls it for a due message (see `queueDelaySeconds`), records `record` with the request, and
 * acts on `decision`: `retry` → send `next`; `dead_letter` → keep the event for an operator;
 * `disabled` → turn the tenant's endpoint off (the receiver answered 410).
 *
 * 1. Looks up the signing secret by `message.secretRef` (the tenant), creating it on the tenant's
 *    first delivery: submissions never touch secrets, the functions accepting them may not.
 * 2. Serialises the payload and signs it for this attempt: `webhook-id` is `msg_<eventId>` on
 *    every attempt, the timestamp and signature are this attempt's (receivers refuse signatures
 *    older than five minutes, so a retry cannot reuse the first one).
 * 3. POSTs it once. Anything the sender throws counts as an attempt without a response (it is
 *    recorded and retried on the schedule), so that no failure of the outside world escapes as
 *    an unrecorded crash of the consumer.
 * 4. Decides with {@link nextAttempt}: delivered, retry after a delay, dead letter after the last
 *    attempt, or disabled on 410.
 *
 * Not idempotent by itself (a redelivered message makes the attempt again); receivers
 * deduplicate on `webhook-id`, which is what the scheme asks of them.
 * @throws {RangeError} when `message.attempt` is not from 1 to 8, or the event id or the secret
 *   is malformed (nothing sent).
 */
export async function deliverWebhook(
  deps: DeliverWebhookDeps,
  message: WebhookDelivery,
): Promise<WebhookAttemptResult> {
  const { attempt } = message;
  if (!Number.isInteger(attempt) || attempt < 1 || attempt > WEBHOOK_MAX_ATTEMPTS) {
    throw new RangeError(
      `attempt must be an integer from 1 to ${WEBHOOK_MAX_ATTEMPTS}; got ${attempt}`,
    );
  }
  const secret = await deps.secrets.getOrCreate(message.secretRef);
  const body = JSON.stringify(message.payload);
  const startedAt = deps.clock.now();
  const headers = deps.signer.sign(secret, message.eventId, startedAt, body);

  let outcome: AttemptOutcome;
  try {
    const response = await deps.sender.send(message.url, { ...headers }, body);
    outcome = { kind: 'response', status: response.status, retryAfter: response.retryAfter };
  } catch (error) {
    outcome = {
      kind: 'no_response',
      error: error instanceof Error ? error.message : String(error),
    };
  }
  const endedAt = deps.clock.now();

  const record: WebhookAttemptRecord = {
    attempt,
    at: startedAt.toISOString(),
    status: outcome.kind === 'response' ? outcome.status : null,
    error: outcome.kind === 'no_response' ? outcome.error : null,
    duration_ms: Math.max(0, endedAt.getTime() - startedAt.getTime()),
  };
  const decision = nextAttempt(attempt, outcome, endedAt);
  const next =
    decision.action === 'retry'
      ? {
          ...message,
          attempt: attempt + 1,
          notBefore: new Date(endedAt.getTime() + decision.delayMs).toISOString(),
        }
      : null;
  return { decision, record, next };
}
