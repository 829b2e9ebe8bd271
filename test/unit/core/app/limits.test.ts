import { describe, expect, it } from 'vitest';
import {
  checkRequestRate,
  refundPages,
  reservePages,
} from '../../../../functions/core/app/limits.js';
import { failureOf, ParseFailedError } from '../../../../functions/core/app/parse-upload.js';
import {
  ERROR_KIND_BY_NAME,
  PlanLimitError,
  RateLimitedError,
} from '../../../../functions/core/domain/errors.js';
import { dayCountExpiry, dayEnd, utcDay } from '../../../../functions/core/domain/page-quota.js';
import { DEFAULT_PLAN_LIMITS, planLimits } from '../../../../functions/core/domain/plans.js';
import type { Plan } from '../../../../functions/core/domain/request.js';
import { T0, aPipeline, aStoredRequest, parseOptions } from '../../../support/builders.js';

/** T0 is 2025-03-04T05:06:07Z: 7 s into its minute, on the UTC day 2025-03-04. */
const DAY = '2025-03-04';

/** Pages 1..n, as Ingest selects them. */
const pagesUpTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

const caller = (plan: Plan, keyHash = `hash-${plan}`) => ({ keyHash, plan });

async function outcome(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
    return 'allowed';
  } catch (error) {
    return error;
  }
}

/** Calls `checkRequestRate` `n` times and returns how many were allowed and the last refusal. */
async function requests(
  world: ReturnType<typeof aPipeline>,
  who: ReturnType<typeof caller>,
  n: number,
): Promise<{ allowed: number; refusal: RateLimitedError | undefined }> {
  let allowed = 0;
  let refusal: RateLimitedError | undefined;
  for (let i = 0; i < n; i++) {
    const result = await outcome(checkRequestRate(world, who));
    if (result === 'allowed') allowed++;
    else refusal = result as RateLimitedError;
  }
  return { allowed, refusal };
}

describe('checkRequestRate', () => {
  it('allows a free key 10 requests in a minute and refuses the 11th with Retry-After to the next minute', async () => {
    // Arrange
    const world = aPipeline();
    // Act
    const { allowed, refusal } = await requests(world, caller('free'), 11);
    // Assert
    expect(allowed).toBe(10);
    expect(refusal).toBeInstanceOf(RateLimitedError);
    expect(refusal?.kind).toBe('rate_limited');
    expect(refusal?.retryAfterSeconds).toBe(53);
    expect(refusal?.headers).toEqual({ 'Retry-After': '53' });
    expect(refusal?.message).toBe(
      'rate limit exceeded: the free plan allows 10 requests per minute per API key; retry in 53 seconds',
    );
  });

  it('allows requests again in the next minute', async () => {
    // Arrange
    const world = aPipeline();
    await requests(world, caller('free'), 11);
    world.clock.advance(53_000);
    // Act
    const result = await outcome(checkRequestRate(world, caller('free')));
    // Assert
    expect(result).toBe('allowed');
  });

  it('asks to retry after at least 1 second, even at the very end of a minute', async () => {
    // Arrange
    const world = aPipeline();
    world.clock.advance(52_999);
    await requests(world, caller('free'), 10);
    // Act
    const { refusal } = await requests(world, caller('free'), 1);
    // Assert
    expect(refusal?.retryAfterSeconds).toBe(1);
    expect(refusal?.message).toMatch(/retry in 1 second$/);
  });

  it('keeps a budget per API key', async () => {
    // Arrange
    const world = aPipeline();
    await requests(world, caller('free', 'key-1'), 10);
    // Act
    const other = await requests(world, caller('free', 'key-2'), 10);
    // Assert
    expect(other.allowed).toBe(10);
  });

  it('does not limit a pro key at 11 requests, but at 61', async () => {
    // Arrange
    const world = aPipeline();
    // Act
    const eleven = await requests(world, caller('pro'), 11);
    const fifty = await requests(world, caller('pro'), 50);
    // Assert
    expect(eleven).toEqual({ allowed: 11, refusal: undefined });
    expect(fifty.allowed).toBe(49);
    expect(fifty.refusal?.message).toContain('the pro plan allows 60 requests per minute');
  });

  it('allows a scale key 600 requests a minute by default, ten times pro', async () => {
    // Arrange
    const world = aPipeline();
    // Act
    const { allowed, refusal } = await requests(world, caller('scale'), 601);
    // Assert
    expect(allowed).toBe(600);
    expect(refusal?.message).toContain('the scale plan allows 600 requests per minute');
  });

  it('leaves a key unlimited, without counting its requests, when PLAN_LIMITS lifts its limit', async () => {
    // Arrange
    const world = aPipeline({
      settings: { planLimits: planLimits({ scale: { requests_per_minute: null } }) },
    });
    // Act
    const { allowed } = await requests(world, caller('scale'), 700);
    // Assert
    expect(allowed).toBe(700);
    expect(world.usage.expiries.size).toBe(0);
  });

  it('applies the configured limits of a plan', async () => {
    // Arrange
    const world = aPipeline({
      settings: { planLimits: planLimits({ scale: { requests_per_minute: 2 } }) },
    });
    // Act
    const { allowed } = await requests(world, caller('scale'), 3);
    // Assert
    expect(allowed).toBe(2);
  });

  it('keeps a window count for an hour after its minute starts', async () => {
    // Arrange
    const world = aPipeline();
    // Act
    await checkRequestRate(world, caller('free', 'key-1'));
    // Assert
    const minute = Math.floor(T0.getTime() / 60_000);
    expect(world.usage.expiries.get(`rate:key-1:${minute}`)).toEqual(
      new Date(minute * 60_000 + 3_600_000),
    );
  });

  it('limits nothing without usage counters', async () => {
    // Arrange
    const world = { ...aPipeline(), usage: undefined };
    // Act
    const results = await Promise.all(
      Array.from({ length: 20 }, () => outcome(checkRequestRate(world, caller('free')))),
    );
    // Assert
    expect(results.every((r) => r === 'allowed')).toBe(true);
  });
});

