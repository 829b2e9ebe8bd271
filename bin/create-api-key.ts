import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDbApiKeyStore } from '../functions/adapters/aws/dynamodb-api-key-store.js';
import { createDocumentClient } from '../functions/adapters/aws/dynamodb-items.js';
import { issueApiKey } from '../functions/core/app/issue-api-key.js';
import type { Plan } from '../functions/core/domain/request.js';

/**
 * `npm run api-key -- --table <TableName> --tenant <id> [--plan free|pro|scale]`: creates an API
 * key in a deployed service's table (the stack output `TableName`) and prints it once. Uses the
 * usual AWS credentials and region (AWS_PROFILE, AWS_REGION); `--endpoint` targets another
 * DynamoDB endpoint, e.g. DynamoDB Local.
 */
const usage =
  'usage: npm run api-key -- --table <TableName> --tenant <tenant> [--plan free|pro|scale] [--endpoint <url>]';
const { values } = parseArgs({
  options: {
    table: { type: 'string' },
    tenant: { type: 'string' },
    plan: { type: 'string', default: 'free' },
    endpoint: { type: 'string' },
  },
});
const plans: readonly Plan[] = ['free', 'pro', 'scale'];
if (!values.table || !values.tenant || !plans.includes(values.plan as Plan)) {
  console.error(usage);
  process.exit(2);
}
const client = new DynamoDBClient(values.endpoint ? { endpoint: values.endpoint } : {});
try {
  const key = await issueApiKey(
    new DynamoDbApiKeyStore(createDocumentClient(client), values.table),
    values.tenant,
    values.plan as Plan,
    new Date(),
  );
  console.log(key);
} catch (error) {
  console.error(`create-api-key: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  client.destroy();
}
