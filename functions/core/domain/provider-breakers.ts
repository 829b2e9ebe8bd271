import type { BreakerStore } from '../ports/breaker-store.js';
import type { Clock } from '../ports/clock.js';
import {
  DEFAULT_BREAKER_POLICY,
  admit,
  breakerStatus,
  initialBreaker,
  recordFailure,
  recordSuccess,
  worthWriting,
  type BreakerPolicy,
  type BreakerRecord,
  type BreakerStatus,
} from './circuit-breaker.js';

/** How long a breaker call may take before it is given up (the call then fails open). */
const DEFAULT_STORE_TIMEOUT_MS = 1_000;

/**
 * How long this process trusts the last record it saw of a healthy breaker (CLOSED, no recent
 * failure) without reading the store again. Another process's failures then reach this one at
 * most this late; busy providers save two store round trips per call.
 */
const DEFAULT_HEALTHY_CACHE_MS = 1_000;

/**
 * Told of what the breakers see, for metrics and logs; its calls must not throw.
 */
export interface BreakerObserver {
  /** A call to provider `id` failed as unavailable (each one, written to the store or not). */
  failed?(id: string, reason: string): void;
  /** The breaker of provider `id` opened (CLOSED or HALF_OPEN to OPEN), as written to the store. */
  opened?(id: string): void;
}

/** A store call that failed or took too long. */
const GAVE_UP = Symbol('gave up');

/**
 * The circuit breakers of the configured providers, shared through a `BreakerStore` by every
 * Lambda.
 *
 * A breaker protects page parses; it must never be the reason one fails. So every method
 * **fails open**: when the store errors (down, throttled, too many conflicting writers) or does
 * not answer within `storeTimeoutMs`,
 * 1. `tryAcquire` allows the call, as if the breaker were CLOSED;
 * 2. `succeeded` and `failed` drop the observation (the next one will be recorded);
 * 3. `states` reports each provider as a breaker with no record would be: IDLE and healthy.
 *
 * Nothing is logged and nothing is thrown: the return value is the whole answer. The cost of
 * failing open is that a broken provider keeps receiving calls while the store is unreachable;
 * those calls fail on their own and the page falls to the next provider of its tier.
 */
export class ProviderBreakers {
  readonly #store: BreakerStore;
  readonly #policy: BreakerPolicy;
  readonly #clock: Clock;
  readonly #storeTimeoutMs: number;
  readonly #healthyCacheMs: number;
  readonly #observer: BreakerObserver;
  /** The last record seen of each healthy breaker, and when (clock ms). */
  readonly #healthy = new Map<string, number>();

  /**
   * @param options.storeTimeoutMs longest wait for the store on one call before failing open
   *   (default 1000 ms). A write still in flight then may land later; it is a valid transition.
   * @param options.healthyCacheMs how long a breaker seen CLOSED without failures is trusted
   *   without reading the store (default 1000 ms; 0 reads the store on every call).
   * @param options.observer told of each failed call and each opening (default: nobody).
   */
  constructor(
    store: BreakerStore,
    policy: BreakerPolicy = DEFAULT_BREAKER_POLICY,
    clock: Clock = { now: () => new Date() },
    options: { storeTimeoutMs?: number; healthyCacheMs?: number; observer?: BreakerObserver } = {},
  ) {
    this.#store = store;
    this.#policy = policy;
    this.#clock = clock;
    this.#storeTimeoutMs = options.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
    this.#healthyCacheMs = options.healthyCacheMs ?? DEFAULT_HEALTHY_CACHE_MS;
    this.#observer = options.observer ?? {};
  }

  /** True while the breaker was last seen CLOSED without failures, within the cache time. */
  #knownHealthy(id: string, now: number): boolean {
    const seenAt = this.#healthy.get(id);
    return seenAt !== undefined && now - seenAt < this.#healthyCacheMs;
  }

  /** Remembers whether the record the store answered is a healthy breaker. */
  #observe(id: string, record: BreakerRecord | undefined, now: number): void {
    if (record && record.state === 'CLOSED' && record.consecutiveFailures === 0) {
      this.#healthy.set(id, now);
    } else {
      this.#healthy.delete(id);
    }
  }

  /** The observed state and health of each provider in `ids` (spec §2, ProviderStatus). */
  async states(ids: readonly string[]): Promise<Map<string, BreakerStatus>> {
    const records = await this.#attempt(this.#store.getMany(ids));
    const now = this.#clock.now().getTime();
    return new Map(
      ids.map((id) => [
        id,
        breakerStatus(records === GAVE_UP ? undefined : records.get(id), this.#policy, now),
      ]),
    );
  }

  /**
   * Whether a call to provider `id` may go ahead now; an allowed call must be followed by
   * `succeeded` or `failed`.
   *
   * Steps:
   * 1. Read the breaker (a provider with none starts CLOSED).
   * 2. Apply `admit`: CLOSED allows; OPEN refuses until its cooldown is over, then admits a
   *    probe (HALF_OPEN); HALF_OPEN admits up to `halfOpenProbes` concurrent probes.
   * 3. Write the new state when it changed (a busy CLOSED breaker is mostly only read).
   */
  async tryAcquire(id: string): Promise<boolean> {
    const now = this.#clock.now().getTime();
    if (this.#knownHealthy(id, now)) return true;
    let allowed = true;
    const written = await this.#attempt(
      this.#store.update(id, (current) => {
        const decision = admit(current ?? initialBreaker(id), this.#policy, now);
        allowed = decision.allowed;
        return worthWriting(current, decision.next, this.#policy) ? decision.next : null;
      }),
    );
    if (written !== GAVE_UP) this.#observe(id, written, now);
    return written === GAVE_UP || allowed;
  }

  /** Records a successful call to provider `id`: a probe's success closes the circuit. */
  async succeeded(id: string): Promise<void> {
    const now = this.#clock.now().getTime();
    // A success on a healthy breaker changes nothing worth a write.
    if (this.#knownHealthy(id, now)) return;
    await this.#change(id, now, (record) => recordSuccess(record, now));
  }

  /** Records a failed call to provider `id`; enough of them in a row open the circuit. */
  async failed(id: string, reason: string): Promise<void> {
    const now = this.#clock.now().getTime();
    this.#healthy.delete(id);
    this.#observer.failed?.(id, reason);
    const opened = await this.#change(id, now, (record) =>
      recordFailure(record, this.#policy, now, reason),
    );
    if (opened) this.#observer.opened?.(id);
  }

  /** @returns whether the change written opened the circuit. */
  async #change(
    id: string,
    now: number,
    transition: (record: BreakerRecord) => BreakerRecord,
  ): Promise<boolean> {
    // The change may run once per attempt: what counts is the attempt that was written.
    let opens = false;
    const written = await this.#attempt(
      this.#store.update(id, (current) => {
        const next = transition(current ?? initialBreaker(id));
        const write = worthWriting(current, next, this.#policy);
        opens = write && next.state === 'OPEN' && current?.state !== 'OPEN';
        return write ? next : null;
      }),
    );
    if (written === GAVE_UP) return false;
    this.#observe(id, written, now);
    return opens;
  }

  /** The store's answer, or GAVE_UP when it rejects or takes longer than the timeout. */
  async #attempt<T>(call: Promise<T>): Promise<T | typeof GAVE_UP> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<typeof GAVE_UP>((resolve) => {
      timer = setTimeout(() => {
        resolve(GAVE_UP);
      }, this.#storeTimeoutMs);
    });
    try {
      return await Promise.race([call.catch((): typeof GAVE_UP => GAVE_UP), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
