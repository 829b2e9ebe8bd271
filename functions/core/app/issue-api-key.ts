import { randomBytes } from 'node:crypto';
import type { Plan } from '../domain/request.js';
import { isTenantId } from '../domain/tenant.js';
import type { ApiKeyStore } from '../ports/api-key-store.js';
import { hashApiKey } from './authenticate.js';

/**
 * Creates a new API key for `tenant` on `plan` and stores only its SHA-256.
 * @returns the key (`dp_<32 base64url characters>`), shown to the caller once and never stored.
 * @throws {Error} for an invalid tenant id (see `isTenantId`).
 */
export async function issueApiKey(
  store: ApiKeyStore,
  tenant: string,
  plan: Plan,
  now: Date,
): Promise<string> {
  if (!isTenantId(tenant)) {
    throw new Error(`tenant "${tenant}" must be letters, digits, "_", "." or "-" (not only dots)`);
  }
  const key = `dp_${randomBytes(24).toString('base64url')}`;
  await store.put({ keyHash: hashApiKey(key), tenant, plan, createdAt: now.toISOString() });
  return key;
}
