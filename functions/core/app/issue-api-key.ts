import type { Plan } from '../domain/request.js';
import type { ApiKeyStore } from '../ports/api-key-store.js';
import { createApiKey } from './api-keys.js';

/**
 * Creates a new API key for `tenant` on `plan` and stores only its SHA-256 (see `createApiKey`,
 * which also returns the key's record).
 * @returns the key (`dp_<32 base64url characters>`), shown to the caller once and never stored.
 * @throws {BadRequestError} for an invalid tenant id (see `isTenantId`).
 */
export async function issueApiKey(
  store: ApiKeyStore,
  tenant: string,
  plan: Plan,
  now: Date,
): Promise<string> {
  return (await createApiKey(store, { tenant, plan }, now)).key;
}
