import type { UsageStore } from '../../core/ports/usage-store.js';

/** One request window's count and when it may be forgotten (epoch ms). */
interface Window {
  count: number;
  expiresAt: number;
}

/**
 * The local server's usage counters: requests per key and minute are counted in this process's
 * memory, pages per tenant and day in `pages` (the embedded table, so that they survive a
 * restart).
 *
 * The local server is one process, and the only one that serves its data directory (see
 * `lockDataDir`): every request passes through this one counter, so a key gets exactly its
 * plan's requests per window, as with DynamoDB's conditional write (the check and the increment
 * run in one synchronous step, with no await between them). A count costs a map lookup instead
 * of a signed SDK call and a write into the embedded table (about 40% of the CPU time of a
 * `GET /v1/parse/{id}` before).
 *
 * What it gives up: the counts of the current minute are lost when the server restarts, so a key
 * may be served up to twice its per-minute limit across a restart, which only the operator can
 * cause. Windows are dropped once past their `expiresAt`, swept at most once a minute, so memory
 * holds only the keys seen within the last `expiresAt` span (an hour as `checkRequestRate` sets
 * it).
 *
 * Never use it where several processes serve the same keys (Lambda): each would count alone.
 */
export class LocalUsageStore implements UsageStore {
  /** Request windows by `<keyHash>#<window start, epoch ms>`. */
  readonly #windows = new Map<string, Window>();
  /** The latest window start seen, epoch ms; expired windows are swept when it moves on. */
  #sweptAt = Number.NEGATIVE_INFINITY;
  // Page reservations, refunds and counts are those of `pages`, unchanged.
  readonly reservePages: UsageStore['reservePages'];
  readonly refundPages: UsageStore['refundPages'];
  readonly pagesUsed: UsageStore['pagesUsed'];

  /** @param pages where page reservations, refunds and counts are kept (e.g. DynamoDbUsageStore). */
  constructor(pages: UsageStore) {
    this.reservePages = (...args) => pages.reservePages(...args);
    this.refundPages = (...args) => pages.refundPages(...args);
    this.pagesUsed = (...args) => pages.pagesUsed(...args);
  }

  consumeRequest(
    keyHash: string,
    windowStart: Date,
    limit: number,
    expiresAt: Date,
  ): Promise<{ allowed: boolean; count: number }> {
    const start = windowStart.getTime();
    this.#sweep(start);
    const id = `${keyHash}#${String(start)}`;
    const window = this.#windows.get(id);
    if (window === undefined) {
      if (limit < 1) return Promise.resolve({ allowed: false, count: 0 });
      this.#windows.set(id, { count: 1, expiresAt: expiresAt.getTime() });
      return Promise.resolve({ allowed: true, count: 1 });
    }
    if (window.count >= limit) return Promise.resolve({ allowed: false, count: window.count });
    window.count += 1;
    window.expiresAt = Math.max(window.expiresAt, expiresAt.getTime());
    return Promise.resolve({ allowed: true, count: window.count });
  }

  /** Windows counted, expired ones not yet swept included (for tests and diagnostics). */
  get windowCount(): number {
    return this.#windows.size;
  }

  /** Drops the windows expired at `now` (a window start), at most once per minute of it. */
  #sweep(now: number): void {
    if (now < this.#sweptAt + 60_000) return;
    this.#sweptAt = now;
    for (const [id, window] of this.#windows) {
      if (window.expiresAt <= now) this.#windows.delete(id);
    }
  }
}