describe('reservePages', () => {
  it('counts the pages on the UTC day and records the reservation on the request', async () => {
    // Arrange
    const world = aPipeline();
    const record = await aStoredRequest(world, { plan: 'free' });
    // Act
    const reservation = await reservePages(world, record, pagesUpTo(6));
    // Assert
    const expected = { day: DAY, pages: 6, reservedAt: T0.toISOString() };
    expect(reservation).toEqual(expected);
    expect((await world.requests.get(record.id))?.reservedPages).toEqual(expected);
    expect(await world.usage.pagesUsed('tenant-a', DAY)).toBe(6);
    expect(world.usage.expiries.get(`pages:tenant-a:${DAY}`)).toEqual(
      new Date('2025-03-12T00:00:00.000Z'),
    );
  });

  it('throws PlanLimitError saying which limit, what is used and when it resets', async () => {
    // Arrange
    const world = aPipeline();
    await world.usage.reservePages('tenant-a', DAY, 20, null, T0);
    const record = await aStoredRequest(world, { plan: 'free' });
    // Act
    const result = await outcome(reservePages(world, record, pagesUpTo(6)));
    // Assert
    expect(result).toBeInstanceOf(PlanLimitError);
    const error = result as PlanLimitError;
    expect(error.kind).toBe('plan_limit');
    expect(error.message).toBe(
      'the free plan allows 25 pages per day; 20 are used today and this document has 6; the count resets at 2025-03-05T00:00:00Z (UTC midnight); set max_pages to 5 or less to parse the first pages now',
    );
    expect(error.details).toEqual({ plan: 'free', limit: 25, used: 20, pages: 6, day: DAY });
    expect(await world.usage.pagesUsed('tenant-a', DAY)).toBe(20);
    expect((await world.requests.get(record.id))?.reservedPages).toBeUndefined();
  });

  it('names max_pages, and offers no advice when nothing is left today', async () => {
    // Arrange
    const world = aPipeline();
    await world.usage.reservePages('tenant-a', DAY, 25, null, T0);
    const record = await aStoredRequest(world, {
      plan: 'free',
      options: parseOptions({ max_pages: 3 }),
    });
    // Act
    const result = await outcome(reservePages(world, record, pagesUpTo(3)));
    // Assert
    expect((result as Error).message).toBe(
      'the free plan allows 25 pages per day; 25 are used today and this request parses 3 (max_pages); the count resets at 2025-03-05T00:00:00Z (UTC midnight)',
    );
  });

  it('says "1 is used" for a single page', async () => {
    // Arrange
    const world = aPipeline();
    await world.usage.reservePages('tenant-a', DAY, 1, null, T0);
    const record = await aStoredRequest(world, { plan: 'free' });
    // Act
    const result = await outcome(reservePages(world, record, pagesUpTo(25)));
    // Assert
    expect((result as Error).message).toContain('1 is used today and this document has 25;');
  });

  it('refuses a document larger than the whole daily allowance', async () => {
    // Arrange
    const world = aPipeline();
    const record = await aStoredRequest(world, { plan: 'free' });
    // Act
    const result = await outcome(reservePages(world, record, pagesUpTo(26)));
    // Assert
    expect((result as Error).message).toContain(
      '0 are used today and this document has 26; the count resets at 2025-03-05T00:00:00Z (UTC midnight); set max_pages to 25 or less',
    );
  });

  it('keeps the reservation a request holds when asked again (a retried Ingest)', async () => {
    // Arrange
    const world = aPipeline();
    const record = await aStoredRequest(world, { plan: 'free' });
    await reservePages(world, record, pagesUpTo(6));
    const reserved = await world.requests.get(record.id);
    // Act
    const again = await reservePages(world, reserved ?? record, pagesUpTo(6));
    // Assert
    expect(again).toEqual(reserved?.reservedPages);
    expect(await world.usage.pagesUsed('tenant-a', DAY)).toBe(6);
  });

  it('counts the pages of a plan without a daily limit and never refuses them', async () => {
    // Arrange
    const world = aPipeline({
      settings: { planLimits: planLimits({ scale: { pages_per_day: null } }) },
    });
    const record = await aStoredRequest(world, { plan: 'scale' });
    // Act
    const reservation = await reservePages(world, record, pagesUpTo(50_000));
    // Assert
    expect(reservation?.pages).toBe(50_000);
    expect(await world.usage.pagesUsed('tenant-a', DAY)).toBe(50_000);
  });

  it("refuses a scale tenant's pages past 100,000 a day by default", async () => {
    // Arrange
    const world = aPipeline();
    const record = await aStoredRequest(world, { plan: 'scale' });
    // Act
    const result = await outcome(reservePages(world, record, pagesUpTo(100_001)));
    // Assert
    expect((result as Error).message).toMatch(/^the scale plan allows 100000 pages per day;/);
  });

  it('applies the configured daily pages of a plan', async () => {
    // Arrange
    const world = aPipeline({
      settings: { planLimits: planLimits({ pro: { pages_per_day: 5 } }) },
    });
    const record = await aStoredRequest(world, { plan: 'pro' });
    // Act
    const result = await outcome(reservePages(world, record, pagesUpTo(6)));
    // Assert
    expect((result as Error).message).toMatch(/^the pro plan allows 5 pages per day;/);
  });

  it('meters nothing for a request without a plan (event-driven ingestion)', async () => {
    // Arrange
    const world = aPipeline();
    const record = await aStoredRequest(world);
    // Act
    const reservation = await reservePages(world, record, pagesUpTo(500));
    // Assert
    expect(reservation).toBeUndefined();
    expect(await world.usage.pagesUsed('tenant-a', DAY)).toBe(0);
    expect((await world.requests.get(record.id))?.reservedPages).toBeUndefined();
  });

  it('meters nothing without usage counters', async () => {
    // Arrange
    const world = { ...aPipeline(), usage: undefined };
    const record = await aStoredRequest(world, { plan: 'free' });
    // Act
    const reservation = await reservePages(world, record, pagesUpTo(500));
    // Assert
    expect(reservation).toBeUndefined();
  });
});

