import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BREAKER_POLICY,
  admit,
  breakerStatus,
  initialBreaker,
  observedState,
  recordFailure,
  recordSuccess,
  worthWriting,
  type BreakerPolicy,
  type BreakerRecord,
} from '../../../../functions/core/domain/circuit-breaker.js';

const T0 = 1_700_000_000_000;

const POLICY: BreakerPolicy = {
  failureThreshold: 3,
  cooldownMs: 10_000,
  halfOpenProbes: 2,
  idleAfterMs: 60_000,
};

const closed = (overrides: Partial<BreakerRecord> = {}): BreakerRecord => ({
  ...initialBreaker('p'),
  lastUsedAt: T0,
  version: 7,
  ...overrides,
});

const open = (overrides: Partial<BreakerRecord> = {}): BreakerRecord =>
  closed({
    state: 'OPEN',
    consecutiveFailures: 3,
    openedAt: T0,
    lastFailure: { at: T0, reason: 'HTTP 503' },
    ...overrides,
  });

const halfOpen = (overrides: Partial<BreakerRecord> = {}): BreakerRecord =>
  open({ state: 'HALF_OPEN', probesInFlight: 1, probeStartedAt: T0, ...overrides });

describe('DEFAULT_BREAKER_POLICY', () => {
  it('opens after 5 failures, probes once after 30 s and idles after 15 min', () => {
    // Assert
    expect(DEFAULT_BREAKER_POLICY).toEqual({
      failureThreshold: 5,
      cooldownMs: 30_000,
      halfOpenProbes: 1,
      idleAfterMs: 900_000,
    });
    expect(Object.isFrozen(DEFAULT_BREAKER_POLICY)).toBe(true);
  });
});

describe('initialBreaker', () => {
  it('is CLOSED with no history and version 0', () => {
    // Act
    const record = initialBreaker('openai');
    // Assert
    expect(record).toEqual({
      providerId: 'openai',
      state: 'CLOSED',
      consecutiveFailures: 0,
      openedAt: null,
      probesInFlight: 0,
      probeStartedAt: null,
      lastUsedAt: null,
      lastFailure: null,
      version: 0,
    });
  });
});

describe('observedState', () => {
  it.each([
    ['no record', undefined, T0, 'IDLE'],
    ['CLOSED, never used', closed({ lastUsedAt: null }), T0, 'IDLE'],
    ['CLOSED, used just now', closed(), T0, 'CLOSED'],
    ['CLOSED, used just under idleAfterMs ago', closed(), T0 + 59_999, 'CLOSED'],
    ['CLOSED, used idleAfterMs ago', closed(), T0 + 60_000, 'IDLE'],
    ['CLOSED with failures, used long ago', closed({ consecutiveFailures: 2 }), T0 + 1e9, 'IDLE'],
    ['OPEN, within its cooldown', open(), T0 + 9_999, 'OPEN'],
    ['OPEN, at the end of its cooldown', open(), T0 + 10_000, 'HALF_OPEN'],
    ['OPEN, long unused', open(), T0 + 1e9, 'HALF_OPEN'],
    ['OPEN with no opening time', open({ openedAt: null }), T0, 'HALF_OPEN'],
    ['HALF_OPEN', halfOpen(), T0, 'HALF_OPEN'],
    ['HALF_OPEN, long unused', halfOpen(), T0 + 1e9, 'HALF_OPEN'],
  ] as const)('%s is observed as %s', (_case, record, now, expected) => {
    // Act
    const state = observedState(record, POLICY, now);
    // Assert
    expect(state).toBe(expected);
  });
});

describe('breakerStatus', () => {
  it.each([
    ['IDLE', undefined, true],
    ['CLOSED', closed(), true],
    ['HALF_OPEN', halfOpen(), true],
    ['OPEN', open(), false],
  ] as const)('reports %s as healthy: %s', (state, record, healthy) => {
    // Act
    const status = breakerStatus(record, POLICY, T0 + 1);
    // Assert
    expect(status).toEqual({ state, healthy });
  });

  it('reports an OPEN breaker past its cooldown as HALF_OPEN and healthy', () => {
    // Act
    const status = breakerStatus(open(), POLICY, T0 + 10_000);
    // Assert
    expect(status).toEqual({ state: 'HALF_OPEN', healthy: true });
  });
});

