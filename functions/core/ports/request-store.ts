import type { RequestRecord, PageCheckpoint, RequestStatus } from '../domain/request.js';

/**
 * Request records and their page checkpoints (DynamoDB single table: `REQ#<id>` / `META`, `PAGE#<0001>`).
 *
 * Every write is a single-item (conditional) write: no transactions.
 */
export interface RequestStore {
  /** @throws {ConflictError} when a record with this id exists already. */
  create(record: RequestRecord): Promise<void>;
  /** The record, or undefined when none exists. Tenant checks are the caller's. */
  get(id: string): Promise<RequestRecord | undefined>;
  /**
   * Merges `patch` into the record's top-level fields and returns the updated record
   * (`chargedPages` is written only by {@link RequestStore.chargePage} and `unchargePage`).
   * @throws {NotFoundError} when no record exists.
   * @throws {ConflictError} when `expectedStatus` is given and the stored status is not one of them.
   */
  update(
    id: string,
    patch: Partial<Omit<RequestRecord, 'id' | 'tenant' | 'chargedPages'>>,
    expectedStatus?: readonly RequestStatus[],
  ): Promise<RequestRecord>;
  /**
   * Claims run `run` of the request (a resume): applies `patch` and sets `runs` to `run`, only
   * when the stored `runs` is `run - 1` (absent counts as 0). Of concurrent callers claiming the
   * same run, exactly one gets true.
   * @returns whether this call claimed the run.
   * @throws {NotFoundError} when no record exists.
   */
  claimRun(
    id: string,
    run: number,
    patch: Partial<Omit<RequestRecord, 'id' | 'tenant' | 'runs' | 'chargedPages'>>,
  ): Promise<boolean>;
  /**
   * Counts the page as parsed (adds it to `chargedPages`) while the request's status is one of
   * `expectedStatus`: called before a page's first provider call, so that a parse stopped
   * afterwards (cancel, failure) keeps the page counted. Adding a page twice changes nothing.
   * @returns true when this call added the page, false when it was counted already.
   * @throws {NotFoundError} when no record exists.
   * @throws {ConflictError} when the stored status is not one of `expectedStatus` (nothing is
   *   written).
   */
  chargePage(
    id: string,
    pageNumber: number,
    expectedStatus: readonly RequestStatus[],
  ): Promise<boolean>;
  /**
   * Takes the page back out of `chargedPages` while the request's status is one of
   * `expectedStatus` (a page whose parse failed before any result). Once the status is another
   * one, the pages counted are final and nothing changes.
   * @returns true when this call removed the page.
   * @throws {NotFoundError} when no record exists.
   */
  unchargePage(
    id: string,
    pageNumber: number,
    expectedStatus: readonly RequestStatus[],
  ): Promise<boolean>;
  /** Writes (or overwrites) the checkpoint of one page. */
  putPage(requestId: string, checkpoint: PageCheckpoint): Promise<void>;
  /** All page checkpoints of a request, by ascending page number. */
  listPages(requestId: string): Promise<PageCheckpoint[]>;
  /** Deletes every page checkpoint of a request (the record stays). */
  deletePages(requestId: string): Promise<void>;
}
