import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { IN_FLIGHT_STATUSES } from '../../core/app/recover-parses.js';
import { META_SK } from '../aws/dynamodb-items.js';
import { PARTITION_KEY, SORT_KEY } from '../aws/service-table.js';

/** Partition key prefix of request records (`REQ#<id>`, see `requestPk`). */
const REQUEST_PK_PREFIX = 'REQ#';

/**
 * The ids of the request records (`REQ#<id>` / `META`) whose status is `queued` or
 * `processing`, by a full Scan of the table: for the local server's start on its embedded table
 * (small, and scanned once), never for the AWS table, which has no index on status.
 * @returns the ids, in table order.
 * @throws the client's errors.
 */
export async function listInFlightRequestIds(
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<string[]> {
  const ids: string[] = [];
  const statuses = Object.fromEntries(IN_FLIGHT_STATUSES.map((s, i) => [`:s${String(i)}`, s]));
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: `#sk = :meta AND begins_with(#pk, :req) AND #status IN (${Object.keys(statuses).join(', ')})`,
        ProjectionExpression: '#pk',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY, '#status': 'status' },
        ExpressionAttributeValues: { ':meta': META_SK, ':req': REQUEST_PK_PREFIX, ...statuses },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      ids.push(String(item[PARTITION_KEY]).slice(REQUEST_PK_PREFIX.length));
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return ids;
}
