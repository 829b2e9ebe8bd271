import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbApiKeyStore } from './adapters/aws/dynamodb-api-key-store.js';
import { DynamoDbBatchStore } from './adapters/aws/dynamodb-batch-store.js';
import { DynamoDbBreakerStore } from './adapters/aws/dynamodb-breaker-store.js';
import { DynamoDbEventLog } from './adapters/aws/dynamodb-event-log.js';
import { createDocumentClient } from './adapters/aws/dynamodb-items.js';
import { DynamoDbRequestStore } from './adapters/aws/dynamodb-request-store.js';
import { DynamoDbResultCache } from './adapters/aws/dynamodb-result-cache.js';
import { DynamoDbUsageStore } from './adapters/aws/dynamodb-usage-store.js';
import { S3ObjectStore } from './adapters/aws/s3-object-store.js';
import { S3UploadSigner } from './adapters/aws/s3-upload-signer.js';
import { SqsQueue } from './adapters/aws/sqs-queue.js';
import { DynamoDbWebhookSecretStore } from './adapters/aws/dynamodb-webhook-secrets.js';
import { newWebhookSecret } from './adapters/http/webhook-signer.js';
import { meteredPageWrites, meteredResultCache } from './adapters/metered-ports.js';
import { logger } from './observability/logger.js';
import { powertoolsMetrics, serviceMetrics, useMetrics } from './api/metrics.js';
import { StepFunctionsWorkflow } from './adapters/aws/step-functions-workflow.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import type { OutboundHttp } from './outbound-http.js';
import type { WebhookHttp } from './webhook-http.js';
import type { AppDeps } from './core/app/app-deps.js';
import { withRecordPolling } from './core/app/record-polling-workflow.js';
import { DEFAULT_BREAKER_POLICY } from './core/domain/circuit-breaker.js';
import { ProviderBreakers, type BreakerObserver } from './core/domain/provider-breakers.js';
import { configurationVersion, type ResultCaching } from './core/domain/result-cache.js';
import type { ObjectStore } from './core/ports/object-store.js';
import type { StructureExtractor } from './core/ports/structure-extractor.js';
import type { StructuredExtractor } from './core/ports/structured-extractor.js';
import type { Workflow } from './core/ports/workflow.js';
import type { EmbeddedEngines } from './engines/embedded-engines.js';
import { detectFormat } from './engines/image/detect-format.js';
import { usesKeySecrets } from './providers/provider-config.js';
import { buildProviderRegistry, type ConfiguredRegistry } from './providers/provider-registry.js';

/** Everything handlers and stages use, built once per process (local) or cold start (Lambda). */
export interface Deps extends AppDeps {
  config: Config;
  /**
   * Requests to the addresses clients give (documents to download, webhooks to call), built on
   * first use by `outboundOf` (functions/outbound-http.ts) in the functions that make them.
   */
  outbound?: OutboundHttp;
  /** The webhook consumer's sender and signer, built on first use by `webhookHttpOf`. */
  webhookHttp?: WebhookHttp;
  /**
   * Set in a long-lived process: takes the writing of a stage's last events, which then finishes
   * while the next state starts (and before {@link close} returns). Unset on Lambda, where a
   * handler returns only once its events are written.
   */
  deferEvents?: (written: Promise<void>) => void;
  /** Starts background engines ahead of the first request (the PDF worker). */
  warmUp(): Promise<void>;
  /** Stops background resources (embedded DynamoDB, OCR worker). */
  close(): Promise<void>;
}

let built: Promise<Deps> | undefined;

/** The process's dependencies on Lambda, built from the environment on first use. */
export const deps = (): Promise<Deps> => (built ??= buildDeps(loadConfig()));

