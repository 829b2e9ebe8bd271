import { describe, expect, it } from 'vitest';
import { LocalUsageStore } from '../../../../functions/adapters/local/local-usage-store.js';
import { checkRequestRate } from '../../../../functions/core/app/limits.js';
import { RateLimitedError } from '../../../../functions/core/domain/errors.js';
import {
  DAY,
  EXPIRES,
  WINDOW,
  aKeyHash,
  aTenant,
  describeUsageStoreContract,
} from '../../../contract/usage-store.contract.js';
import { ManualClock, SETTINGS } from '../../../support/builders.js';
import { InMemoryUsageStore } from '../../../support/fakes.js';

describeUsageStoreContract('LocalUsageStore', () => new LocalUsageStore(new InMemoryUsageStore()));

const MINUTE = 60_000;

describe('LocalUsageStore', () => {
  it('keeps page counts in the store it is given', async () => {
    // Arrange
    const pages = new InMemoryUsageStore();
    const store = new LocalUsageStore(pages);
    const tenant = aTenant();
    // Act
    await store.reservePages(tenant, DAY, 7, 25, EXPIRES);
    // Assert
    expect(await pages.pagesUsed(tenant, DAY)).toBe(7);
  });

  it('refunds and reads page counts in the store it is given', async () => {
    // Arrange
    const pages = new InMemoryUsageStore();
    const store = new LocalUsageStore(pages);
    const tenant = aTenant();
    await pages.reservePages(tenant, DAY, 7, 25, EXPIRES);
    // Act
    const refunded = await store.refundPages(tenant, DAY, 3, 'refund-1', EXPIRES);
    // Assert
    expect(refunded).toBe(true);
    expect(await pages.pagesUsed(tenant, DAY)).toBe(4);
    expect(await store.pagesUsed(tenant, DAY)).toBe(4);
  });

  it('forgets request windows once past their expiry, and only then', async () => {
    // Arrange
    const store = new LocalUsageStore(new InMemoryUsageStore());
    const old = aKeyHash();
    await store.consumeRequest(old, WINDOW, 1, new Date(WINDOW.getTime() + 60 * MINUTE));
    // Act
    const beforeExpiry = new Date(WINDOW.getTime() + 59 * MINUTE);
    await store.consumeRequest(aKeyHash(), beforeExpiry, 1, EXPIRES);
    const kept = store.windowCount;
    const atExpiry = new Date(WINDOW.getTime() + 60 * MINUTE);
    await store.consumeRequest(aKeyHash(), atExpiry, 1, EXPIRES);
    // Assert
    expect(kept).toBe(2);
    expect(store.windowCount).toBe(2);
    expect(await store.consumeRequest(old, WINDOW, 1, EXPIRES)).toEqual({
      allowed: true,
      count: 1,
    });
  });

  it('lets checkRequestRate refuse the 11th request of a free key in a minute with 429, and allow it in the next', async () => {
    // Arrange
    const clock = new ManualClock();
    const deps = {
      usage: new LocalUsageStore(new InMemoryUsageStore()),
      clock,
      settings: SETTINGS,
    };
    const caller = { keyHash: aKeyHash(), plan: 'free' as const };
    const outcomes: string[] = [];
    // Act
    for (let i = 0; i < 11; i++) {
      outcomes.push(
        await checkRequestRate(deps, caller).then(
          () => 'allowed',
          (error: unknown) => (error instanceof RateLimitedError ? 'refused' : String(error)),
        ),
      );
    }
    clock.advance(MINUTE);
    const nextMinute = await checkRequestRate(deps, caller).then(() => 'allowed');
    // Assert
    expect(SETTINGS.planLimits.free.requestsPerMinute).toBe(10);
    expect(outcomes).toEqual([...Array<string>(10).fill('allowed'), 'refused']);
    expect(nextMinute).toBe('allowed');
  });

  it('allows exactly the limit when many requests of one key arrive at once', async () => {
    // Arrange
    const store = new LocalUsageStore(new InMemoryUsageStore());
    const key = aKeyHash();
    // Act
    const answers = await Promise.all(
      Array.from({ length: 1000 }, () => store.consumeRequest(key, WINDOW, 600, EXPIRES)),
    );
    // Assert
    expect(answers.filter((a) => a.allowed)).toHaveLength(600);
  });
});
