import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDbApiKeyStore } from './adapters/aws/dynamodb-api-key-store.js';
import { DynamoDbBatchStore } from './adapters/aws/dynamodb-batch-store.js';
import { DynamoDbEventLog } from './adapters/aws/dynamodb-event-log.js';
import { DynamoDbRequestStore } from './adapters/aws/dynamodb-request-store.js';
import { DynamoDbUsageStore } from './adapters/aws/dynamodb-usage-store.js';
import { serviceTable } from './adapters/aws/service-table.js';
import { lockDataDir } from './adapters/local/data-dir-lock.js';
import { LOCAL_TABLE_NAME, startEmbeddedDynamo } from './adapters/local/embedded-dynamo.js';
import { FsObjectStore } from './adapters/local/fs-object-store.js';
import { listInFlightRequestIds } from './adapters/local/in-flight-requests.js';
import { startRetentionSweeper, type RetentionSweeper } from './adapters/local/retention.js';
import { InProcessQueue } from './adapters/local/in-process-queue.js';
import { JsonLinesQueue } from './adapters/local/json-lines-queue.js';
import { LocalUsageStore } from './adapters/local/local-usage-store.js';
import { DynamoDbWebhookSecretStore } from './adapters/aws/dynamodb-webhook-secrets.js';
import { newWebhookSecret } from './adapters/http/webhook-signer.js';
import { LocalStepFunctionsWorkflow } from './adapters/local/local-workflow.js';
import { LocalUploadSigner, loadUploadSecret } from './adapters/local/local-upload-signer.js';
import { logger } from './observability/logger.js';
import {
  circuitBreakers,
  common,
  loadEngines,
  resultCaching,
  type Deps,
  type LocalConfig,
} from './container.js';
import { BATCH_ITEM_MAX_RECEIVES } from './core/app/batch.js';
import { recoverInterruptedParses } from './core/app/recover-parses.js';
import { PARSE_DOCUMENT_ASL } from './pipeline/stages.js';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * How long the local event log waits to group a burst of progress events into one item: the
 * events of the pages that end within it (each page's `vlm.page.done` and its stage's end and
 * start) share one write. Well under the SSE stream's 250 ms poll.
 */
const EVENT_LINGER_MS = 50;

/**
 * The local dependencies, with the in-process stand-ins the local runtime binds the handlers to:
 * the state machine's Task states and the queues' consumers.
 */
export interface LocalDeps extends Deps {
  workflow: LocalStepFunctionsWorkflow;
  webhooks: InProcessQueue;
  batchItems: InProcessQueue;
}

/**
 * The composition root of the local runtime: the embedded DynamoDB and the filesystem under
 * `DATA_DIR`, the state machine run in-process by aws-local-stepfunctions, and upload forms the
 * local server verifies itself. It builds ports only: the workflow has no Task state bound and
 * the queues no consumer until the local runtime (`functions/local-runtime.ts`) binds the
 * handlers to these dependencies; messages journaled by a previous server wait for it.
 */