/**
 * The composition root of the AWS runtime: the table, bucket and state machine named by
 * `TABLE_NAME`, `BUCKET_NAME` and `STATE_MACHINE_ARN`. It builds ports only and knows no runtime:
 * the local one (`functions/local-runtime.ts`) builds its own ports (`buildLocalDeps` in
 * `container-local.ts`) and gives them to the handlers' factories, so a Lambda bundle never
 * holds the local adapters.
 * @throws {ConfigError} for a local configuration: `npm start` runs the local service.
 */
export async function buildDeps(config: Config): Promise<Deps> {
  logger.setLogLevel(config.LOG_LEVEL);
  if (config.RUNTIME_MODE === 'aws') return buildAwsDeps(config);
  throw new ConfigError(
    'RUNTIME_MODE=local runs in the local service (npm start), which builds its own dependencies; set RUNTIME_MODE=aws for a Lambda',
  );
}

export type LocalConfig = Extract<Config, { RUNTIME_MODE: 'local' }>;
type AwsConfig = Extract<Config, { RUNTIME_MODE: 'aws' }>;

/** The engines and the configured providers of a process. */
export interface LoadedEngines extends Omit<EmbeddedEngines, 'runtime'> {
  providers: ConfiguredRegistry;
  /** Tables, equations and figures (POST /v1/parse/structured); absent without engines. */
  structure?: StructureExtractor;
  /** Fills `extraction_schema` from the parsed Markdown, the last resort of every extraction chain. */
  offlineExtractor: StructuredExtractor;
}

/**
 * The document engines and the providers of the configuration, loaded on first use. Bundles of
 * functions that never parse documents define DOCPARSE_BUNDLE_ENGINES as `off`, which leaves the
 * engines and their native packages out; there, providers are known (chains, prices, for health
 * reports) but cannot run, and Secrets Manager is never called.
 *
 * Where engines run, the API keys held in Secrets Manager (`api_key_secret`) are read once per
 * process, all together, on the first page sent to such a provider, or by `warmUp` (the local
 * server, which then fails at start when one cannot be read). Not while loading: every pipeline
 * stage loads the engines, but only ParsePage calls providers, and only its role may read the
 * secrets (`grantProviderCalls` in lib/constructs/grants.ts).
 */
export async function loadEngines(config: Config, objects: ObjectStore): Promise<LoadedEngines> {
  if (process.env.DOCPARSE_BUNDLE_ENGINES === 'off') {
    const providers = buildProviderRegistry(config.providers, undefined);
    return {
      engineFor: () => undefined,
      providers,
      offlineExtractor: unavailableExtractor('this function is bundled without the engines'),
      warmUp: () => Promise.resolve(),
      close: () => providers.close(),
    };
  } else {
    const { buildEngines } = await import('./engines/embedded-engines.js');
    const engines = buildEngines(config, objects);
    // Loaded only when a provider needs it: the Secrets Manager client is not evaluated otherwise.
    const secretKeys = usesKeySecrets(config.providers)
      ? (await import('./providers/provider-secrets.js')).providerSecretsOnce(config.providers)
      : undefined;
    const providers = buildProviderRegistry(config.providers, engines.runtime, secretKeys);
    const { buildStructureExtractor } =
      await import('./engines/structure/build-structure-extractor.js');
    const structure = buildStructureExtractor(config);
    const { OfflineExtractor } = await import('./engines/extraction/offline-extractor.js');
    return {
      engineFor: engines.engineFor,
      providers,
      structure: structure.extractor,
      offlineExtractor: new OfflineExtractor(),
      warmUp: async () => {
        await Promise.all([engines.warmUp(), secretKeys?.()]);
      },
      close: async () => {
        await providers.close();
        await structure.close();
        await engines.close();
      },
    };
  }
}

/**
 * The providers' circuit breakers over the service table, with the configuration's policy
 * (defaults in `core/domain/circuit-breaker.ts`).
 */
