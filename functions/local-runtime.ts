import type { Context } from 'aws-lambda';
import { toSqsEvent, type InProcessConsumer } from './adapters/local/in-process-queue.js';
import { lambdaContext } from './adapters/local/lambda-context.js';
import { localServiceTasks } from './adapters/local/local-service-tasks.js';
import type { LocalTask } from './adapters/local/local-workflow.js';
import { createHandler as cancelParse } from './api/cancel-parse.handler.js';
import { createHandler as compare } from './api/compare.handler.js';
import { createHandler as createUpload } from './api/create-upload.handler.js';
import { createHandler as docs } from './api/docs.handler.js';
import { createHandler as estimate } from './api/estimate.handler.js';
import { createHandler as getBatch } from './api/get-batch.handler.js';
import { createHandler as getParse } from './api/get-parse.handler.js';
import { createHandler as health } from './api/health.handler.js';
import { createHandler as listProviders } from './api/list-providers.handler.js';
import { createHandler as live } from './api/live.handler.js';
import { createHandler as openapi } from './api/openapi.handler.js';
import { createHandler as parseBatch } from './api/parse-batch.handler.js';
import { createHandler as parseStream } from './api/parse-stream.handler.js';
import { createHandler as parseStructured } from './api/parse-structured.handler.js';
import { createHandler as parseUpload } from './api/parse-upload.handler.js';
import { createHandler as parseUrl } from './api/parse-url.handler.js';
import { createHandler as resumeParse } from './api/resume-parse.handler.js';
import { createHandler as webhookSecret } from './api/webhook-secret.handler.js';
import { routes, type Route } from './api/routes.js';
import type { ApiHandler } from './api/streaming.js';
import { buildLocalDeps, type LocalDeps } from './container-local.js';
import type { Deps, LocalConfig } from './container.js';
import { createHandler as batchItem } from './pipeline/batch-item.handler.js';
import { createHandler as classify } from './pipeline/classify.handler.js';
import { createHandler as deliver } from './pipeline/deliver.handler.js';
import { createHandler as ingest } from './pipeline/ingest.handler.js';
import { createHandler as parsePage } from './pipeline/parse-page.handler.js';
import { createHandler as recordFailure } from './pipeline/record-failure.handler.js';
import { createHandler as route } from './pipeline/route.handler.js';
import { createHandler as verify } from './pipeline/verify.handler.js';
import { createHandler as webhookDelivery } from './pipeline/webhook-delivery.handler.js';
import { stages, type StageName } from './pipeline/stages.js';

type GetDeps = () => Promise<Deps>;

/** A Lambda handler as a Task state or an SQS consumer's event source mapping invokes it. */
type InvokedHandler<E, R> = (event: E, context: Context) => Promise<R>;

/**
 * The handler factory of each Task state in `stages` (`functions/pipeline/stages.ts`), whose
 * modules' `handler` exports the CDK deploys: the same modules, given the local dependencies.
 */
export const STAGE_HANDLERS: Readonly<
  Record<StageName, (getDeps: GetDeps) => InvokedHandler<unknown, unknown>>
> = {
  Ingest: ingest,
  Classify: classify,
  Route: route,
  ParsePage: parsePage,
  Verify: verify,
  Deliver: deliver,
  RecordFailure: recordFailure,
};

/** The in-process queues of the local dependencies and the handler factory consuming each. */
export const QUEUE_CONSUMERS = [
  {
    queue: 'webhooks',
    queueName: 'webhooks',
    functionName: 'WebhookDelivery',
    createHandler: webhookDelivery,
  },
  {
    queue: 'batchItems',
    queueName: 'batch-items',
    functionName: 'BatchItem',
    createHandler: batchItem,
  },
] as const satisfies readonly {
  queue: 'webhooks' | 'batchItems';
  queueName: string;
  functionName: string;
  createHandler: (getDeps: GetDeps) => unknown;
}[];

/**
 * The handler factory of each route's `entry` (`functions/api/routes.ts`), whose modules'
 * `handler` exports the CDK deploys behind API Gateway. A factory makes a buffered handler or a
 * streaming one (`awslambda.streamifyResponse`), which the server tells apart
 * (`isStreamingHandler`).
 */
