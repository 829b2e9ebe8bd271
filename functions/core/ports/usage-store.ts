/**
 * Usage counters of the plans' limits (DynamoDB single table): requests per API key in fixed
 * one-minute windows (`KEY#<sha256>` / `RATE#<epoch minute>`) and pages per tenant per UTC day
 * (`TENANT#<tenant>` / `PAGES#<yyyy-mm-dd>`).
 *
 * Every write is one single-item conditional update (no transactions), so concurrent callers
 * never take more than a limit allows. Counters carry an expiry (`expiresAt`) after which the
 * table may delete them; they are never read after it.
 */
export interface UsageStore {
  /**
   * Counts one request of the key in the one-minute window that starts at `windowStart`,
   * unless `limit` requests are counted there already.
   * @returns whether the request is allowed, and the window's count (after this request when
   *   allowed; the count that refused it otherwise).
   */
  consumeRequest(
    keyHash: string,
    windowStart: Date,
    limit: number,
    expiresAt: Date,
  ): Promise<{ allowed: boolean; count: number }>;

  /**
   * Adds `pages` to the tenant's count of `day` (`yyyy-mm-dd`) unless that would take it above
   * `limit`; with a null limit the pages are always counted.
   * @returns whether the pages were counted, and the day's count (after them when allowed; the
   *   count that refused them otherwise).
   */
  reservePages(
    tenant: string,
    day: string,
    pages: number,
    limit: number | null,
    expiresAt: Date,
  ): Promise<{ allowed: boolean; used: number }>;

  /**
   * Takes `pages` off the tenant's count of `day` (never below zero), at most once per
   * `refundId`: a second call with the same id changes nothing. The record of the id expires at
   * `expiresAt`.
   * @returns true when this call gave the pages back, false when `refundId` was given back already.
   */
  refundPages(
    tenant: string,
    day: string,
    pages: number,
    refundId: string,
    expiresAt: Date,
  ): Promise<boolean>;

  /** The tenant's count of `day` (0 when nothing was counted). */
  pagesUsed(tenant: string, day: string): Promise<number>;
}
