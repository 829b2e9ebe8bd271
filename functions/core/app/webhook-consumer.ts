import { z } from 'zod';
import type { RequestWebhook, WebhookDeliveryStatus } from '../domain/request.js';
import { queueDelaySeconds, WebhookDelivery, type WebhookDecision } from '../domain/webhooks.js';
import type { BatchStore } from '../ports/batch-store.js';
import type { Queue } from '../ports/queue.js';
import type { RequestStore } from '../ports/request-store.js';
import { deliverWebhook, type DeliverWebhookDeps } from './deliver-webhook.js';

/** What {@link handleWebhookMessage} needs. */
export interface WebhookConsumerDeps extends DeliverWebhookDeps {
  requests: RequestStore;
  /** Where the deliveries of batch events are recorded; absent: they are not recorded. */
  batches?: BatchStore;
  /** The webhook queue itself: next attempts and hops of long delays go back on it. */
  webhooks: Queue;
  /** Where events go after their last failed attempt, for an operator to inspect or redrive. */
  deadLetters: Queue;
}

/** What became of one message, for the consumer's log. */
export type WebhookMessageOutcome =
  | { kind: 'malformed'; problem: string }
  | { kind: 'not_due'; delaySeconds: number }
  | { kind: 'attempted'; decision: WebhookDecision };

const STATUS_AFTER: Readonly<Record<WebhookDecision['action'], WebhookDeliveryStatus>> = {
  delivered: 'delivered',
  retry: 'pending',
  dead_letter: 'dead_letter',
  disabled: 'disabled',
};

/**
 * Handles one message of the webhook queue (a {@link WebhookDelivery} as JSON text):
 * 1. a malformed message is reported and dropped (sending it again cannot help);
 * 2. a message received before its `notBefore` goes back on the queue with the next hop's delay;
 * 3. otherwise one attempt is made (`deliverWebhook`), recorded with the request (or the batch,
 *    for a `batch.completed` event) under its attempt number (a redelivered message overwrites its own record rather than adding one),
 *    and then: `retry` queues the next attempt with its delay, `dead_letter` puts the message on
 *    the dead-letter queue, `delivered` and `disabled` end it.
 *
 * @throws {QueueSendError} when the next attempt or hop cannot be queued: the caller lets the
 *   message be delivered again (the attempt is then repeated, under the same `webhook-id`).
 */
export async function handleWebhookMessage(
  deps: WebhookConsumerDeps,
  body: string,
): Promise<WebhookMessageOutcome> {
  let message: WebhookDelivery;
  try {
    message = WebhookDelivery.parse(JSON.parse(body));
  } catch (error) {
    const problem =
      error instanceof z.ZodError
        ? z.prettifyError(error)
        : error instanceof Error
          ? error.message
          : String(error);
    return { kind: 'malformed', problem };
  }
  const delaySeconds = queueDelaySeconds(message.notBefore, deps.clock.now());
  if (delaySeconds > 0) {
    await deps.webhooks.send({ body: message, delaySeconds });
    return { kind: 'not_due', delaySeconds };
  }

  const { decision, record, next } = await deliverWebhook(deps, message);
  const recorded = (webhook: RequestWebhook): RequestWebhook => ({
    ...webhook,
    status: STATUS_AFTER[decision.action],
    attempts: [...webhook.attempts.filter((a) => a.attempt !== record.attempt), record].sort(
      (a, b) => a.attempt - b.attempt,
    ),
  });
  const { payload } = message;
  if (payload.type === 'batch.completed') {
    const batch = await deps.batches?.get(payload.data.batch_id);
    if (batch?.webhook) {
      await deps.batches?.update(batch.id, { webhook: recorded(batch.webhook) });
    }
  } else {
    const requestId = payload.data.request_id;
    const request = await deps.requests.get(requestId);
    if (request?.webhook) {
      await deps.requests.update(requestId, { webhook: recorded(request.webhook) });
    }
  }
  if (next) {
    await deps.webhooks.send({
      body: next,
      delaySeconds: queueDelaySeconds(next.notBefore, deps.clock.now()),
    });
  } else if (decision.action === 'dead_letter') {
    await deps.deadLetters.send({
      body: message,
      attributes: { reason: decision.reason.slice(0, 256) || 'failed' },
    });
  }
  return { kind: 'attempted', decision };
}
