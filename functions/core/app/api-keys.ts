import { randomBytes } from 'node:crypto';
import { BadRequestError, ConflictError, NotFoundError } from '../domain/errors.js';
import type { Plan } from '../domain/request.js';
import { isTenantId } from '../domain/tenant.js';
import type { ApiKeyInput, ApiKeyRecord, ApiKeyStore } from '../ports/api-key-store.js';
import { hashApiKey } from './authenticate.js';

/** Hex characters of the hash in a key id: 48 bits, and stores refuse a second key with the same id. */
const KEY_ID_HEX_CHARS = 12;

const KEY_ID = new RegExp(`^key_[0-9a-f]{${String(KEY_ID_HEX_CHARS)}}$`);

/** Longest label, in UTF-16 code units. */
const MAX_LABEL_LENGTH = 100;

/** Draws of a new key before giving up when each one's id is taken (odds about n / 2^48 each). */
const ISSUE_ATTEMPTS = 3;

/**
 * Public id of the key whose SHA-256 (hex) is `keyHash`: `key_` and the hash's first 12 hex
 * characters.
 *
 * It names a key in lists, logs and commands without giving it away: it is a 48-bit prefix of
 * the hash of 192 random bits.
 *
 * @example
 * apiKeyId(hashApiKey(key)); // 'key_3f2a9c0b1d4e'
 */
export const apiKeyId = (keyHash: string): string => `key_${keyHash.slice(0, KEY_ID_HEX_CHARS)}`;

/** True when `value` has the shape of a key id (`key_` and 12 lowercase hex characters). */
export const isApiKeyId = (value: string): boolean => KEY_ID.test(value);

/**
 * The record to store for `input`, with the id its hash gives.
 *
 * @throws {RangeError} when `input.keyId` is given and is another id.
 */
export function withKeyId(input: ApiKeyInput): ApiKeyRecord {
  const keyId = apiKeyId(input.keyHash);
  if (input.keyId !== undefined && input.keyId !== keyId) {
    throw new RangeError(`key id ${input.keyId} does not match its hash (expected ${keyId})`);
  }
  return { ...input, keyId };
}

/** The order of key lists: by `createdAt`, then by `keyId`. */
export function byCreation(a: ApiKeyRecord, b: ApiKeyRecord): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : 0;
}

/** What a new key is for. */
export interface NewApiKey {
  tenant: string;
  plan: Plan;
  /** A note for people, 1 to 100 characters without control characters. */
  label?: string;
  /** Id of the key the new one replaces. */
  rotatedFrom?: string;
}

/** A key just issued: `key` is shown to its owner once and never stored. */
export interface IssuedApiKey {
  key: string;
  record: ApiKeyRecord;
}

/**
 * Issues a new API key and stores only its SHA-256.
 *
 * 1. Checks the tenant id (see `isTenantId`) and the label.
 * 2. Draws a random key, `dp_` and 32 base64url characters (192 bits).
 * 3. Stores its record under its hash and its id; when another key holds that id already
 *    (ConflictError), draws again, up to 3 times in all.
 *
 * @throws {BadRequestError} for an invalid tenant id or label.
 * @throws {ConflictError} when three draws in a row hit ids that are taken.
 */
export async function createApiKey(
  store: ApiKeyStore,
  request: NewApiKey,
  now: Date,
): Promise<IssuedApiKey> {
  const { tenant, plan, label, rotatedFrom } = request;
  if (!isTenantId(tenant)) {
    throw new BadRequestError(
      `tenant "${tenant}" must be letters, digits, "_", "." or "-" (not only dots)`,
    );
  }
  if (label !== undefined) checkLabel(label);
  for (let attempt = 1; ; attempt++) {
    const key = `dp_${randomBytes(24).toString('base64url')}`;
    const record = withKeyId({
      keyHash: hashApiKey(key),
      tenant,
      plan,
      createdAt: now.toISOString(),
      ...(label === undefined ? {} : { label }),
      ...(rotatedFrom === undefined ? {} : { rotatedFrom }),
    });
    try {
      await store.put(record);
      return { key, record };
    } catch (error) {
      if (!(error instanceof ConflictError) || attempt >= ISSUE_ATTEMPTS) throw error;
    }
  }
}

/**
 * Replaces a key without downtime: a new key for the same tenant, plan and label, whose
 * `rotatedFrom` names the old one.
 *
 * 1. Reads the old key by its id.
 * 2. Issues the new key (see `createApiKey`).
 *
 * The old key keeps working until it is revoked (`revokeApiKey`), so its users can switch over
 * first. A revoked key may be rotated too: that issues its replacement.
 *
 * @returns the new key and the old key's record.
 * @throws {NotFoundError} when no key has the id `keyId`.
 */
export async function rotateApiKey(
  store: ApiKeyStore,
  keyId: string,
  now: Date,
): Promise<IssuedApiKey & { previous: ApiKeyRecord }> {
  const previous = await store.getById(keyId);
  if (!previous) throw unknownKey(keyId);
  const issued = await createApiKey(
    store,
    {
      tenant: previous.tenant,
      plan: previous.plan,
      ...(previous.label === undefined ? {} : { label: previous.label }),
      rotatedFrom: previous.keyId,
    },
    now,
  );
  return { ...issued, previous };
}

/**
 * Revokes a key: from now on it fails authentication with 401 "API key revoked".
 *
 * Revoking a revoked key changes nothing and returns its record, with the first `revokedAt`.
 *
 * @throws {NotFoundError} when no key has the id `keyId`.
 */
export async function revokeApiKey(
  store: ApiKeyStore,
  keyId: string,
  now: Date,
): Promise<ApiKeyRecord> {
  const record = await store.revoke(keyId, now);
  if (!record) throw unknownKey(keyId);
  return record;
}

function unknownKey(keyId: string): NotFoundError {
  return new NotFoundError(`no API key has the id ${keyId}`, { details: { keyId } });
}

function checkLabel(label: string): void {
  // Labels are printed in tables: no line breaks or terminal escapes.
  if (label.trim() === '' || label.length > MAX_LABEL_LENGTH || /\p{Cc}/u.test(label)) {
    throw new BadRequestError(
      `label must be 1 to ${String(MAX_LABEL_LENGTH)} characters without control characters`,
    );
  }
}

/** Plans from the most limited to the least. */
const PLAN_ORDER: readonly Plan[] = ['free', 'pro', 'scale'];

/**
 * The plan a tenant works under where no API key names one (event-driven ingestion): the
 * highest plan among its keys that are not revoked, as a request sent with its best key would
 * get. A tenant exists only through its keys, so undefined means no such tenant (none ever
 * issued, or all revoked).
 */
export async function tenantPlan(store: ApiKeyStore, tenant: string): Promise<Plan | undefined> {
  const plans = new Set(
    (await store.list(tenant)).filter((k) => k.revokedAt === undefined).map((k) => k.plan),
  );
  return [...PLAN_ORDER].reverse().find((plan) => plans.has(plan));
}
