import type { Plan } from '../domain/request.js';

/**
 * An API key as stored: only its SHA-256 (hex) is kept, mapped to the tenant and plan.
 *
 * `keyId` is the key's public name (`key_` and the first 12 hex characters of `keyHash`, see
 * `apiKeyId`): it may be shown, logged and typed on a command line, and it names the key when
 * it is listed, rotated or revoked. Records stored before ids existed have it derived on read.
 */
export interface ApiKeyRecord {
  keyId: string;
  keyHash: string;
  tenant: string;
  plan: Plan;
  createdAt: string;
  /** A note for people (what the key is for); never used to authenticate. */
  label?: string;
  /** When the key was revoked; a revoked key no longer authenticates. */
  revokedAt?: string;
  /** Id of the key this one replaced (see `rotateApiKey`). */
  rotatedFrom?: string;
}

/** A record to store: `keyId`, when given, must be the one its hash gives (`apiKeyId`). */
export type ApiKeyInput = Omit<ApiKeyRecord, 'keyId'> & { keyId?: string };

/**
 * API keys by hash (`KEY#<sha256>` / `KEY`), listed by tenant and looked up by public id.
 *
 * Lists are ordered by `createdAt`, then `keyId`.
 */
export interface ApiKeyStore {
  /**
   * Creates or replaces the key (a replaced key may change tenant, plan or label).
   * @throws {ConflictError} when another key already has the same id (a 48-bit prefix of the
   *   hash; the caller issues a new key).
   * @throws {RangeError} when `keyId` is given and is not the one `keyHash` gives.
   */
  put(record: ApiKeyInput): Promise<void>;
  /** The key record, or undefined for an unknown hash. */
  get(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** The key record with this public id, or undefined when there is none. */
  getById(keyId: string): Promise<ApiKeyRecord | undefined>;
  /** Every key, revoked ones included, or only those of `tenant`. */
  list(tenant?: string): Promise<ApiKeyRecord[]>;
  /**
   * Marks the key revoked at `at`. Idempotent: a key revoked before keeps its first `revokedAt`.
   * @returns the revoked record, or undefined (and nothing written) for an unknown id.
   */
  revoke(keyId: string, at: Date): Promise<ApiKeyRecord | undefined>;
}
