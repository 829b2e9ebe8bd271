import { z } from 'zod';
import type { Plan } from './request.js';

/** What one plan allows; `null` means no limit. */
export interface PlanLimits {
  /** Requests per API key in a fixed one-minute window (every authenticated endpoint). */
  requestsPerMinute: number | null;
  /** Pages parsed per tenant per UTC day. */
  pagesPerDay: number | null;
}

/** The limits of every plan. */
export type PlanLimitsByPlan = Readonly<Record<Plan, Readonly<PlanLimits>>>;

/**
 * The plans of the specification (§8): free 10 requests/min and 25 pages/day, pro 60/min and
 * 10,000 pages/day. Scale is custom (the specification gives no numbers): by default ten times
 * pro, 600 requests/min and 100,000 pages/day, so that one scale key cannot run up an unbounded
 * bill; a deployment lifts or removes them with `PLAN_LIMITS`
 * (`{"scale":{"requests_per_minute":null,"pages_per_day":null}}` for none).
 */
export const DEFAULT_PLAN_LIMITS: PlanLimitsByPlan = Object.freeze({
  free: Object.freeze({ requestsPerMinute: 10, pagesPerDay: 25 }),
  pro: Object.freeze({ requestsPerMinute: 60, pagesPerDay: 10_000 }),
  scale: Object.freeze({ requestsPerMinute: 600, pagesPerDay: 100_000 }),
});

const Limit = z.number().int().positive().nullable().optional();

/** One plan's overrides; a field left out keeps the plan's default, `null` lifts the limit. */
const PlanOverride = z.strictObject({ requests_per_minute: Limit, pages_per_day: Limit });

/**
 * The `PLAN_LIMITS` setting: per-plan overrides of {@link DEFAULT_PLAN_LIMITS}, e.g.
 * `{"scale": {"requests_per_minute": 600, "pages_per_day": null}}`.
 */
export const PlanLimitsOverrides = z.strictObject({
  free: PlanOverride.optional(),
  pro: PlanOverride.optional(),
  scale: PlanOverride.optional(),
});
export type PlanLimitsOverrides = z.infer<typeof PlanLimitsOverrides>;

/** The defaults with `overrides` applied, field by field. */
export function planLimits(overrides: PlanLimitsOverrides = {}): PlanLimitsByPlan {
  const merged = (plan: Plan): Readonly<PlanLimits> => {
    const base = DEFAULT_PLAN_LIMITS[plan];
    const override = overrides[plan];
    return Object.freeze({
      requestsPerMinute:
        override?.requests_per_minute === undefined
          ? base.requestsPerMinute
          : override.requests_per_minute,
      pagesPerDay:
        override?.pages_per_day === undefined ? base.pagesPerDay : override.pages_per_day,
    });
  };
  return Object.freeze({ free: merged('free'), pro: merged('pro'), scale: merged('scale') });
}
