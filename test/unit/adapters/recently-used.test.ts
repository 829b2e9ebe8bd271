import { describe, expect, it } from 'vitest';
import { RecentlyUsed } from '../../../functions/adapters/recently-used.js';

describe('RecentlyUsed', () => {
  it('drops the least recently set entries beyond maxEntries', () => {
    // Arrange
    const recent = new RecentlyUsed<string, number>({ maxEntries: 2 });
    // Act
    recent.set('a', 1);
    recent.set('b', 2);
    recent.set('a', 3);
    recent.set('c', 4);
    // Assert: setting a again made b the oldest.
    expect([recent.get('a'), recent.has('b'), recent.get('c')]).toEqual([3, false, 4]);
  });

  it('drops the oldest entries beyond maxWeight, counting replaced and deleted values once', () => {
    // Arrange
    const recent = new RecentlyUsed<string, string>({ maxWeight: 10, weigh: (v) => v.length });
    // Act
    recent.set('a', 'xxxx');
    recent.set('a', 'xxxxxx');
    recent.set('b', 'yyyy');
    recent.delete('b');
    recent.set('c', 'zzzz');
    recent.set('d', 'ww');
    // Assert: a (6) + c (4) + d (2) = 12 > 10, so a goes.
    expect([recent.has('a'), recent.get('c'), recent.get('d')]).toEqual([false, 'zzzz', 'ww']);
  });
});
