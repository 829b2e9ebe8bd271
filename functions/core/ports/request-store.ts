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
   * Merges `patch` into the record's top-level fields and returns the updated record.
   * @throws {NotFoundError} when no record exists.
   * @throws {ConflictError} when `expectedStatus` is given and the stored status is not one of them.
   */
  update(
    id: string,
    patch: Partial<Omit<RequestRecord, 'id' | 'tenant'>>,
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
    patch: Partial<Omit<RequestRecord, 'id' | 'tenant' | 'runs'>>,
  ): Promise<boolean>;
  /** Writes (or overwrites) the checkpoint of one page. */
  putPage(requestId: string, checkpoint: PageCheckpoint): Promise<void>;
  /** All page checkpoints of a request, by ascending page number. */
  listPages(requestId: string): Promise<PageCheckpoint[]>;
  /** Deletes every page checkpoint of a request (the record stays). */
  deletePages(requestId: string): Promise<void>;
}
