/**
 * Where a tenant's cached result is filed: the tenant, the SHA-256 of the document's bytes, and
 * the variant (a digest of every option and setting that changes the result, see
 * `resultCacheKey`). The tenant is part of every key: entries are never shared across tenants.
 */
export interface ResultCacheKey {
  tenant: string;
  /** SHA-256 of the document's bytes, lowercase hex. */
  documentHash: string;
  /** Digest of the options and configuration the result depends on, lowercase hex. */
  variant: string;
}

/** A completed parse that can answer the same document, with the same options, again. */
export interface CachedResult {
  /** The request that parsed the document. */
  requestId: string;
  /** ObjectStore key of that request's stored ParseResponse. */
  resultKey: string;
  /** Pages in that result. */
  pages: number;
  /** When the entry was stored (ISO 8601). */
  storedAt: string;
  /** When the entry stops answering (ISO 8601); the store may forget it any time after. */
  validUntil: string;
}

/**
 * The result cache (`DOC#<tenant>#<sha256>#<variant>` / `DOC` in the service table): one entry
 * per key, the last completed parse of that document with those options.
 */
export interface ResultCache {
  /**
   * The entry stored under `key` that is still valid at `now` (its `validUntil` is after `now`),
   * or undefined when there is none.
   */
  get(key: ResultCacheKey, now: Date): Promise<CachedResult | undefined>;
  /** Stores `entry` under `key`, replacing any entry there. */
  put(key: ResultCacheKey, entry: CachedResult): Promise<void>;
  /** Forgets the entry under `key`, if any. */
  delete(key: ResultCacheKey): Promise<void>;
}
