import { describe, expect, it } from 'vitest';
import type { BreakerPolicy } from '../../../../functions/core/domain/circuit-breaker.js';
import { ProviderBreakers } from '../../../../functions/core/domain/provider-breakers.js';
import type { BreakerStore } from '../../../../functions/core/ports/breaker-store.js';
import { FakeBreakerStore } from '../../../support/fake-breaker-store.js';

const T0 = Date.parse('2025-03-04T05:06:07.000Z');

const POLICY: BreakerPolicy = {
  failureThreshold: 3,
  cooldownMs: 30_000,
  halfOpenProbes: 1,
  idleAfterMs: 15 * 60_000,
};

/** Breakers over a fake store, with a clock the test moves by hand. */
function setUp(policy: BreakerPolicy = POLICY) {
  const store = new FakeBreakerStore();
  const clock = { at: T0, now: () => new Date(clock.at) };
  const breakers = new ProviderBreakers(store, policy, clock);
  return { store, clock, breakers };
}

/** Fails `id` as many times as it takes to open its circuit. */
async function open(breakers: ProviderBreakers, id: string): Promise<void> {
  for (let i = 0; i < POLICY.failureThreshold; i++) await breakers.failed(id, 'HTTP 503');
}

describe('ProviderBreakers', () => {
  it('reports providers with no record as IDLE and healthy', async () => {
    // Arrange
    const { breakers } = setUp();
    // Act
    const states = await breakers.states(['a', 'b']);
    // Assert
    expect(states).toEqual(
      new Map([
        ['a', { state: 'IDLE', healthy: true }],
        ['b', { state: 'IDLE', healthy: true }],
      ]),
    );
  });

  it('reports a used provider CLOSED, then IDLE once unused for idleAfterMs', async () => {
    // Arrange
    const { breakers, clock } = setUp();
    // Act
    const allowed = await breakers.tryAcquire('a');
    await breakers.succeeded('a');
    const busy = await breakers.states(['a']);
    clock.at += POLICY.idleAfterMs;
    const later = await breakers.states(['a']);
    // Assert
    expect(allowed).toBe(true);
    expect(busy.get('a')).toEqual({ state: 'CLOSED', healthy: true });
    expect(later.get('a')).toEqual({ state: 'IDLE', healthy: true });
  });

  it('opens after failureThreshold consecutive failures and then refuses calls', async () => {
    // Arrange
    const { breakers, clock } = setUp();
    await breakers.failed('a', 'HTTP 503');
    await breakers.failed('a', 'HTTP 503');
    const beforeThreshold = await breakers.tryAcquire('a');
    // Act
    await breakers.failed('a', 'HTTP 503');
    clock.at += POLICY.cooldownMs - 1;
    const whileOpen = await breakers.tryAcquire('a');
    // Assert
    expect(beforeThreshold).toBe(true);
    expect(whileOpen).toBe(false);
    expect((await breakers.states(['a'])).get('a')).toEqual({ state: 'OPEN', healthy: false });
  });

  it('counts only consecutive failures: a success in between resets them', async () => {
    // Arrange
    const { breakers } = setUp();
    await breakers.failed('a', 'x');
    await breakers.failed('a', 'x');
    // Act
    await breakers.succeeded('a');
    await breakers.failed('a', 'x');
    await breakers.failed('a', 'x');
    // Assert
    expect(await breakers.tryAcquire('a')).toBe(true);
  });

  it('writes nothing while refusing calls on an OPEN breaker', async () => {
    // Arrange
    const { breakers, store } = setUp();
    await open(breakers, 'a');
    const writes = store.writes;
    // Act
    for (let i = 0; i < 5; i++) await breakers.tryAcquire('a');
    // Assert
    expect(store.writes).toBe(writes);
  });

  it('admits one probe after the cooldown and refuses other calls meanwhile', async () => {
    // Arrange
    const { breakers, clock } = setUp();
    await open(breakers, 'a');
    clock.at += POLICY.cooldownMs;
    const observed = await breakers.states(['a']);
    // Act
    const probe = await breakers.tryAcquire('a');
    const other = await breakers.tryAcquire('a');
    // Assert
    expect(observed.get('a')).toEqual({ state: 'HALF_OPEN', healthy: true });
    expect(probe).toBe(true);
    expect(other).toBe(false);
    expect((await breakers.states(['a'])).get('a')?.state).toBe('HALF_OPEN');
  });

  it('admits exactly one probe among concurrent callers in different Lambdas', async () => {
    // Arrange: two services over one store, as two Lambdas share the table.
    const { breakers, store, clock } = setUp();
    const elsewhere = new ProviderBreakers(store, POLICY, clock);
    await open(breakers, 'a');
    clock.at += POLICY.cooldownMs;
    // Act
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? breakers : elsewhere).tryAcquire('a')),
    );
    // Assert
    expect(answers.filter(Boolean)).toHaveLength(1);
  });

  it('closes the circuit when the probe succeeds', async () => {
    // Arrange
    const { breakers, clock } = setUp();
    await open(breakers, 'a');
    clock.at += POLICY.cooldownMs;
    await breakers.tryAcquire('a');
    // Act
    await breakers.succeeded('a');
    // Assert
    expect((await breakers.states(['a'])).get('a')).toEqual({ state: 'CLOSED', healthy: true });
    expect(await breakers.tryAcquire('a')).toBe(true);
    expect(await breakers.tryAcquire('a')).toBe(true);
  });

  it('re-opens the circuit for another cooldown when the probe fails', async () => {
    // Arrange
    const { breakers, clock } = setUp();
    await open(breakers, 'a');
    clock.at += POLICY.cooldownMs;
    await breakers.tryAcquire('a');
    // Act
    await breakers.failed('a', 'still down');
    const rightAfter = await breakers.tryAcquire('a');
    clock.at += POLICY.cooldownMs;
    const nextProbe = await breakers.tryAcquire('a');
    // Assert
    expect(rightAfter).toBe(false);
    expect(nextProbe).toBe(true);
  });

  it('admits a new probe when the previous one never reported for a whole cooldown', async () => {
    // Arrange: the probing Lambda was killed mid-call.
    const { breakers, clock } = setUp();
    await open(breakers, 'a');
    clock.at += POLICY.cooldownMs;
    await breakers.tryAcquire('a');
    clock.at += POLICY.cooldownMs - 1;
    const stillWaiting = await breakers.tryAcquire('a');
    // Act
    clock.at += 1;
    const replacement = await breakers.tryAcquire('a');
    // Assert
    expect(stillWaiting).toBe(false);
    expect(replacement).toBe(true);
  });

  it('keeps a busy CLOSED breaker to reads, refreshing its use now and then', async () => {
    // Arrange
    const { breakers, store, clock } = setUp();
    await breakers.tryAcquire('a');
    const writes = store.writes;
    // Act
    for (let i = 0; i < 10; i++) {
      await breakers.tryAcquire('a');
      await breakers.succeeded('a');
    }
    const quiet = store.writes - writes;
    clock.at += POLICY.idleAfterMs / 10;
    await breakers.tryAcquire('a');
    // Assert
    expect(quiet).toBe(0);
    expect(store.writes - writes).toBe(1);
  });

  it('keeps the breakers of different providers apart', async () => {
    // Arrange
    const { breakers } = setUp();
    // Act
    await open(breakers, 'a');
    // Assert
    expect(await breakers.tryAcquire('a')).toBe(false);
    expect(await breakers.tryAcquire('b')).toBe(true);
  });

  it('uses the default policy and the system clock when given none', async () => {
    // Arrange
    const breakers = new ProviderBreakers(new FakeBreakerStore());
    // Act
    for (let i = 0; i < 4; i++) await breakers.failed('a', 'x');
    const afterFour = await breakers.tryAcquire('a');
    await breakers.failed('a', 'x');
    const afterFive = await breakers.tryAcquire('a');
    // Assert
    expect(afterFour).toBe(true);
    expect(afterFive).toBe(false);
  });

  describe('when the store fails (fail open)', () => {
    it('allows calls, drops observations and reports IDLE when the store is down', async () => {
      // Arrange
      const { breakers, store } = setUp();
      await open(breakers, 'a');
      store.failure = new Error('throttled');
      // Act
      const allowed = await breakers.tryAcquire('a');
      const reports = Promise.all([breakers.succeeded('a'), breakers.failed('a', 'x')]);
      const states = await breakers.states(['a']);
      // Assert
      expect(allowed).toBe(true);
      await expect(reports).resolves.toEqual([undefined, undefined]);
      expect(states.get('a')).toEqual({ state: 'IDLE', healthy: true });
    });

    it('allows the call when updates keep conflicting', async () => {
      // Arrange: a store that gives up at once, as after too many lost writes.
      const store = new FakeBreakerStore({ maxAttempts: 0 });
      const breakers = new ProviderBreakers(store, POLICY, { now: () => new Date(T0) });
      // Act
      const allowed = await breakers.tryAcquire('a');
      const failing = breakers.failed('a', 'x');
      // Assert
      expect(allowed).toBe(true);
      await expect(failing).resolves.toBeUndefined();
    });

    it('allows the call when the store does not answer in time', async () => {
      // Arrange: a store that never answers.
      const never = new Promise<never>(() => undefined);
      const hanging: BreakerStore = {
        get: () => never,
        getMany: () => never,
        update: () => never,
      };
      const breakers = new ProviderBreakers(
        hanging,
        POLICY,
        { now: () => new Date(T0) },
        {
          storeTimeoutMs: 5,
        },
      );
      // Act
      const allowed = await breakers.tryAcquire('a');
      const states = await breakers.states(['a']);
      await breakers.succeeded('a');
      // Assert
      expect(allowed).toBe(true);
      expect(states.get('a')).toEqual({ state: 'IDLE', healthy: true });
    });

    it('allows the call when the admission was read but its write is slow', async () => {
      // Arrange: the store decides (refused, OPEN) but its write never lands.
      const { breakers: opener, store, clock } = setUp();
      await open(opener, 'a');
      const slowWrite: BreakerStore = {
        get: (id) => store.get(id),
        getMany: (ids) => store.getMany(ids),
        update: (id, change) =>
          store.get(id).then((current) => {
            change(current);
            return new Promise<never>(() => undefined);
          }),
      };
      const breakers = new ProviderBreakers(slowWrite, POLICY, clock, { storeTimeoutMs: 5 });
      // Act
      const allowed = await breakers.tryAcquire('a');
      // Assert
      expect(allowed).toBe(true);
    });
  });
});

