import type { CircuitBreakerState } from './schemas.js';

/**
 * The states a breaker is stored in. `IDLE` is never stored: it is how a CLOSED breaker that
 * nobody used for a while (or a provider with no record yet) is observed.
 */
export type StoredBreakerState = Exclude<CircuitBreakerState, 'IDLE'>;

/**
 * One provider's circuit breaker as persisted (`PROVIDER#<id>` / `BREAKER`), shared by every
 * Lambda.
 *
 * Times are epoch milliseconds. `version` belongs to the store: it counts the writes and drives
 * the optimistic concurrency of `BreakerStore.update`; the transition functions copy it through.
 */
export interface BreakerRecord {
  providerId: string;
  state: StoredBreakerState;
  /** Failures since the last success; reaching the policy's threshold opens the circuit. */
  consecutiveFailures: number;
  /** When the circuit last opened; null while it has not opened since it last closed. */
  openedAt: number | null;
  /** Trial calls admitted in HALF_OPEN that have not reported yet. */
  probesInFlight: number;
  /** When the latest probe was admitted; probes count as in flight for `cooldownMs` after it. */
  probeStartedAt: number | null;
  lastUsedAt: number | null;
  lastFailure: { at: number; reason: string } | null;
  version: number;
}

/** When a breaker opens, how long it stays open, and how it probes. */
export interface BreakerPolicy {
  /** Consecutive failures that open a CLOSED circuit. */
  failureThreshold: number;
  /** How long an OPEN circuit refuses calls before it admits a probe (HALF_OPEN). */
  cooldownMs: number;
  /** Concurrent trial calls allowed in HALF_OPEN. */
  halfOpenProbes: number;
  /** A CLOSED breaker unused this long is reported as IDLE. */
  idleAfterMs: number;
}

/** 5 consecutive failures open the circuit; 30 s later one probe at a time; idle after 15 min. */
export const DEFAULT_BREAKER_POLICY: Readonly<BreakerPolicy> = Object.freeze({
  failureThreshold: 5,
  cooldownMs: 30_000,
  halfOpenProbes: 1,
  idleAfterMs: 15 * 60_000,
});

/** The observed state and whether the provider counts as healthy (spec §2, ProviderStatus). */
export interface BreakerStatus {
  state: CircuitBreakerState;
  healthy: boolean;
}

/** The outcome of asking a breaker for a call. */
export interface Admission {
  allowed: boolean;
  /** The record to persist; the same object as the input when the call changes nothing. */
  next: BreakerRecord;
}

/** A CLOSED breaker with no history: what a provider without a stored record starts from. */
export function initialBreaker(providerId: string): BreakerRecord {
  return {
    providerId,
    state: 'CLOSED',
    consecutiveFailures: 0,
    openedAt: null,
    probesInFlight: 0,
    probeStartedAt: null,
    lastUsedAt: null,
    lastFailure: null,
    version: 0,
  };
}

/** Milliseconds from `since` to `now`; a missing time counts as infinitely long ago. */
const elapsed = (since: number | null, now: number): number =>
  since === null ? Number.POSITIVE_INFINITY : now - since;

/**
 * Probes still counted in flight: all of them until `cooldownMs` after the latest was admitted,
 * none after. A probe whose Lambda died mid-call never reports, so it must not hold HALF_OPEN
 * forever; a probe slower than a whole cooldown is treated as failed-silent.
 */
function liveProbes(record: BreakerRecord, policy: BreakerPolicy, now: number): number {
  return elapsed(record.probeStartedAt, now) < policy.cooldownMs ? record.probesInFlight : 0;
}

/**
 * The state a breaker is in at `now`, as the API reports it.
 *
 * | stored    | condition                                        | observed  |
 * |-----------|--------------------------------------------------|-----------|
 * | (none)    |                                                  | IDLE      |
 * | CLOSED    | last used `idleAfterMs` ago or more (or never)   | IDLE      |
 * | CLOSED    | otherwise                                        | CLOSED    |
 * | OPEN      | opened `cooldownMs` ago or more                  | HALF_OPEN |
 * | OPEN      | otherwise                                        | OPEN      |
 * | HALF_OPEN |                                                  | HALF_OPEN |
 */
export function observedState(
  record: BreakerRecord | undefined,
  policy: BreakerPolicy,
  now: number,
): CircuitBreakerState {
  if (!record) return 'IDLE';
  switch (record.state) {
    case 'CLOSED':
      return elapsed(record.lastUsedAt, now) >= policy.idleAfterMs ? 'IDLE' : 'CLOSED';
    case 'OPEN':
      return elapsed(record.openedAt, now) >= policy.cooldownMs ? 'HALF_OPEN' : 'OPEN';
    case 'HALF_OPEN':
      return 'HALF_OPEN';
  }
}

/**
 * The observed state with its health flag: healthy unless OPEN.
 *
 * A HALF_OPEN provider counts as healthy because it takes calls again (one probe at a time):
 * `healthy` answers "will the router send this provider work now?", and only OPEN says no. So
 * "every provider of a tier unhealthy" is exactly "every provider of the tier OPEN", the
 * condition for answering 503 (DESIGN §4). IDLE is healthy: nothing has failed.
 */
export function breakerStatus(
  record: BreakerRecord | undefined,
  policy: BreakerPolicy,
  now: number,
): BreakerStatus {
  const state = observedState(record, policy, now);
  return { state, healthy: state !== 'OPEN' };
}

