import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type {
  CachedResult,
  ResultCache,
  ResultCacheKey,
} from '../../functions/core/ports/result-cache.js';

const hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** A key of its own tenant, with `overrides`. */
export function aCacheKey(overrides: Partial<ResultCacheKey> = {}): ResultCacheKey {
  return {
    tenant: `tenant-${randomUUID()}`,
    documentHash: hex('document'),
    variant: hex('defaults'),
    ...overrides,
  };
}

/** The instant the contract's entries are read at. */
export const NOW = new Date('2026-03-01T12:00:00.000Z');

/** An entry stored at {@link NOW}, valid for a day, with `overrides`. */
export function aCachedResult(overrides: Partial<CachedResult> = {}): CachedResult {
  return {
    requestId: 'req_source1',
    resultKey: 'results/t/req_source1.json',
    pages: 18,
    storedAt: NOW.toISOString(),
    validUntil: new Date(NOW.getTime() + 24 * 3600 * 1000).toISOString(),
    ...overrides,
  };
}

/**
 * The ResultCache contract: what every adapter (DynamoDB, in memory) must do.
 *
 * `factory` is called inside each test, after the caller's `beforeAll` has run.
 */
export function describeResultCacheContract(
  name: string,
  factory: () => ResultCache | Promise<ResultCache>,
): void {
  describe(`${name} (ResultCache contract)`, () => {
    it('returns undefined for a key nothing was stored under', async () => {
      // Arrange
      const cache = await factory();
      // Act
      const entry = await cache.get(aCacheKey(), NOW);
      // Assert
      expect(entry).toBeUndefined();
    });

    it('returns the entry stored under a key', async () => {
      // Arrange
      const cache = await factory();
      const key = aCacheKey();
      const stored = aCachedResult();
      // Act
      await cache.put(key, stored);
      const entry = await cache.get(key, NOW);
      // Assert
      expect(entry).toEqual(stored);
    });

    it('replaces the entry of a key on a second put', async () => {
      // Arrange
      const cache = await factory();
      const key = aCacheKey();
      await cache.put(key, aCachedResult());
      const fresh = aCachedResult({
        requestId: 'req_fresh',
        resultKey: 'results/t/req_fresh.json',
      });
      // Act
      await cache.put(key, fresh);
      // Assert
      expect(await cache.get(key, NOW)).toEqual(fresh);
    });

    it('keeps entries of other tenants, documents and variants apart', async () => {
      // Arrange
      const cache = await factory();
      const key = aCacheKey();
      await cache.put(key, aCachedResult());
      // Act
      const others = await Promise.all([
        cache.get({ ...key, tenant: `${key.tenant}-other` }, NOW),
        cache.get({ ...key, documentHash: hex('another document') }, NOW),
        cache.get({ ...key, variant: hex('other options') }, NOW),
      ]);
      // Assert
      expect(others).toEqual([undefined, undefined, undefined]);
    });

    it('stops returning an entry once its validUntil has come', async () => {
      // Arrange
      const cache = await factory();
      const key = aCacheKey();
      const entry = aCachedResult();
      await cache.put(key, entry);
      const justBefore = new Date(Date.parse(entry.validUntil) - 1);
      // Act
      const before = await cache.get(key, justBefore);
      const at = await cache.get(key, new Date(entry.validUntil));
      // Assert
      expect(before).toEqual(entry);
      expect(at).toBeUndefined();
    });

    it('forgets a deleted entry, and deleting a missing one is no error', async () => {
      // Arrange
      const cache = await factory();
      const key = aCacheKey();
      await cache.put(key, aCachedResult());
      // Act
      await cache.delete(key);
      await cache.delete(aCacheKey());
      // Assert
      expect(await cache.get(key, NOW)).toBeUndefined();
    });
  });
}
