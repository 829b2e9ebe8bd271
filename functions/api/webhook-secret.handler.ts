import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';

/**
 * GET /v1/webhooks/secret (beyond the spec): the caller's tenant's webhook signing secret,
 * created on the first call. Every webhook of the tenant is signed with it (Standard Webhooks:
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the base64
 * part after `whsec_`). Answers `{ secret, signature_scheme }`.
 */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(getDeps, endpoints.getWebhookSecret, async ({ caller, deps }) => {
    const secret = await deps.webhookSecrets.getOrCreate(caller.tenant);
    return {
      statusCode: 200,
      body: { secret, signature_scheme: 'standard-webhooks-v1' },
      headers: { 'cache-control': 'no-store' },
    };
  });

export const handler = createHandler(deps);
