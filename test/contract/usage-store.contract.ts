import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { UsageStore } from '../../functions/core/ports/usage-store.js';

/** A fresh key hash, so tests sharing one table never see each other's counters. */
export const aKeyHash = (): string => randomUUID().replaceAll('-', '').padEnd(64, '0');

/** A fresh tenant id. */
export const aTenant = (): string => `tenant-${randomUUID()}`;

/** The start of a minute, and a later expiry. */
export const WINDOW = new Date('2026-11-21T10:15:00.000Z');
export const DAY = '2026-11-21';
export const EXPIRES = new Date('2026-11-29T00:00:00.000Z');

/**
 * The UsageStore contract: what every adapter (DynamoDB, in memory) must do.
 *
 * `factory` is called inside each test, after the caller's `beforeAll` has run.
 */
export function describeUsageStoreContract(
  name: string,
  factory: () => UsageStore | Promise<UsageStore>,
): void {
  describe(`${name} (UsageStore contract)`, () => {
    it('counts requests of a window up to the limit, then refuses them without counting', async () => {
      // Arrange
      const store = await factory();
      const key = aKeyHash();
      // Act
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await store.consumeRequest(key, WINDOW, 3, EXPIRES));
      // Assert
      expect(answers).toEqual([
        { allowed: true, count: 1 },
        { allowed: true, count: 2 },
        { allowed: true, count: 3 },
        { allowed: false, count: 3 },
        { allowed: false, count: 3 },
      ]);
    });

    it('keeps one count per key and per minute', async () => {
      // Arrange
      const store = await factory();
      const key = aKeyHash();
      const nextMinute = new Date(WINDOW.getTime() + 60_000);
      await store.consumeRequest(key, WINDOW, 1, EXPIRES);
      // Act
      const sameWindow = await store.consumeRequest(key, WINDOW, 1, EXPIRES);
      const nextWindow = await store.consumeRequest(key, nextMinute, 1, EXPIRES);
      const otherKey = await store.consumeRequest(aKeyHash(), WINDOW, 1, EXPIRES);
      // Assert
      expect(sameWindow.allowed).toBe(false);
      expect(nextWindow).toEqual({ allowed: true, count: 1 });
      expect(otherKey).toEqual({ allowed: true, count: 1 });
    });

    it('allows exactly the limit of 30 parallel requests of one key', async () => {
      // Arrange
      const store = await factory();
      const key = aKeyHash();
      // Act
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => store.consumeRequest(key, WINDOW, 10, EXPIRES)),
      );
      // Assert
      const allowed = answers.filter((a) => a.allowed);
      expect(allowed).toHaveLength(10);
      expect(allowed.map((a) => a.count).sort((a, b) => a - b)).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
      ]);
      expect(answers.filter((a) => !a.allowed).every((a) => a.count === 10)).toBe(true);
    });

    it('counts pages up to exactly the limit, then refuses with the count that refused them', async () => {
      // Arrange
      const store = await factory();
      const tenant = aTenant();
      // Act
      const first = await store.reservePages(tenant, DAY, 20, 25, EXPIRES);
      const refused = await store.reservePages(tenant, DAY, 6, 25, EXPIRES);
      const fits = await store.reservePages(tenant, DAY, 5, 25, EXPIRES);
      const full = await store.reservePages(tenant, DAY, 1, 25, EXPIRES);
      // Assert
      expect(first).toEqual({ allowed: true, used: 20 });
      expect(refused).toEqual({ allowed: false, used: 20 });
      expect(fits).toEqual({ allowed: true, used: 25 });
      expect(full).toEqual({ allowed: false, used: 25 });
      expect(await store.pagesUsed(tenant, DAY)).toBe(25);
    });

    it('refuses a document larger than the whole limit, even on a fresh day', async () => {
      // Arrange
      const store = await factory();
      const tenant = aTenant();
      // Act
      const refused = await store.reservePages(tenant, DAY, 26, 25, EXPIRES);
      // Assert
      expect(refused).toEqual({ allowed: false, used: 0 });
      expect(await store.pagesUsed(tenant, DAY)).toBe(0);
    });

    it('counts every page without a limit', async () => {
      // Arrange
      const store = await factory();
      const tenant = aTenant();
      // Act
      await store.reservePages(tenant, DAY, 40_000, null, EXPIRES);
      const second = await store.reservePages(tenant, DAY, 5, null, EXPIRES);
      // Assert
      expect(second).toEqual({ allowed: true, used: 40_005 });
    });

    it('keeps one page count per tenant and per day', async () => {
      // Arrange
      const store = await factory();
      const tenant = aTenant();
      await store.reservePages(tenant, DAY, 25, 25, EXPIRES);
      // Act
      const nextDay = await store.reservePages(tenant, '2026-11-22', 25, 25, EXPIRES);
      const otherTenant = await store.reservePages(aTenant(), DAY, 25, 25, EXPIRES);
      // Assert
      expect(nextDay.allowed).toBe(true);
      expect(otherTenant.allowed).toBe(true);
      expect(await store.pagesUsed(tenant, DAY)).toBe(25);
    });

    it('never lets parallel reservations exceed the limit', async () => {
      // Arrange
      const store = await factory();
      const tenant = aTenant();
      // Act
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => store.reservePages(tenant, DAY, 3, 25, EXPIRES)),
      );
      // Assert
      expect(answers.filter((a) => a.allowed)).toHaveLength(8);
      expect(await store.pagesUsed(tenant, DAY)).toBe(24);
    });

    it('gives pages back once per refund id', async () => {
      // Arrange
      const store = await factory();
      const tenant = aTenant();
      await store.reservePages(tenant, DAY, 20, 25, EXPIRES);
      // Act
      const first = await store.refundPages(tenant, DAY, 6, 'req_1#a', EXPIRES);
      const again = await store.refundPages(tenant, DAY, 6, 'req_1#a', EXPIRES);
      const other = await store.refundPages(tenant, DAY, 4, 'req_2#a', EXPIRES);
      // Assert
      expect([first, again, other]).toEqual([true, false, true]);
      expect(await store.pagesUsed(tenant, DAY)).toBe(10);
    });

    it('gives pages back once when refunds of one id race', async () => {
      // Arrange
      const store = await factory();
      const tenant = aTenant();
      await store.reservePages(tenant, DAY, 20, 25, EXPIRES);
      // Act
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => store.refundPages(tenant, DAY, 5, 'req_1#a', EXPIRES)),
      );
      // Assert
      expect(answers.filter(Boolean)).toHaveLength(1);
      expect(await store.pagesUsed(tenant, DAY)).toBe(15);
    });

    it('never takes a count below zero, and leaves a day never counted at zero', async () => {
      // Arrange
      const store = await factory();
      const tenant = aTenant();
      await store.reservePages(tenant, DAY, 3, 25, EXPIRES);
      // Act
      const below = await store.refundPages(tenant, DAY, 5, 'req_1#a', EXPIRES);
      const uncounted = await store.refundPages(tenant, '2026-11-20', 5, 'req_2#a', EXPIRES);
      // Assert
      expect([below, uncounted]).toEqual([true, true]);
      expect(await store.pagesUsed(tenant, DAY)).toBe(0);
      expect(await store.pagesUsed(tenant, '2026-11-20')).toBe(0);
    });

    it('frees room for new reservations once pages are given back', async () => {
      // Arrange
      const store = await factory();
      const tenant = aTenant();
      await store.reservePages(tenant, DAY, 20, 25, EXPIRES);
      await store.refundPages(tenant, DAY, 20, 'req_1#a', EXPIRES);
      // Act
      const after = await store.reservePages(tenant, DAY, 25, 25, EXPIRES);
      // Assert
      expect(after).toEqual({ allowed: true, used: 25 });
    });

    it('reads zero pages for a tenant that used none', async () => {
      // Arrange
      const store = await factory();
      // Act
      const used = await store.pagesUsed(aTenant(), DAY);
      // Assert
      expect(used).toBe(0);
    });

    it.each([0, -1, 1.5])('rejects %s pages with a RangeError', async (pages) => {
      // Arrange
      const store = await factory();
      // Act
      const reserve = store.reservePages(aTenant(), DAY, pages, 25, EXPIRES);
      const refund = store.refundPages(aTenant(), DAY, pages, 'req_1#a', EXPIRES);
      // Assert
      await expect(reserve).rejects.toBeInstanceOf(RangeError);
      await expect(refund).rejects.toBeInstanceOf(RangeError);
    });
  });
}