describe('admit', () => {
  it('allows a call on a CLOSED breaker and marks it used', () => {
    // Arrange
    const record = closed({ consecutiveFailures: 2 });
    // Act
    const { allowed, next } = admit(record, POLICY, T0 + 5);
    // Assert
    expect(allowed).toBe(true);
    expect(next).toEqual({ ...record, lastUsedAt: T0 + 5 });
  });

  it('allows a call on an IDLE breaker, which becomes CLOSED again', () => {
    // Arrange
    const record = initialBreaker('p');
    // Act
    const { allowed, next } = admit(record, POLICY, T0);
    // Assert
    expect(allowed).toBe(true);
    expect(observedState(next, POLICY, T0)).toBe('CLOSED');
  });

  it('refuses a call on an OPEN breaker within its cooldown, changing nothing', () => {
    // Arrange
    const record = open();
    // Act
    const { allowed, next } = admit(record, POLICY, T0 + 9_999);
    // Assert
    expect(allowed).toBe(false);
    expect(next).toBe(record);
  });

  it('admits a probe on an OPEN breaker past its cooldown, turning it HALF_OPEN', () => {
    // Arrange
    const record = open();
    // Act
    const { allowed, next } = admit(record, POLICY, T0 + 10_000);
    // Assert
    expect(allowed).toBe(true);
    expect(next).toEqual({
      ...record,
      state: 'HALF_OPEN',
      probesInFlight: 1,
      probeStartedAt: T0 + 10_000,
      lastUsedAt: T0 + 10_000,
    });
  });

  it('admits probes on a HALF_OPEN breaker up to halfOpenProbes', () => {
    // Arrange
    const record = halfOpen();
    // Act
    const second = admit(record, POLICY, T0 + 1);
    const third = admit(second.next, POLICY, T0 + 2);
    // Assert
    expect(second.allowed).toBe(true);
    expect(second.next).toMatchObject({
      state: 'HALF_OPEN',
      probesInFlight: 2,
      probeStartedAt: T0 + 1,
    });
    expect(third.allowed).toBe(false);
    expect(third.next).toBe(second.next);
  });

  it('refuses a further probe while the live probes are at the limit', () => {
    // Arrange
    const record = halfOpen({ probesInFlight: 2 });
    // Act
    const { allowed, next } = admit(record, POLICY, T0 + 9_999);
    // Assert
    expect(allowed).toBe(false);
    expect(next).toBe(record);
  });

  it('expires probes that never reported once a cooldown has passed since the latest', () => {
    // Arrange: two probes whose Lambdas died; nobody will ever report them.
    const record = halfOpen({ probesInFlight: 2, probeStartedAt: T0 });
    // Act
    const { allowed, next } = admit(record, POLICY, T0 + 10_000);
    // Assert: both expired, so this call is the only live probe.
    expect(allowed).toBe(true);
    expect(next).toMatchObject({
      state: 'HALF_OPEN',
      probesInFlight: 1,
      probeStartedAt: T0 + 10_000,
    });
  });

  it('counts a HALF_OPEN breaker with no probe start as having no live probe', () => {
    // Arrange
    const record = halfOpen({ probesInFlight: 5, probeStartedAt: null });
    // Act
    const { allowed, next } = admit(record, POLICY, T0);
    // Assert
    expect(allowed).toBe(true);
    expect(next.probesInFlight).toBe(1);
  });

  it('keeps the version: the store owns it', () => {
    // Act
    const { next } = admit(open(), POLICY, T0 + 10_000);
    // Assert
    expect(next.version).toBe(7);
  });
});

describe('recordSuccess', () => {
  it('resets the failures of a CLOSED breaker', () => {
    // Arrange
    const record = closed({ consecutiveFailures: 2, lastFailure: { at: T0, reason: 'timeout' } });
    // Act
    const next = recordSuccess(record, T0 + 3);
    // Assert
    expect(next).toEqual({ ...record, consecutiveFailures: 0, lastUsedAt: T0 + 3 });
  });

  it('closes a HALF_OPEN breaker on a probe success', () => {
    // Arrange
    const record = halfOpen({ probesInFlight: 2 });
    // Act
    const next = recordSuccess(record, T0 + 12_000);
    // Assert
    expect(next).toEqual({
      ...record,
      state: 'CLOSED',
      consecutiveFailures: 0,
      openedAt: null,
      probesInFlight: 0,
      probeStartedAt: null,
      lastUsedAt: T0 + 12_000,
    });
    expect(observedState(next, POLICY, T0 + 12_000)).toBe('CLOSED');
  });

  it('ignores a success reported while OPEN: the call was admitted before the circuit opened', () => {
    // Arrange
    const record = open();
    // Act
    const next = recordSuccess(record, T0 + 1);
    // Assert
    expect(next).toBe(record);
  });
});

