import type { Context } from 'aws-lambda';
import { toSqsEvent, type InProcessConsumer } from './adapters/local/in-process-queue.js';
import { lambdaContext } from './adapters/local/lambda-context.js';
import { localServiceTasks } from './adapters/local/local-service-tasks.js';
import type { LocalTask } from './adapters/local/local-workflow.js';
import { routes, type Route } from './api/routes.js';
import type { ApiHandler } from './api/streaming.js';
import { buildLocalDeps, type LocalDeps } from './container-local.js';
import type { Deps, LocalConfig } from './container.js';
import { stages, type StageName } from './pipeline/stages.js';

type GetDeps = () => Promise<Deps>;

/** A Lambda handler as a Task state or an SQS consumer's event source mapping invokes it. */
type InvokedHandler<E, R> = (event: E, context: Context) => Promise<R>;

/** An SQS consumer's handler, reporting the records it could not process. */
type SqsHandler = InvokedHandler<ReturnType<typeof toSqsEvent>, { batchItemFailures: unknown[] }>;

/** The in-process queues of the local dependencies and the handler module consuming each. */
export const QUEUE_CONSUMERS = [
  {
    queue: 'webhooks',
    queueName: 'webhooks',
    functionName: 'WebhookDelivery',
    entry: 'webhook-delivery.handler.ts',
  },
  {
    queue: 'batchItems',
    queueName: 'batch-items',
    functionName: 'BatchItem',
    entry: 'batch-item.handler.ts',
  },
] as const satisfies readonly {
  queue: 'webhooks' | 'batchItems';
  queueName: string;
  functionName: string;
  entry: string;
}[];

/** A handler module's factory: the handler over the given dependencies. */
type HandlerFactory = (getDeps: GetDeps) => unknown;

/**
 * The `createHandler` export of the handler module `entry` under `functions/<dir>/`, the module
 * whose `handler` export the CDK deploys for that record. Loaded by the name its record gives
 * (routes, stages, queue consumers), so that adding an endpoint, a stage or a consumer is its
 * record and its module, with no table here. This import is the one dependency the static
 * import graph does not show; it cannot close a circle, since no handler module may reach this
 * one (the `handlers-not-to-local-runtime` rule of `.dependency-cruiser.mjs`).
 * @throws {Error} when the module has no `createHandler`.
 */
export async function handlerFactory(
  dir: 'api' | 'pipeline',
  entry: string,
): Promise<HandlerFactory> {
  const moduleUrl = new URL(`./${dir}/${entry.replace(/\.ts$/, '.js')}`, import.meta.url).href;
  const module = (await import(moduleUrl)) as { createHandler?: unknown };
  if (typeof module.createHandler !== 'function') {
    throw new Error(`the handler module ${dir}/${entry} exports no createHandler`);
  }
  return module.createHandler as HandlerFactory;
}

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
 * the module's Lambda `handler`, which builds the AWS ones; see {@link handlerFactory}): the state
 * machine's Task states from `stages` and the service integrations' stand-ins, the queues'
 * consumers from {@link QUEUE_CONSUMERS}, and the API routes from the endpoint records. The
 * handler modules never import this module back.
 * @throws {Error} when a record's module has no handler factory (the dependencies are closed).
 */
export async function buildLocalRuntime(config: LocalConfig): Promise<LocalRuntime> {
  const deps = await buildLocalDeps(config);
  const getDeps: GetDeps = () => Promise.resolve(deps);
  try {
    deps.workflow.bindTasks({
      ...(await stageTasks(getDeps)),
      ...localServiceTasks(deps.requests),
    });
    for (const consumer of QUEUE_CONSUMERS) {
      const createHandler = await handlerFactory('pipeline', consumer.entry);
      deps[consumer.queue].subscribe(
        sqsConsumerOf(
          createHandler(getDeps) as SqsHandler,
          consumer.queueName,
          consumer.functionName,
        ),
      );
    }
    const entries = [...new Set(routes.map(({ entry }) => entry))];
    const api = new Map(
      await Promise.all(
        entries.map(
          async (entry) =>
            [entry, (await handlerFactory('api', entry))(getDeps) as ApiHandler] as const,
        ),
      ),
    );
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

/** Each Task state of `stages` bound to its handler module's handler, invoked as Step Functions would. */
export async function stageTasks(getDeps: GetDeps): Promise<Record<StageName, LocalTask>> {
  const tasks = {} as Record<StageName, LocalTask>;
  for (const { state, entry } of stages) {
    const handler = (await handlerFactory('pipeline', entry))(getDeps) as InvokedHandler<
      unknown,
      unknown
    >;
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
  handler: SqsHandler,
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
