import type {
  CachedResult,
  ResultCache,
  ResultCacheKey,
} from '../../functions/core/ports/result-cache.js';

/** ResultCache in memory, with the DynamoDB adapter's semantics (copies in and out). */
export class InMemoryResultCache implements ResultCache {
  readonly #entries = new Map<string, CachedResult>();

  get(key: ResultCacheKey, now: Date): Promise<CachedResult | undefined> {
    const entry = this.#entries.get(idOf(key));
    if (!entry || !(Date.parse(entry.validUntil) > now.getTime())) {
      return Promise.resolve(undefined);
    }
    return Promise.resolve({ ...entry });
  }

  put(key: ResultCacheKey, entry: CachedResult): Promise<void> {
    this.#entries.set(idOf(key), { ...entry });
    return Promise.resolve();
  }

  delete(key: ResultCacheKey): Promise<void> {
    this.#entries.delete(idOf(key));
    return Promise.resolve();
  }

  /** Entries stored so far (for assertions). */
  get size(): number {
    return this.#entries.size;
  }
}

const idOf = (key: ResultCacheKey): string =>
  JSON.stringify([key.tenant, key.documentHash, key.variant]);
