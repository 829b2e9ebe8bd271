import { createHash } from 'node:crypto';
import { UnauthenticatedError } from '../domain/errors.js';
import type { ApiKeyRecord, ApiKeyStore } from '../ports/api-key-store.js';

/** SHA-256 (hex) of an API key: the only form in which keys are stored. */
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/**
 * Resolves the `X-API-Key` header to its tenant and plan.
 * @throws {UnauthenticatedError} when the header is missing, the key is unknown or the key is
 *   revoked (401).
 */
export async function authenticate(
  apiKeys: ApiKeyStore,
  headerValue: string | undefined,
): Promise<ApiKeyRecord> {
  const key = headerValue?.trim();
  if (!key) throw new UnauthenticatedError('missing API key: send it in the X-API-Key header');
  const record = await apiKeys.get(hashApiKey(key));
  if (!record) throw new UnauthenticatedError('invalid API key');
  if (record.revokedAt !== undefined) throw new UnauthenticatedError('API key revoked');
  return record;
}