export function circuitBreakers(
  config: Config,
  documentClient: DynamoDBDocumentClient,
  tableName: string,
): ProviderBreakers {
  const b = config.providers.breaker;
  return new ProviderBreakers(
    new DynamoDbBreakerStore(documentClient, tableName),
    {
      failureThreshold: b.failure_threshold ?? DEFAULT_BREAKER_POLICY.failureThreshold,
      cooldownMs: b.cooldown_ms ?? DEFAULT_BREAKER_POLICY.cooldownMs,
      halfOpenProbes: b.half_open_probes ?? DEFAULT_BREAKER_POLICY.halfOpenProbes,
      idleAfterMs: b.idle_after_ms ?? DEFAULT_BREAKER_POLICY.idleAfterMs,
    },
    undefined,
    { observer: breakerReports },
  );
}

/** Provider failures and breaker openings: a warning in the log and a metric (on Lambda). */
export const breakerReports: BreakerObserver = {
  failed: (provider, reason) => {
    logger.warn('provider call failed', { provider, reason });
    serviceMetrics().providerFailed(provider);
  },
  opened: (provider) => {
    logger.warn('provider circuit opened', { provider });
    serviceMetrics().breakerOpened(provider);
  },
};

/**
 * The result cache over the service table. Its entries answer for `RETENTION_DAYS`, and its keys
 * carry the version of what in the configuration changes a result: the providers (less their
 * keys), tier chains and prices, extractors, router thresholds, page image cap and PDF text
 * reader. Another configuration misses every entry made under this one.
 */
export function resultCaching(
  config: Config,
  documentClient: DynamoDBDocumentClient,
  tableName: string,
): ResultCaching {
  const { providers, tiers, extraction } = config.providers;
  return {
    store: new DynamoDbResultCache(documentClient, tableName),
    configVersion: configurationVersion({
      providers: Object.fromEntries(
        Object.entries(providers).map(([id, entry]) => [
          id,
          Object.fromEntries(Object.entries(entry).filter(([field]) => field !== 'apiKey')),
        ]),
      ),
      tiers,
      extraction,
      thresholds: { fast: config.FAST_CEILING, pro: config.PRO_CEILING },
      maxPagePixels: config.MAX_PAGE_PIXELS,
      pdfTextReader: config.PDF_TEXT_READER,
    }),
    retentionMs: config.RETENTION_DAYS * 24 * 60 * 60 * 1000,
  };
}

/** The settings and limits both runtimes take from the configuration. */
export function common(config: Config) {
  return {
    config,
    detectFormat,
    clock: { now: () => new Date() },
    newId: () => randomId(24),
    settings: {
      maxDocumentPages: config.MAX_DOCUMENT_PAGES,
      thresholds: { fastCeiling: config.FAST_CEILING, proCeiling: config.PRO_CEILING },
      priceByTier: config.priceByTier,
      planLimits: config.PLAN_LIMITS,
    },
    limits: { maxUploadBytes: config.MAX_UPLOAD_BYTES, pageConcurrency: config.PAGE_CONCURRENCY },
  };
}

/**
 * On Lambda: one set of clients per cold start, credentials and region from the function's
 * environment. Stages write their events before returning (no `deferEvents`).
 */
