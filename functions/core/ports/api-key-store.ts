import type { Plan } from '../domain/request.js';

/** An API key as stored: only its SHA-256 (hex) is kept, mapped to the tenant and plan. */
export interface ApiKeyRecord {
  keyHash: string;
  tenant: string;
  plan: Plan;
  createdAt: string;
}

/** API keys by hash (`KEY#<sha256>` / `KEY`). */
export interface ApiKeyStore {
  /** Creates or replaces the key. */
  put(record: ApiKeyRecord): Promise<void>;
  /** The key record, or undefined for an unknown hash. */
  get(keyHash: string): Promise<ApiKeyRecord | undefined>;
}