describe('refundPages', () => {
  async function reserved(pages = 6) {
    const world = aPipeline();
    const record = await aStoredRequest(world, { plan: 'free' });
    await reservePages(world, record, pagesUpTo(pages));
    return { world, record };
  }

  it('gives the reserved pages back once and clears the reservation', async () => {
    // Arrange
    const { world, record } = await reserved();
    // Act
    const first = await refundPages(world, record);
    const second = await refundPages(world, record);
    // Assert
    expect([first, second]).toEqual([true, false]);
    expect(await world.usage.pagesUsed('tenant-a', DAY)).toBe(0);
    expect((await world.requests.get(record.id))?.reservedPages).toBeUndefined();
  });

  it('gives the pages back once when the failure and a cancel race', async () => {
    // Arrange
    const { world, record } = await reserved();
    await world.usage.reservePages('tenant-a', DAY, 4, null, T0);
    // Act
    const results = await Promise.all([
      refundPages(world, record),
      refundPages(world, record),
      refundPages(world, record),
    ]);
    // Assert
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await world.usage.pagesUsed('tenant-a', DAY)).toBe(4);
  });

  it('reads the current record, so a copy older than the reservation still refunds', async () => {
    // Arrange
    const world = aPipeline();
    const stale = await aStoredRequest(world, { plan: 'free' });
    await reservePages(world, stale, pagesUpTo(6));
    // Act
    const refunded = await refundPages(world, stale);
    // Assert
    expect(refunded).toBe(true);
    expect(await world.usage.pagesUsed('tenant-a', DAY)).toBe(0);
  });

  it('refunds to the day of the reservation, after midnight too', async () => {
    // Arrange
    const { world, record } = await reserved();
    world.clock.advance(86_400_000);
    // Act
    await refundPages(world, record);
    // Assert
    expect(await world.usage.pagesUsed('tenant-a', DAY)).toBe(0);
  });

  it('reserves and refunds again after a refund (a resumed request)', async () => {
    // Arrange
    const { world, record } = await reserved();
    await refundPages(world, record);
    world.clock.advance(1000);
    await reservePages(world, (await world.requests.get(record.id)) ?? record, pagesUpTo(6));
    // Act
    const refunded = await refundPages(world, record);
    // Assert
    expect(refunded).toBe(true);
    expect(await world.usage.pagesUsed('tenant-a', DAY)).toBe(0);
  });

  it('keeps the pages charged since the reservation counted and gives back only the rest', async () => {
    // Arrange
    const { world, record } = await reserved(6);
    await world.requests.update(record.id, { status: 'processing' });
    for (const n of [1, 2, 3, 4]) await world.requests.chargePage(record.id, n, ['processing']);
    await world.requests.update(record.id, { status: 'cancelled' });
    // Act
    const refunded = await refundPages(world, record);
    // Assert
    expect(refunded).toBe(true);
    expect(await world.usage.pagesUsed('tenant-a', DAY)).toBe(4);
    expect((await world.requests.get(record.id))?.reservedPages).toBeUndefined();
  });

  it('gives nothing back when every reserved page was charged (a failed Deliver)', async () => {
    // Arrange
    const { world, record } = await reserved(3);
    await world.requests.update(record.id, { status: 'processing' });
    for (const n of [1, 2, 3]) await world.requests.chargePage(record.id, n, ['processing']);
    // Act
    const refunded = await refundPages(world, record);
    // Assert
    expect(refunded).toBe(false);
    expect(await world.usage.pagesUsed('tenant-a', DAY)).toBe(3);
    expect((await world.requests.get(record.id))?.reservedPages).toBeUndefined();
  });

  it('counts a resumed run only for the pages no earlier run charged, and refunds only its own', async () => {
    // Arrange: the first run charged pages 1 and 2 of 6, then failed.
    const { world, record } = await reserved(6);
    await world.requests.update(record.id, { status: 'processing' });
    for (const n of [1, 2]) await world.requests.chargePage(record.id, n, ['processing']);
    await world.requests.update(record.id, { status: 'failed' });
    await refundPages(world, record);
    const afterFirstRun = await world.usage.pagesUsed('tenant-a', DAY);
    world.clock.advance(1000);
    await world.requests.update(record.id, { status: 'processing' });
    // Act: the resumed run reserves the 4 others and parses page 3 before it fails too.
    const second = await reservePages(
      world,
      (await world.requests.get(record.id)) ?? record,
      pagesUpTo(6),
    );
    const duringSecondRun = await world.usage.pagesUsed('tenant-a', DAY);
    await world.requests.chargePage(record.id, 3, ['processing']);
    await world.requests.update(record.id, { status: 'failed' });
    await refundPages(world, record);
    // Assert
    expect(afterFirstRun).toBe(2);
    expect(second).toMatchObject({ pages: 4, chargedBefore: 2 });
    expect(duringSecondRun).toBe(6);
    expect(await world.usage.pagesUsed('tenant-a', DAY)).toBe(3);
  });

  it('does nothing for a request that reserved nothing, or does not exist', async () => {
    // Arrange
    const world = aPipeline();
    const record = await aStoredRequest(world, { plan: 'free' });
    // Act
    const none = await refundPages(world, record);
    const unknown = await refundPages(world, { id: 'req_unknown' });
    // Assert
    expect([none, unknown]).toEqual([false, false]);
  });

  it('does nothing without usage counters', async () => {
    // Arrange
    const { world, record } = await reserved();
    const withoutUsage = { ...world, usage: undefined };
    // Act
    const refunded = await refundPages(withoutUsage, record);
    // Assert
    expect(refunded).toBe(false);
    expect((await world.requests.get(record.id))?.reservedPages).toBeDefined();
  });
});