async function buildAwsDeps(config: AwsConfig): Promise<Deps> {
  // X-Ray subsegments for every AWS call (Tracer leaves the clients as they are off Lambda).
  // Loaded here, not at the top: the X-Ray SDK turns on async_hooks with destroy tracking when
  // it loads (cls-hooked), a cost on every promise that the local runtime has no use for.
  const { Tracer } = await import('@aws-lambda-powertools/tracer');
  const tracer = new Tracer({ serviceName: 'docparse' });
  useMetrics(powertoolsMetrics());
  const dynamoClient = tracer.captureAWSv3Client(new DynamoDBClient({}));
  const documentClient = createDocumentClient(dynamoClient);
  const s3 = tracer.captureAWSv3Client(new S3Client({}));
  const objects = new S3ObjectStore(s3, config.BUCKET_NAME);
  const engines = await loadEngines(config, objects);
  const sfn = tracer.captureAWSv3Client(new SFNClient({}));
  const sqs = tracer.captureAWSv3Client(new SQSClient({}));
  // Records, checkpoints, events and batches are kept RETENTION_DAYS after their last write.
  const retention = { days: config.RETENTION_DAYS };
  // Each page checkpoint written counts a parsed page by tier (PagesParsed).
  const requests = meteredPageWrites(
    new DynamoDbRequestStore(documentClient, config.TABLE_NAME, { retention }),
    objects,
    serviceMetrics,
  );
  return {
    ...common(config),
    webhookSecrets: new DynamoDbWebhookSecretStore(
      documentClient,
      config.TABLE_NAME,
      newWebhookSecret,
    ),
    ...(config.WEBHOOK_QUEUE_URL === undefined
      ? {}
      : { webhooks: new SqsQueue(sqs, config.WEBHOOK_QUEUE_URL) }),
    ...(config.WEBHOOK_DLQ_URL === undefined
      ? {}
      : { webhookDeadLetters: new SqsQueue(sqs, config.WEBHOOK_DLQ_URL) }),
    requests,
    batches: new DynamoDbBatchStore(documentClient, config.TABLE_NAME, { retention }),
    ...(config.BATCH_QUEUE_URL === undefined
      ? {}
      : { batchItems: new SqsQueue(sqs, config.BATCH_QUEUE_URL) }),
    usage: new DynamoDbUsageStore(documentClient, config.TABLE_NAME),
    ...(config.RESULT_CACHE === 'on'
      ? { resultCache: meteredCaching(resultCaching(config, documentClient, config.TABLE_NAME)) }
      : {}),
    events: new DynamoDbEventLog(documentClient, config.TABLE_NAME, {
      retentionDays: config.RETENTION_DAYS,
    }),
    breakers: circuitBreakers(config, documentClient, config.TABLE_NAME),
    apiKeys: new DynamoDbApiKeyStore(documentClient, config.TABLE_NAME),
    objects,
    uploads: new S3UploadSigner(s3, config.BUCKET_NAME),
    engineFor: engines.engineFor,
    providers: engines.providers,
    offlineExtractor: engines.offlineExtractor,
    ...(engines.structure ? { structure: engines.structure } : {}),
    workflow:
      config.STATE_MACHINE_ARN === undefined
        ? unavailableWorkflow('STATE_MACHINE_ARN is not set for this function')
        : // Waiters (synchronous parses, batch items, resumes) read the request record with
          // backoff, not DescribeExecution every second: that API's quota is per account.
          withRecordPolling(new StepFunctionsWorkflow(sfn, config.STATE_MACHINE_ARN), requests),
    warmUp: () => engines.warmUp(),
    close: async () => {
      await engines.close();
      documentClient.destroy();
      dynamoClient.destroy();
      s3.destroy();
      sfn.destroy();
      sqs.destroy();
    },
  };
}

/** Result caching whose lookups count as hits and misses (CacheHits, CacheMisses). */
function meteredCaching(caching: ResultCaching): ResultCaching {
  return { ...caching, store: meteredResultCache(caching.store, serviceMetrics) };
}

/** An extractor for functions that never extract (no engines bundled): every call throws. */
function unavailableExtractor(reason: string): StructuredExtractor {
  return {
    id: 'unavailable',
    model: 'none',
    extract: () => Promise.reject(new ConfigError(reason)),
  };
}

/** A workflow for functions that never start or stop executions: every call throws. */
function unavailableWorkflow(reason: string): Workflow {
  const fail = (): never => {
    throw new ConfigError(reason);
  };
  return { executionIdFor: fail, start: fail, wait: fail, running: fail, stop: fail };
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A random alphanumeric id of `length` characters (about 5.95 bits each). */
function randomId(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALPHABET.charAt(b % ALPHABET.length);
  return out;
}
