import type {
  BatchEndStatus,
  BatchItem,
  BatchItemError,
  BatchItemStatus,
  BatchRecord,
  CountMove,
} from '../domain/batch.js';

/** A change of an item's status, with the fields it sets. */
export interface ItemTransition {
  from: BatchItemStatus;
  to: BatchItemStatus;
  /** The item's new `updatedAt`. */
  at: Date;
  /** The item's parse request id; `null` removes it (an item that failed before its request). */
  requestId?: string | null;
  error?: BatchItemError;
}

/**
 * Batches and their items (DynamoDB single table: `BATCH#<id>` / `META`, `ITEM#0001`).
 *
 * Every write is a single-item (conditional) write: no transactions. The totals of a batch record
 * change only through {@link BatchStore.applyMove}, one count from one status to another, so they
 * always add up to the item count; they follow the items' own transitions (a separate write), so
 * a reader that shows items with totals derives the totals from the items it read
 * ({@link BatchStore.getWithItems}).
 */
export interface BatchStore {
  /**
   * Stores a new batch: its items, then its record (a batch is found by its record, so a batch
   * whose creation was interrupted is never seen half-made).
   * @throws {ConflictError} when a batch with this id exists already.
   */
  create(batch: BatchRecord, items: readonly BatchItem[]): Promise<void>;
  /** The batch record, or undefined. Tenant checks are the caller's. */
  get(batchId: string): Promise<BatchRecord | undefined>;
  /** The item, or undefined. */
  getItem(batchId: string, index: number): Promise<BatchItem | undefined>;
  /** Every item of a batch, by ascending index. */
  listItems(batchId: string): Promise<BatchItem[]>;
  /**
   * The batch record and every item of the batch, by ascending index, read together (strongly
   * consistent, each as recent as the call), or undefined when there is no record. Not a
   * transaction: the record's totals and status may lag the items' own statuses, which are the
   * truth (derive totals from them).
   */
  getWithItems(batchId: string): Promise<{ batch: BatchRecord; items: BatchItem[] } | undefined>;
  /**
   * Moves an item from status `change.from` to `change.to`, setting the fields of `change`, if and
   * only if its status is `change.from` (of concurrent callers, one wins).
   * @returns the item after the change.
   * @throws {ConflictError} when the item's status is not `change.from`.
   * @throws {NotFoundError} when there is no such item.
   */
  transitionItem(batchId: string, index: number, change: ItemTransition): Promise<BatchItem>;
  /**
   * Moves one count of the batch's totals from `move.from` to `move.to`, unless a move with the
   * same id was applied before (then nothing changes). A move to `in_progress` also makes a
   * `queued` batch `in_progress`.
   * @returns the batch after the call, and whether this call applied the move.
   * @throws {NotFoundError} when there is no such batch.
   */
  applyMove(
    batchId: string,
    move: CountMove,
    at: Date,
  ): Promise<{ applied: boolean; batch: BatchRecord }>;
  /**
   * Writes the batch's terminal status and `endedAt`, once.
   * @returns the batch after the change.
   * @throws {ConflictError} when the batch has ended already.
   * @throws {NotFoundError} when there is no such batch.
   */
  finish(batchId: string, status: BatchEndStatus, at: Date): Promise<BatchRecord>;
  /**
   * Sets the webhook fields of the batch record (deliveries, the announced event's id).
   * @throws {NotFoundError} when there is no such batch.
   */
  update(
    batchId: string,
    patch: Partial<Pick<BatchRecord, 'webhook' | 'webhookEventId'>>,
  ): Promise<BatchRecord>;
}