describe('plan limits', () => {
  it('follows the specification by default: free 10/min and 25 pages, pro 60/min and 10,000, scale finite at ten times pro', () => {
    // Act
    const limits = planLimits();
    // Assert
    expect(limits).toEqual({
      free: { requestsPerMinute: 10, pagesPerDay: 25 },
      pro: { requestsPerMinute: 60, pagesPerDay: 10_000 },
      scale: { requestsPerMinute: 600, pagesPerDay: 100_000 },
    });
    expect(limits).toEqual(DEFAULT_PLAN_LIMITS);
  });

  it('overrides a plan field by field, null lifting a limit', () => {
    // Act
    const limits = planLimits({
      free: { pages_per_day: 100 },
      pro: { requests_per_minute: null },
      scale: { requests_per_minute: 600, pages_per_day: null },
    });
    // Assert
    expect(limits).toEqual({
      free: { requestsPerMinute: 10, pagesPerDay: 100 },
      pro: { requestsPerMinute: null, pagesPerDay: 10_000 },
      scale: { requestsPerMinute: 600, pagesPerDay: null },
    });
  });

  it('dates a day by UTC and resets it at the next UTC midnight', () => {
    // Act
    const day = utcDay(new Date('2026-11-21T23:59:59.999Z'));
    // Assert
    expect(day).toBe('2026-11-21');
    expect(dayEnd(day)).toEqual(new Date('2026-11-22T00:00:00.000Z'));
    expect(dayCountExpiry(day)).toEqual(new Date('2026-11-29T00:00:00.000Z'));
  });
});

describe('the limit errors through the API', () => {
  it('maps a recorded plan_limit failure to a 402 error with its detail', () => {
    // Act
    const error = failureOf({ name: 'PlanLimitError', kind: 'plan_limit', message: 'the free…' });
    // Assert
    expect(error).toBeInstanceOf(ParseFailedError);
    expect(error).toMatchObject({ kind: 'plan_limit', message: 'the free…' });
  });

  it('knows both errors by name', () => {
    // Assert
    expect(ERROR_KIND_BY_NAME).toMatchObject({
      PlanLimitError: 'plan_limit',
      RateLimitedError: 'rate_limited',
    });
  });
});