describe('ProviderBreakers: the healthy-breaker cache', () => {
  it('lets calls to a healthy provider through without the store for healthyCacheMs', async () => {
    // Arrange
    const { store, clock, breakers } = setUp();
    await breakers.tryAcquire('a');
    await breakers.succeeded('a');
    store.failure = new Error('store down');
    const failingStoreCalls = { count: 0 };
    const update = store.update.bind(store);
    store.update = (...args) => {
      failingStoreCalls.count++;
      return update(...args);
    };
    // Act: within the cache time, then after it.
    clock.at += 500;
    const cached = await breakers.tryAcquire('a');
    await breakers.succeeded('a');
    const callsWhileCached = failingStoreCalls.count;
    clock.at += 1_000;
    await breakers.tryAcquire('a');
    // Assert
    expect(cached).toBe(true);
    expect(callsWhileCached).toBe(0);
    expect(failingStoreCalls.count).toBe(1);
  });

  it("sees another process's opening of the circuit once the cache time is over", async () => {
    // Arrange: two processes on one store.
    const { store, clock, breakers } = setUp();
    const other = new ProviderBreakers(store, POLICY, clock);
    await breakers.tryAcquire('a');
    await breakers.succeeded('a');
    await open(other, 'a');
    // Act
    const stillCached = await breakers.tryAcquire('a');
    clock.at += 1_000;
    const afterCache = await breakers.tryAcquire('a');
    // Assert
    expect(stillCached).toBe(true);
    expect(afterCache).toBe(false);
  });

  it('never caches past a failure of its own', async () => {
    // Arrange
    const { breakers } = setUp();
    await breakers.tryAcquire('a');
    await breakers.succeeded('a');
    // Act
    await open(breakers, 'a');
    // Assert
    expect(await breakers.tryAcquire('a')).toBe(false);
  });

  it('tells its observer of every failed call and of each opening, a failed probe included', async () => {
    // Arrange
    const store = new FakeBreakerStore();
    const clock = { at: T0, now: () => new Date(clock.at) };
    const seen: string[] = [];
    const breakers = new ProviderBreakers(store, POLICY, clock, {
      observer: {
        failed: (id, reason) => seen.push(`failed ${id}: ${reason}`),
        opened: (id) => seen.push(`opened ${id}`),
      },
    });
    // Act
    await open(breakers, 'a');
    await breakers.failed('a', 'HTTP 503');
    clock.at += POLICY.cooldownMs;
    await breakers.tryAcquire('a');
    await breakers.failed('a', 'timeout');
    // Assert
    expect(seen).toEqual([
      'failed a: HTTP 503',
      'failed a: HTTP 503',
      'failed a: HTTP 503',
      'opened a',
      'failed a: HTTP 503',
      'failed a: timeout',
      'opened a',
    ]);
  });

  it('tells of a failure but of no opening when the store cannot be written', async () => {
    // Arrange
    const store: BreakerStore = {
      get: () => Promise.reject(new Error('throttled')),
      getMany: () => Promise.reject(new Error('throttled')),
      update: () => Promise.reject(new Error('throttled')),
    };
    const seen: string[] = [];
    const breakers = new ProviderBreakers(store, POLICY, undefined, {
      observer: { failed: (id) => seen.push(`failed ${id}`), opened: (id) => seen.push(id) },
    });
    // Act
    for (let i = 0; i < POLICY.failureThreshold; i++) await breakers.failed('a', 'HTTP 503');
    // Assert
    expect(seen).toEqual(['failed a', 'failed a', 'failed a']);
  });
});
