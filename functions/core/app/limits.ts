import { RateLimitedError } from '../domain/errors.js';
import type { ApiKeyRecord } from '../ports/api-key-store.js';
import type { AppDeps } from './app-deps.js';

export { refundPages, reservePages } from '../domain/page-quota.js';

const MINUTE_MS = 60_000;

/** How long a request window's counter is kept after the window starts. */
const WINDOW_KEPT_MS = 60 * MINUTE_MS;

/**
 * Counts one request of an authenticated caller against its plan's requests per minute
 * (spec §8: per API key, every authenticated endpoint, cancel included):
 * 1. a plan without a request rate, or a deployment without usage counters, is not limited;
 * 2. counts the request in the key's current fixed one-minute window (UTC minutes), with one
 *    conditional write that refuses it once the window holds the plan's limit.
 *
 * Refused requests are not counted, so a client that waits `Retry-After` gets the full budget.
 * @throws {RateLimitedError} (429) with `Retry-After`: the whole seconds until the next window,
 *   at least 1.
 */
export async function checkRequestRate(
  deps: Pick<AppDeps, 'usage' | 'clock' | 'settings'>,
  caller: Pick<ApiKeyRecord, 'keyHash' | 'plan'>,
): Promise<void> {
  const limit = deps.settings.planLimits[caller.plan].requestsPerMinute;
  if (!deps.usage || limit === null) return;
  const now = deps.clock.now().getTime();
  const windowStart = now - (now % MINUTE_MS);
  const { allowed } = await deps.usage.consumeRequest(
    caller.keyHash,
    new Date(windowStart),
    limit,
    new Date(windowStart + WINDOW_KEPT_MS),
  );
  if (allowed) return;
  const retryAfter = Math.max(1, Math.ceil((windowStart + MINUTE_MS - now) / 1000));
  throw new RateLimitedError(
    `rate limit exceeded: the ${caller.plan} plan allows ${limit} requests per minute per API key; retry in ${retryAfter} ${retryAfter === 1 ? 'second' : 'seconds'}`,
    retryAfter,
  );
}