export const ROUTE_HANDLERS: Readonly<Record<string, (getDeps: GetDeps) => unknown>> = {
  'parse-upload.handler.ts': parseUpload,
  'parse-url.handler.ts': parseUrl,
  'parse-stream.handler.ts': parseStream,
  'estimate.handler.ts': estimate,
  'compare.handler.ts': compare,
  'parse-structured.handler.ts': parseStructured,
  'parse-batch.handler.ts': parseBatch,
  'get-batch.handler.ts': getBatch,
  'create-upload.handler.ts': createUpload,
  'get-parse.handler.ts': getParse,
  'cancel-parse.handler.ts': cancelParse,
  'resume-parse.handler.ts': resumeParse,
  'list-providers.handler.ts': listProviders,
  'webhook-secret.handler.ts': webhookSecret,
  'live.handler.ts': live,
  'health.handler.ts': health,
  'openapi.handler.ts': openapi,
  'docs.handler.ts': docs,
};

/** The local service's dependencies with the handlers bound to them. */
export interface LocalRuntime {
  deps: LocalDeps;
  /** The handler of `route`, made over {@link deps} (one per handler module). */
  apiHandler(route: Route): ApiHandler;
  /** Stops the queues, the engines and the embedded DynamoDB (see `Deps.close`). */
  close(): Promise<void>;
}

/**
 * The local runtime: builds the local dependencies (`buildLocalDeps`, ports only), then binds
 * the handlers to them, each made by its module's `createHandler` over these dependencies (never
 * the module's Lambda `handler`, which builds the AWS ones): the state machine's Task states from
 * {@link STAGE_HANDLERS} and the service integrations' stand-ins, the queues' consumers from
 * {@link QUEUE_CONSUMERS}, and the API routes from {@link ROUTE_HANDLERS}. The handler modules
 * never import this module back.
 * @throws {Error} when a route's `entry` has no handler factory (the dependencies are closed).
 */
export async function buildLocalRuntime(config: LocalConfig): Promise<LocalRuntime> {
  const deps = await buildLocalDeps(config);
  const getDeps: GetDeps = () => Promise.resolve(deps);
  try {
    deps.workflow.bindTasks({ ...stageTasks(getDeps), ...localServiceTasks(deps.requests) });
    for (const consumer of QUEUE_CONSUMERS) {
      const handler = consumer.createHandler(getDeps);
      deps[consumer.queue].subscribe(
        sqsConsumerOf(handler, consumer.queueName, consumer.functionName),
      );
    }
    const api = new Map(routes.map(({ entry }) => [entry, apiHandlerOf(entry, getDeps)]));
    return {
      deps,
      apiHandler: (route) => {
        const handler = api.get(route.entry);
        if (!handler) throw new Error(`no handler for the route entry ${route.entry}`);
        return handler;
      },
      close: () => deps.close(),
    };
  } catch (error) {
    await deps.close();
    throw error;
  }
}

/** Each Task state of `stages` bound to its handler, invoked as Step Functions would. */
function stageTasks(getDeps: GetDeps): Record<StageName, LocalTask> {
  const tasks = {} as Record<StageName, LocalTask>;
  for (const { state } of stages) {
    const handler = STAGE_HANDLERS[state](getDeps);
    tasks[state] = (input) => handler(input, lambdaContext(state));
  }
  return tasks;
}

/**
 * An in-process queue's consumer invoking an SQS consumer's handler with a one-record event, as
 * an event source mapping with `ReportBatchItemFailures` would: a reported failure rejects, so
 * the queue delivers the message again.
 */
function sqsConsumerOf(
  handler: InvokedHandler<ReturnType<typeof toSqsEvent>, { batchItemFailures: unknown[] }>,
  queueName: string,
  functionName: string,
): InProcessConsumer {
  return async (message) => {
    const { batchItemFailures } = await handler(
      toSqsEvent(message, queueName),
      lambdaContext(functionName),
    );
    if (batchItemFailures.length > 0) {
      throw new Error(`${queueName} message ${message.messageId} failed`);
    }
  };
}

function apiHandlerOf(entry: string, getDeps: GetDeps): ApiHandler {
  const createHandler = ROUTE_HANDLERS[entry];
  if (!createHandler) throw new Error(`no handler factory for the route entry ${entry}`);
  return createHandler(getDeps) as ApiHandler;
}