describe('recordFailure', () => {
  it('counts a failure of a CLOSED breaker below the threshold', () => {
    // Arrange
    const record = closed({ consecutiveFailures: 1 });
    // Act
    const next = recordFailure(record, POLICY, T0 + 4, 'HTTP 500');
    // Assert
    expect(next).toEqual({
      ...record,
      consecutiveFailures: 2,
      lastUsedAt: T0 + 4,
      lastFailure: { at: T0 + 4, reason: 'HTTP 500' },
    });
  });

  it('opens a CLOSED breaker when the failures reach the threshold', () => {
    // Arrange
    const record = closed({ consecutiveFailures: 2 });
    // Act
    const next = recordFailure(record, POLICY, T0 + 4, 'HTTP 500');
    // Assert
    expect(next).toMatchObject({
      state: 'OPEN',
      consecutiveFailures: 3,
      openedAt: T0 + 4,
      probesInFlight: 0,
      probeStartedAt: null,
      lastFailure: { at: T0 + 4, reason: 'HTTP 500' },
    });
  });

  it('opens after exactly failureThreshold failures in a row from a fresh breaker', () => {
    // Arrange
    let record = initialBreaker('p');
    const states: string[] = [];
    // Act
    for (let i = 0; i < POLICY.failureThreshold; i++) {
      record = recordFailure(record, POLICY, T0 + i, 'boom');
      states.push(record.state);
    }
    // Assert
    expect(states).toEqual(['CLOSED', 'CLOSED', 'OPEN']);
  });

  it('re-opens a HALF_OPEN breaker on a probe failure and restarts the cooldown', () => {
    // Arrange
    const record = halfOpen({ probeStartedAt: T0 + 10_000 });
    // Act
    const next = recordFailure(record, POLICY, T0 + 11_000, 'still down');
    // Assert
    expect(next).toMatchObject({
      state: 'OPEN',
      openedAt: T0 + 11_000,
      probesInFlight: 0,
      probeStartedAt: null,
      consecutiveFailures: 4,
    });
    expect(observedState(next, POLICY, T0 + 20_999)).toBe('OPEN');
    expect(observedState(next, POLICY, T0 + 21_000)).toBe('HALF_OPEN');
  });

  it('keeps an OPEN breaker open without restarting its cooldown', () => {
    // Arrange
    const record = open();
    // Act
    const next = recordFailure(record, POLICY, T0 + 5_000, 'late failure');
    // Assert
    expect(next).toMatchObject({
      state: 'OPEN',
      openedAt: T0,
      consecutiveFailures: 4,
      lastFailure: { at: T0 + 5_000, reason: 'late failure' },
    });
  });
});

describe('worthWriting', () => {
  it('writes a record that does not exist yet', () => {
    // Act & Assert
    expect(worthWriting(undefined, initialBreaker('p'), POLICY)).toBe(true);
  });

  it('skips the unchanged record', () => {
    // Arrange
    const record = closed();
    // Act & Assert
    expect(worthWriting(record, record, POLICY)).toBe(false);
    expect(worthWriting(record, { ...record, version: 8 }, POLICY)).toBe(false);
  });

  it.each([
    ['state', { state: 'OPEN' }],
    ['failures', { consecutiveFailures: 1 }],
    ['openedAt', { openedAt: T0 }],
    ['probes', { probesInFlight: 1 }],
    ['probe start', { probeStartedAt: T0 }],
    ['provider id', { providerId: 'q' }],
    ['last failure', { lastFailure: { at: T0, reason: 'x' } }],
  ] as const)('writes a change of %s', (_field, change) => {
    // Arrange
    const record = closed();
    // Act & Assert
    expect(worthWriting(record, { ...record, ...change }, POLICY)).toBe(true);
  });

  it('writes a change of the last failure reason alone', () => {
    // Arrange
    const record = closed({ lastFailure: { at: T0, reason: 'x' } });
    // Act & Assert
    expect(worthWriting(record, { ...record, lastFailure: { at: T0, reason: 'y' } }, POLICY)).toBe(
      true,
    );
  });

  it('refreshes lastUsedAt only once it is a tenth of idleAfterMs old', () => {
    // Arrange
    const record = closed();
    // Act & Assert
    expect(worthWriting(record, { ...record, lastUsedAt: T0 + 5_999 }, POLICY)).toBe(false);
    expect(worthWriting(record, { ...record, lastUsedAt: T0 + 6_000 }, POLICY)).toBe(true);
  });

  it('writes a first or cleared lastUsedAt', () => {
    // Arrange
    const record = closed({ lastUsedAt: null });
    // Act & Assert
    expect(worthWriting(record, { ...record, lastUsedAt: T0 }, POLICY)).toBe(true);
    expect(worthWriting(closed(), { ...closed(), lastUsedAt: null }, POLICY)).toBe(true);
  });
});