/**
 * Asks the breaker for one call.
 *
 * | stored (observed)     | condition                               | allowed | next                                     |
 * |-----------------------|-----------------------------------------|---------|------------------------------------------|
 * | CLOSED (CLOSED, IDLE) |                                         | yes     | CLOSED, lastUsedAt now                   |
 * | OPEN (OPEN)           | before `cooldownMs`                     | no      | unchanged                                |
 * | OPEN (HALF_OPEN)      | `cooldownMs` after opening              | yes     | HALF_OPEN, 1 probe, probeStartedAt now   |
 * | HALF_OPEN             | live probes < `halfOpenProbes`          | yes     | HALF_OPEN, live probes + 1, started now  |
 * | HALF_OPEN             | live probes = `halfOpenProbes`          | no      | unchanged                                |
 *
 * Live probes are those admitted less than `cooldownMs` ago (see the record's `probeStartedAt`).
 */
export function admit(record: BreakerRecord, policy: BreakerPolicy, now: number): Admission {
  switch (record.state) {
    case 'CLOSED':
      return { allowed: true, next: { ...record, lastUsedAt: now } };
    case 'OPEN':
      if (elapsed(record.openedAt, now) < policy.cooldownMs)
        return { allowed: false, next: record };
      return { allowed: true, next: probe(record, 0, now) };
    case 'HALF_OPEN': {
      const live = liveProbes(record, policy, now);
      if (live >= policy.halfOpenProbes) return { allowed: false, next: record };
      return { allowed: true, next: probe(record, live, now) };
    }
  }
}

function probe(record: BreakerRecord, live: number, now: number): BreakerRecord {
  return {
    ...record,
    state: 'HALF_OPEN',
    probesInFlight: live + 1,
    probeStartedAt: now,
    lastUsedAt: now,
  };
}

/**
 * Reports a call that succeeded.
 *
 * | stored    | next                                                 |
 * |-----------|------------------------------------------------------|
 * | CLOSED    | CLOSED, failures 0, lastUsedAt now                   |
 * | HALF_OPEN | CLOSED, failures 0, no probes, openedAt null         |
 * | OPEN      | unchanged                                            |
 *
 * An OPEN breaker admits no call, so a success reported while OPEN comes from a call admitted
 * before the circuit opened: stale evidence, which must not undo the failures that opened it.
 * Only a probe (HALF_OPEN) closes the circuit.
 */
export function recordSuccess(record: BreakerRecord, now: number): BreakerRecord {
  if (record.state === 'OPEN') return record;
  return {
    ...record,
    state: 'CLOSED',
    consecutiveFailures: 0,
    openedAt: null,
    probesInFlight: 0,
    probeStartedAt: null,
    lastUsedAt: now,
  };
}

/**
 * Reports a call that failed, with a short reason kept as `lastFailure`.
 *
 * | stored    | condition                          | next                                  |
 * |-----------|------------------------------------|---------------------------------------|
 * | CLOSED    | failures + 1 < `failureThreshold`  | CLOSED, failures + 1                  |
 * | CLOSED    | failures + 1 ≥ `failureThreshold`  | OPEN, openedAt now                    |
 * | HALF_OPEN |                                    | OPEN, openedAt now, no probes         |
 * | OPEN      |                                    | OPEN, failures + 1, openedAt kept     |
 *
 * Every row counts the failure and sets `lastFailure` and `lastUsedAt`. A failure while OPEN
 * (a call admitted before the circuit opened) does not restart the cooldown.
 */
export function recordFailure(
  record: BreakerRecord,
  policy: BreakerPolicy,
  now: number,
  reason: string,
): BreakerRecord {
  const failed: BreakerRecord = {
    ...record,
    consecutiveFailures: record.consecutiveFailures + 1,
    lastUsedAt: now,
    lastFailure: { at: now, reason },
  };
  const opens =
    record.state === 'HALF_OPEN' ||
    (record.state === 'CLOSED' && failed.consecutiveFailures >= policy.failureThreshold);
  if (!opens) return failed;
  return { ...failed, state: 'OPEN', openedAt: now, probesInFlight: 0, probeStartedAt: null };
}

/**
 * Whether `next` is worth a write over `current`.
 *
 * Refreshing `lastUsedAt` alone is written only once it is `idleAfterMs / 10` old, so a busy
 * CLOSED breaker costs one read per call and a write every 90 s (default policy), not a write per
 * call on one hot item. IDLE may then be reported up to that much early, which is harmless.
 */
export function worthWriting(
  current: BreakerRecord | undefined,
  next: BreakerRecord,
  policy: BreakerPolicy,
): boolean {
  if (!current) return true;
  const sameState =
    next.providerId === current.providerId &&
    next.state === current.state &&
    next.consecutiveFailures === current.consecutiveFailures &&
    next.openedAt === current.openedAt &&
    next.probesInFlight === current.probesInFlight &&
    next.probeStartedAt === current.probeStartedAt &&
    next.lastFailure?.at === current.lastFailure?.at &&
    next.lastFailure?.reason === current.lastFailure?.reason;
  if (!sameState) return true;
  if (next.lastUsedAt === current.lastUsedAt) return false;
  return (
    next.lastUsedAt === null ||
    elapsed(current.lastUsedAt, next.lastUsedAt) >= policy.idleAfterMs / 10
  );
}