export async function buildLocalDeps(config: LocalConfig): Promise<LocalDeps> {
  logger.setLogLevel(config.LOG_LEVEL);
  const dataDir = config.DATA_DIR;
  // One server per data directory: its stores keep what they wrote in memory.
  const unlock = await lockDataDir(dataDir);
  const dynamo = await startEmbeddedDynamo({ path: join(dataDir, 'dynamodb'), port: 0 }).catch(
    async (error: unknown) => {
      await unlock();
      throw error;
    },
  );
  const tableName = LOCAL_TABLE_NAME;
  await dynamo.ensureTable(serviceTable(tableName));
  // The local server is the only writer of its data directory.
  const objects = new FsObjectStore(join(dataDir, 'objects'), { onlyWriter: true });
  const engines = await loadEngines(config, objects);
  // The engines' workers warm up now, on other threads, while this one loads the handler
  // modules (buildLocalRuntime); warmUp waits for them.
  const enginesWarm = engines.warmUp();
  enginesWarm.catch(() => undefined);
  // Upload forms point at the local server itself, which verifies them with the data
  // directory's secret; the server names its real URL once it listens (PORT may be 0).
  const uploads = new LocalUploadSigner(await loadUploadSecret(dataDir), {
    baseUrl: `http://${config.HOST}:${config.PORT}`,
  });

  // The local server is the only writer of its embedded table's records, keys and checkpoints.
  // Records, checkpoints, events and batches are kept RETENTION_DAYS after their last write,
  // then removed by the retention sweeper (startRetentionSweeper below), as DynamoDB's TTL does.
  const retention = { days: config.RETENTION_DAYS };
  const requests = new DynamoDbRequestStore(dynamo.documentClient, tableName, {
    onlyWriter: true,
    retention,
  });
  const workflow = new LocalStepFunctionsWorkflow(join(REPO_ROOT, PARSE_DOCUMENT_ASL), undefined, {
    TableName: tableName,
  });

  // Webhook deliveries run in process through the deliverer's handler; messages still waiting
  // when the server stops (retries due in hours) are journaled and sent after the next start.
  const webhooks = new InProcessQueue({
    concurrency: 4,
    maxReceiveCount: 5,
    journal: join(dataDir, 'queues', 'webhooks.jsonl'),
    onDeadLetter: ({ message }) => {
      void webhookDeadLetters.send({ body: JSON.parse(message.body) as unknown });
    },
  });
  const webhookDeadLetters = new JsonLinesQueue(join(dataDir, 'dead-letters', 'webhooks.jsonl'));

  // Documents of batches, BATCH_CONCURRENCY at a time, through the consumer's handler;
  // documents not yet parsed when the server stops (delayed waves included) are journaled and
  // parsed after the next start.
  const batchItems = new InProcessQueue({
    concurrency: config.BATCH_CONCURRENCY,
    maxReceiveCount: BATCH_ITEM_MAX_RECEIVES,
    journal: join(dataDir, 'queues', 'batch-items.jsonl'),
  });

  // Event writes still running after their stage returned; close() waits for them.
  const pendingEvents = new Set<Promise<void>>();
  // Started by warmUp (the server's start), stopped by close.
  let sweeper: RetentionSweeper | undefined;
  const deps: LocalDeps = {
    ...common(config),
    requests,
    batches: new DynamoDbBatchStore(dynamo.documentClient, tableName, { retention }),
    batchItems,
    // Requests per minute are counted in memory (this process serves every request of its
    // data directory); pages per day stay in the table, across restarts.
    usage: new LocalUsageStore(new DynamoDbUsageStore(dynamo.documentClient, tableName)),
    ...(config.RESULT_CACHE === 'on'
      ? { resultCache: resultCaching(config, dynamo.documentClient, tableName) }
      : {}),
    // Stages do not wait for their events here (deferEvents), so a short linger costs them
    // nothing and lets a stage's burst of events share one item.
    events: new DynamoDbEventLog(dynamo.documentClient, tableName, {
      lingerMs: EVENT_LINGER_MS,
      retentionDays: config.RETENTION_DAYS,
    }),
    deferEvents: (written) => {
      const tracked = written
        .catch((error: unknown) => {
          logger.error('progress events could not be written', { error });
        })
        .finally(() => pendingEvents.delete(tracked));
      pendingEvents.add(tracked);
    },
    apiKeys: new DynamoDbApiKeyStore(dynamo.documentClient, tableName, { onlyWriter: true }),
    webhookSecrets: new DynamoDbWebhookSecretStore(
      dynamo.documentClient,
      tableName,
      newWebhookSecret,
    ),
    webhooks,
    webhookDeadLetters,
    breakers: circuitBreakers(config, dynamo.documentClient, tableName),
    objects,
    uploads,
    engineFor: engines.engineFor,
    providers: engines.providers,
    offlineExtractor: engines.offlineExtractor,
    ...(engines.structure ? { structure: engines.structure } : {}),
    workflow,
    warmUp: async () => {
      await Promise.all([enginesWarm, workflow.warmUp()]);
      // Parses a previous server left in flight when it stopped (SIGKILL, a crash) have nothing
      // running them: their runs start again (or they are marked failed, see the function).
      const outcomes = await recoverInterruptedParses(
        deps,
        await listInFlightRequestIds(dynamo.documentClient, tableName),
      );
      for (const { requestId, action } of outcomes) {
        if (action !== 'skipped') logger.info('interrupted parse recovered', { requestId, action });
      }
      // Uploads, work files and expired table items go as the AWS stack's expiry rules make them.
      sweeper ??= startRetentionSweeper({
        objects,
        documentClient: dynamo.documentClient,
        tableName,
        retentionDays: config.RETENTION_DAYS,
        now: () => deps.clock.now(),
        onItemsDeleted: () => {
          requests.forgetRemembered();
        },
      });
    },
    close: async () => {
      await sweeper?.stop();
      await batchItems.stop();
      await webhooks.stop();
      await Promise.all(pendingEvents);
      await engines.close();
      await dynamo.stop();
      await unlock();
    },
  };
  return deps;
}
