import { DeleteCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailed } from '../aws/dynamodb-items.js';
import { PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from '../aws/service-table.js';
import type { FsObjectStore } from './fs-object-store.js';
import { logger } from '../../observability/logger.js';

/**
 * Key prefixes whose objects expire: those of the AWS bucket's lifecycle rules
 * (`EXPIRING_PREFIXES` of `lib/constructs/document-storage.ts`, a test holds the two together):
 * uploads, intermediate work, results and incoming objects, `RETENTION_DAYS` after they were
 * written. Table items expire by their own TTL attribute (`expiresAt`).
 */
export const EXPIRING_PREFIXES = ['uploads/', 'work/', 'results/', 'incoming/'] as const;

/** How often the local server sweeps, in milliseconds (one hour). */
export const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** What to sweep: the local object store, the embedded table, and the retention. */
export interface RetentionTargets {
  objects: FsObjectStore;
  documentClient: DynamoDBDocumentClient;
  tableName: string;
  /** Days objects under {@link EXPIRING_PREFIXES} are kept (`RETENTION_DAYS`); fractions allowed. */
  retentionDays: number;
  /** The current time; tests advance it instead of waiting. */
  now: () => Date;
  /**
   * Called after a sweep that deleted table items, so that what a process remembers of them
   * (the request store as only writer) is dropped too.
   */
  onItemsDeleted?: () => void;
}

/** What one sweep deleted. */
export interface SweepReport {
  /** Objects under {@link EXPIRING_PREFIXES} older than the retention. */
  objects: number;
  /** Table items whose TTL attribute (`expiresAt`, epoch seconds) is in the past. */
  items: number;
}

/**
 * Deletes what the AWS stack would have expired by now, once:
 * 1. objects under {@link EXPIRING_PREFIXES} last written more than `retentionDays` ago (S3
 *    lifecycle expiration);
 * 2. table items whose `expiresAt` (epoch seconds) is before now (DynamoDB TTL, which dynalite
 *    does not implement). An item rewritten meanwhile with a later expiry is kept: each delete
 *    is conditional on the expiry it was found with.
 *
 * @returns the counts deleted.
 * @throws the store's or table's errors (the caller logs them; the next sweep tries again).
 */
export async function sweepExpired(targets: RetentionTargets): Promise<SweepReport> {
  const now = targets.now();
  const cutoff = new Date(now.getTime() - targets.retentionDays * DAY_MS);
  let objects = 0;
  for (const prefix of EXPIRING_PREFIXES) {
    objects += await targets.objects.deleteOlderThan(prefix, cutoff);
  }
  const items = await deleteExpiredItems(
    targets.documentClient,
    targets.tableName,
    Math.floor(now.getTime() / 1000),
  );
  if (items > 0) targets.onItemsDeleted?.();
  return { objects, items };
}

/** Scans the table for items whose TTL attribute is below `nowSeconds` and deletes them. */
async function deleteExpiredItems(
  client: DynamoDBDocumentClient,
  tableName: string,
  nowSeconds: number,
): Promise<number> {
  let deleted = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#ttl < :now',
        ProjectionExpression: '#pk, #sk, #ttl',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY, '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':now': nowSeconds },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of (page.Items ?? []) as Record<string, unknown>[]) {
      try {
        await client.send(
          new DeleteCommand({
            TableName: tableName,
            Key: { [PARTITION_KEY]: item[PARTITION_KEY], [SORT_KEY]: item[SORT_KEY] },
            ConditionExpression: '#ttl = :found',
            ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
            ExpressionAttributeValues: { ':found': item[TTL_ATTRIBUTE] },
          }),
        );
        deleted += 1;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return deleted;
}

/** A running sweeper (see {@link startRetentionSweeper}). */
export interface RetentionSweeper {
  /** Sweeps now (after the sweep in progress, if any) and returns what it deleted. */
  sweep(): Promise<SweepReport>;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

/**
 * Sweeps {@link sweepExpired} at once and then every `intervalMs` (default one hour), on an
 * unref'd timer that never keeps the process alive. Sweeps never overlap; a failed sweep is
 * logged and the next one tries again.
 */
export function startRetentionSweeper(
  targets: RetentionTargets,
  intervalMs: number = SWEEP_INTERVAL_MS,
): RetentionSweeper {
  let current: Promise<SweepReport> = Promise.resolve({ objects: 0, items: 0 });
  const sweep = (): Promise<SweepReport> => {
    current = current.catch(() => undefined).then(() => sweepExpired(targets));
    return current;
  };
  const background = () => {
    sweep().catch((error: unknown) => {
      logger.error('the retention sweep failed; it is tried again in an hour', { error });
    });
  };
  background();
  const timer = setInterval(background, intervalMs);
  timer.unref();
  return {
    sweep,
    stop: async () => {
      clearInterval(timer);
      await current.catch(() => undefined);
    },
  };
}
