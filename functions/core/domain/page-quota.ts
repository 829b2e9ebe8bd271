import { PlanLimitError } from './errors.js';
import type { PipelinePorts } from '../ports/pipeline.js';
import type { PageReservation, Plan, RequestRecord } from './request.js';

const DAY_MS = 86_400_000;

/**
 * Days a tenant's daily count is kept after its day starts: a week after the day ends, so that
 * the refund of a parse that ran past midnight still finds it.
 */
const DAY_COUNT_KEPT_DAYS = 8;

/** The UTC day of `at`, `yyyy-mm-dd`. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** The UTC midnight that ends `day` (`yyyy-mm-dd`). */
export const dayEnd = (day: string): Date => new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS);

/** When the table may delete a tenant's count of `day`. */
export const dayCountExpiry = (day: string): Date =>
  new Date(Date.parse(`${day}T00:00:00Z`) + DAY_COUNT_KEPT_DAYS * DAY_MS);

/** An ISO timestamp without milliseconds, as the 402 detail shows it. */
const isoSeconds = (at: Date): string => at.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Counts a request's pages against its tenant's daily quota (spec §8), once the pages to parse
 * (after `max_pages`) are known:
 * 1. a request without a plan or a deployment without usage counters is not metered;
 * 2. a request that holds a reservation already (a retried Ingest) keeps it;
 * 3. counts the pages not counted before: a resumed run leaves out the pages an earlier run of
 *    the request charged (`chargedPages`), which stay counted on their own day;
 * 4. adds them to the tenant's count of the current UTC day with one conditional write, which
 *    refuses them when the plan's `pagesPerDay` would be exceeded (a plan without that limit is
 *    counted, never refused);
 * 5. records the reservation on the request record (`reservedPages`, with how many pages were
 *    charged before it), where {@link refundPages} finds it.
 *
 * A failure between steps 4 and 5 leaves the pages counted without a record of them: a retry
 * counts them again. The error can only cost the tenant pages, never let it exceed its limit.
 * @returns the reservation, or undefined when the request is not metered.
 * @throws {PlanLimitError} (402) when the plan's daily pages would be exceeded; its message says
 *   which limit, how much of it is used today and when the count resets.
 */
export async function reservePages(
  ports: Pick<PipelinePorts, 'requests' | 'usage' | 'clock' | 'settings'>,
  record: RequestRecord,
  pages: readonly number[],
): Promise<PageReservation | undefined> {
  if (!ports.usage || record.plan === undefined) return undefined;
  if (record.reservedPages) return record.reservedPages;
  const charged = new Set(record.chargedPages);
  const pageCount = pages.filter((n) => !charged.has(n)).length;
  const now = ports.clock.now();
  const day = await countDailyPages(
    ports,
    { tenant: record.tenant, plan: record.plan },
    pageCount,
    record.options.max_pages,
  );
  if (day === undefined) return undefined;
  const reservation: PageReservation = {
    day,
    pages: pageCount,
    reservedAt: now.toISOString(),
    ...(charged.size > 0 ? { chargedBefore: charged.size } : {}),
  };
  await ports.requests.update(record.id, { reservedPages: reservation });
  return reservation;
}

/**
 * Adds `pageCount` pages to the tenant's count of the current UTC day with one conditional
 * write, refused when the plan's `pagesPerDay` would be exceeded (a plan without that limit is
 * counted, never refused). The building block of {@link reservePages}, and of callers that
 * meter pages without a request record (structured extraction).
 * @returns the day counted on, or undefined without usage counters.
 * @throws {PlanLimitError} (402) naming the limit, today's use and when the count resets.
 */
export async function countDailyPages(
  ports: Pick<PipelinePorts, 'usage' | 'clock' | 'settings'>,
  who: { tenant: string; plan: Plan },
  pageCount: number,
  maxPages: number | null,
): Promise<string | undefined> {
  const { usage } = ports;
  if (!usage) return undefined;
  const day = utcDay(ports.clock.now());
  const limit = ports.settings.planLimits[who.plan].pagesPerDay;
  const { allowed, used } = await usage.reservePages(
    who.tenant,
    day,
    pageCount,
    limit,
    dayCountExpiry(day),
  );
  // Only a limit refuses: without one, every page is counted.
  if (limit !== null && !allowed) {
    const quota = { plan: who.plan, limit, used, pages: pageCount, day };
    throw new PlanLimitError(planLimitDetail(quota, maxPages), { details: quota });
  }
  return day;
}

/**
 * Gives the pages of a request's reservation that were never parsed back to its tenant's day (on
 * failure or cancel), once the request has left `queued`/`processing`, so that no page can be
 * charged any more:
 * 1. reads the request's current record (the one given may predate the reservation);
 * 2. without a reservation, or without usage counters, does nothing;
 * 3. the pages charged since the reservation (`chargedPages`, see `RequestStore.chargePage`)
 *    were parsed, or were being parsed when the request stopped: they stay counted; the rest
 *    of the reservation is taken off the day's count, at most once per reservation however
 *    many callers race (the usage store keeps a refund marker named after the reservation);
 * 4. removes `reservedPages` from the record.
 *
 * Safe to call more than once and from several places (RecordFailure, the cancel endpoint).
 * @returns true when this call gave pages back.
 */
export async function refundPages(
  ports: Pick<PipelinePorts, 'requests' | 'usage'>,
  record: Pick<RequestRecord, 'id'>,
): Promise<boolean> {
  const { usage } = ports;
  if (!usage) return false;
  const current = await ports.requests.get(record.id);
  const reservation = current?.reservedPages;
  if (!current || !reservation) return false;
  const unparsed = unparsedPages(current, reservation);
  const refunded =
    unparsed > 0 &&
    (await usage.refundPages(
      current.tenant,
      reservation.day,
      unparsed,
      `${current.id}#${reservation.reservedAt}`,
      dayCountExpiry(reservation.day),
    ));
  await ports.requests.update(current.id, { reservedPages: undefined });
  return refunded;
}

/** The pages of `reservation` that no page parse has been charged for. */
export function unparsedPages(
  record: Pick<RequestRecord, 'chargedPages'>,
  reservation: PageReservation,
): number {
  const parsed = (record.chargedPages?.length ?? 0) - (reservation.chargedBefore ?? 0);
  return Math.max(0, reservation.pages - Math.max(0, parsed));
}

/**
 * The 402 detail, e.g. "the free plan allows 25 pages per day; 20 are used today and this
 * document has 6; the count resets at 2026-11-22T00:00:00Z (UTC midnight)".
 */
function planLimitDetail(
  quota: { plan: Plan; limit: number; used: number; pages: number; day: string },
  maxPages: number | null,
): string {
  const { plan, limit, used, pages, day } = quota;
  const parsed =
    maxPages === pages ? `this request parses ${pages} (max_pages)` : `this document has ${pages}`;
  const remaining = Math.max(0, limit - used);
  const advice =
    remaining > 0 ? `; set max_pages to ${remaining} or less to parse the first pages now` : '';
  return (
    `the ${plan} plan allows ${limit} pages per day; ` +
    `${used} ${used === 1 ? 'is' : 'are'} used today and ${parsed}; ` +
    `the count resets at ${isoSeconds(dayEnd(day))} (UTC midnight)${advice}`
  );
}
