import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { initialBreaker, type BreakerRecord } from '../../functions/core/domain/circuit-breaker.js';
import type { BreakerStore } from '../../functions/core/ports/breaker-store.js';

/** A fresh provider id, so tests sharing one table never see each other's breakers. */
export const aProviderId = (): string => `provider-${randomUUID()}`;

/** A breaker record with some history, for `providerId`. */
export function aBreakerRecord(
  providerId: string,
  overrides: Partial<BreakerRecord> = {},
): BreakerRecord {
  return {
    ...initialBreaker(providerId),
    state: 'OPEN',
    consecutiveFailures: 5,
    openedAt: 1_700_000_000_000,
    lastUsedAt: 1_700_000_000_000,
    lastFailure: { at: 1_700_000_000_000, reason: 'HTTP 503' },
    ...overrides,
  };
}

/**
 * The BreakerStore contract: what every adapter (DynamoDB, in memory) must do.
 *
 * `factory` is called inside each test, after the caller's `beforeAll` has run.
 */
export function describeBreakerStoreContract(
  name: string,
  factory: () => BreakerStore | Promise<BreakerStore>,
): void {
  describe(`${name} (BreakerStore contract)`, () => {
    it('has no record for a provider never written', async () => {
      // Arrange
      const store = await factory();
      // Act
      const read = await store.get(aProviderId());
      // Assert
      expect(read).toBeUndefined();
    });

    it('creates a record at version 1 when none is stored, and reads it back', async () => {
      // Arrange
      const store = await factory();
      const id = aProviderId();
      const seen: (BreakerRecord | undefined)[] = [];
      // Act
      const written = await store.update(id, (current) => {
        seen.push(current);
        return aBreakerRecord(id);
      });
      // Assert
      expect(seen).toEqual([undefined]);
      expect(written).toStrictEqual(aBreakerRecord(id, { version: 1 }));
      expect(await store.get(id)).toStrictEqual(written);
    });

    it('updates from the current record and bumps the version', async () => {
      // Arrange
      const store = await factory();
      const id = aProviderId();
      await store.update(id, () => aBreakerRecord(id));
      // Act
      const written = await store.update(id, (current) =>
        current ? { ...current, state: 'HALF_OPEN', probesInFlight: 1, lastFailure: null } : null,
      );
      // Assert
      const expected = aBreakerRecord(id, {
        state: 'HALF_OPEN',
        probesInFlight: 1,
        lastFailure: null,
        version: 2,
      });
      expect(written).toStrictEqual(expected);
      expect(await store.get(id)).toStrictEqual(expected);
    });

    it('owns the provider id and the version, whatever the change puts there', async () => {
      // Arrange
      const store = await factory();
      const id = aProviderId();
      // Act
      const written = await store.update(id, () => aBreakerRecord('someone-else', { version: 41 }));
      // Assert
      expect(written).toMatchObject({ providerId: id, version: 1 });
      expect(await store.get(id)).toMatchObject({ providerId: id, version: 1 });
      expect(await store.get('someone-else')).toBeUndefined();
    });

    it('writes nothing when the change returns null, and answers the current record', async () => {
      // Arrange
      const store = await factory();
      const absent = aProviderId();
      const present = aProviderId();
      const created = await store.update(present, () => aBreakerRecord(present));
      // Act
      const forAbsent = await store.update(absent, () => null);
      const forPresent = await store.update(present, () => null);
      // Assert
      expect(forAbsent).toBeUndefined();
      expect(await store.get(absent)).toBeUndefined();
      expect(forPresent).toStrictEqual(created);
      expect(await store.get(present)).toStrictEqual(created);
    });

    it('reads several breakers at once, leaving out ids with no record', async () => {
      // Arrange
      const store = await factory();
      const [first, second, missing] = [aProviderId(), aProviderId(), aProviderId()];
      await store.update(first, () => aBreakerRecord(first));
      await store.update(second, () => aBreakerRecord(second, { state: 'CLOSED', openedAt: null }));
      // Act
      const records = await store.getMany([first, missing, second, first]);
      // Assert
      expect([...records.keys()].sort()).toEqual([first, second].sort());
      expect(records.get(first)).toStrictEqual(aBreakerRecord(first, { version: 1 }));
      expect(records.get(second)?.state).toBe('CLOSED');
      expect(records.has(missing)).toBe(false);
    });

    it('reads an empty list of ids as an empty map', async () => {
      // Arrange
      const store = await factory();
      // Act
      const records = await store.getMany([]);
      // Assert
      expect(records.size).toBe(0);
    });

    it('loses no update among 20 concurrent ones', async () => {
      // Arrange
      const store = await factory();
      const id = aProviderId();
      const increment = (current: BreakerRecord | undefined): BreakerRecord => {
        const base = current ?? initialBreaker(id);
        return { ...base, consecutiveFailures: base.consecutiveFailures + 1 };
      };
      // Act
      await Promise.all(Array.from({ length: 20 }, () => store.update(id, increment)));
      // Assert
      const record = await store.get(id);
      expect(record?.consecutiveFailures).toBe(20);
      expect(record?.version).toBe(20);
    });
  });
}
