import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord, ApiKeyStore } from '../../functions/core/ports/api-key-store.js';

/** A key record for a fresh random key. */
export function anApiKeyRecord(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    keyHash: createHash('sha256').update(`sk-${randomUUID()}`).digest('hex'),
    tenant: 'tenant-a',
    plan: 'pro',
    createdAt: '2025-01-02T03:04:05.000Z',
    ...overrides,
  };
}

/**
 * The ApiKeyStore contract: what every adapter (DynamoDB, in memory) must do.
 *
 * `factory` is called inside each test, after the caller's `beforeAll` has run.
 */
export function describeApiKeyStoreContract(
  name: string,
  factory: () => ApiKeyStore | Promise<ApiKeyStore>,
): void {
  describe(`${name} (ApiKeyStore contract)`, () => {
    it('returns the key record stored under its hash', async () => {
      // Arrange
      const store = await factory();
      const record = anApiKeyRecord();
      // Act
      await store.put(record);
      const read = await store.get(record.keyHash);
      // Assert
      expect(read).toStrictEqual(record);
    });

    it('returns undefined for an unknown hash', async () => {
      // Arrange
      const store = await factory();
      // Act
      const read = await store.get(anApiKeyRecord().keyHash);
      // Assert
      expect(read).toBeUndefined();
    });

    it('replaces the record on a second put of the same hash', async () => {
      // Arrange
      const store = await factory();
      const record = anApiKeyRecord({ plan: 'free' });
      await store.put(record);
      // Act
      await store.put({ ...record, plan: 'scale' });
      // Assert
      expect((await store.get(record.keyHash))?.plan).toBe('scale');
    });

    it('keeps the keys of different tenants apart', async () => {
      // Arrange
      const store = await factory();
      const first = anApiKeyRecord({ tenant: 'tenant-a' });
      const second = anApiKeyRecord({ tenant: 'tenant-b', plan: 'free' });
      // Act
      await Promise.all([store.put(first), store.put(second)]);
      // Assert
      expect(await store.get(first.keyHash)).toStrictEqual(first);
      expect(await store.get(second.keyHash)).toStrictEqual(second);
    });
  });
}
