import './polyfills.js';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDbApiKeyStore } from './adapters/aws/dynamodb-api-key-store.js';
import { DynamoDbEventLog } from './adapters/aws/dynamodb-event-log.js';
import { createDocumentClient } from './adapters/aws/dynamodb-items.js';
import { DynamoDbRequestStore } from './adapters/aws/dynamodb-request-store.js';
import { S3ObjectStore } from './adapters/aws/s3-object-store.js';
import { S3UploadSigner } from './adapters/aws/s3-upload-signer.js';
import { StepFunctionsWorkflow } from './adapters/aws/step-functions-workflow.js';
import { serviceTable } from './adapters/aws/service-table.js';
import { lockDataDir } from './adapters/local/data-dir-lock.js';
import { startEmbeddedDynamo } from './adapters/local/embedded-dynamo.js';
import { FsObjectStore } from './adapters/local/fs-object-store.js';
import { lambdaContext } from './adapters/local/lambda-context.js';
import { LocalStepFunctionsWorkflow, type LocalTask } from './adapters/local/local-workflow.js';
import { LocalUploadSigner, loadUploadSecret } from './adapters/local/local-upload-signer.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import type { AppDeps } from './core/app/app-deps.js';
import type { ProviderRegistry } from './core/domain/pipeline/pipeline-ports.js';
import type { ProviderCapability } from './core/domain/routing.js';
import type { DocumentFormat } from './core/domain/schemas.js';
import type { DocumentEngine, DocumentRef } from './core/ports/document-engine.js';
import type { ObjectStore } from './core/ports/object-store.js';
import type { Workflow } from './core/ports/workflow.js';
import type { PageProvider } from './core/ports/page-provider.js';
import { detectFormat } from './engines/image/detect-format.js';
import { ImageEngine } from './engines/image/image-engine.js';
import { ImageRasterizer } from './engines/image/image-rasterizer.js';
import { LocalOcrProvider, OCR_RENDER_DPI } from './engines/ocr/local-ocr-provider.js';
import { TesseractOcr } from './engines/ocr/tesseract-ocr.js';
import { LocalTextProvider } from './engines/pdf/local-text-provider.js';
import { PdfEngine } from './engines/pdf/pdf-engine.js';
import { PdfRasterizer } from './engines/pdf/pdf-rasterizer.js';
import { PdfWorkerClient } from './engines/pdf/pdf-worker-client.js';
import type { PageRasterizer } from './engines/raster.js';
import { PARSE_DOCUMENT_ASL, stages } from './pipeline/stages.js';

/** Everything handlers and stages use, built once per process (local) or cold start (Lambda). */
export interface Deps extends AppDeps {
  config: Config;
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

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const IMAGE_FORMATS: readonly DocumentFormat[] = ['png', 'jpeg', 'webp', 'tiff', 'heic'];

let built: Promise<Deps> | undefined;

/** The process's dependencies, built from the environment on first use. */
export const deps = (): Promise<Deps> => (built ??= buildDeps(loadConfig()));

/** Builds the dependencies from `config` and makes them the process's (local server, tests). */
export function initDeps(config: Config): Promise<Deps> {
  built = buildDeps(config);
  return built;
}

/** How long the local event log waits to group a burst of progress events into one item. */
const EVENT_LINGER_MS = 10;

/** Forgets the process's dependencies after closing them. */
export async function resetDeps(): Promise<void> {
  const current = built;
  built = undefined;
  if (current) await (await current).close();
}

/**
 * The composition root: the only module that knows both adapter families. `local` runs on
 * the embedded DynamoDB and the filesystem under `DATA_DIR`; `aws` on the table, bucket and
 * state machine named by `TABLE_NAME`, `BUCKET_NAME` and `STATE_MACHINE_ARN`.
 */
export async function buildDeps(config: Config): Promise<Deps> {
  return config.RUNTIME_MODE === 'local' ? buildLocalDeps(config) : buildAwsDeps(config);
}

type LocalConfig = Extract<Config, { RUNTIME_MODE: 'local' }>;
type AwsConfig = Extract<Config, { RUNTIME_MODE: 'aws' }>;

/** What both runtimes build the same way around their own object store. */
function engines(config: Config, objects: ObjectStore) {
  const pdfSource = new PdfWorkerClient(objects, {
    maxPagesPerDocument: config.MAX_DOCUMENT_PAGES,
    textReader: config.PDF_TEXT_READER,
  });
  const pdfEngine = new PdfEngine(pdfSource, { maxPages: 100_000 });
  const imageEngine = new ImageEngine(objects);
  const pdfRasterizer = new PdfRasterizer(pdfSource, {
    maxPixels: config.MAX_PAGE_PIXELS,
    defaultDpi: OCR_RENDER_DPI,
  });
  const imageRasterizer = new ImageRasterizer(objects);
  const rasterizer: PageRasterizer = {
    rasterize: (ref: DocumentRef, pageNumber: number, dpi: number | null) =>
      ref.format === 'pdf'
        ? pdfRasterizer.rasterize(ref, pageNumber, dpi)
        : imageRasterizer.rasterize(ref, pageNumber, dpi),
  };
  const ocr = new TesseractOcr({ workers: config.OCR_WORKERS });
  const providers = providerRegistry([
    { provider: new LocalTextProvider(pdfSource), needsTextLayer: true },
    { provider: new LocalOcrProvider(rasterizer, ocr), needsTextLayer: false },
  ]);
  return {
    pdfSource,
    ocr,
    providers,
    engineFor: (format: DocumentFormat): DocumentEngine | undefined =>
      format === 'pdf' ? pdfEngine : IMAGE_FORMATS.includes(format) ? imageEngine : undefined,
  };
}

/** The settings and limits both runtimes take from the configuration. */
function common(config: Config) {
  return {
    config,
    detectFormat,
    clock: { now: () => new Date() },
    newId: () => randomId(24),
    settings: {
      maxDocumentPages: config.MAX_DOCUMENT_PAGES,
      thresholds: { fastCeiling: config.FAST_CEILING, proCeiling: config.PRO_CEILING },
      priceByTier: config.priceByTier,
    },
    limits: { maxUploadBytes: config.MAX_UPLOAD_BYTES, pageConcurrency: config.PAGE_CONCURRENCY },
  };
}

async function buildLocalDeps(config: LocalConfig): Promise<Deps> {
  const dataDir = config.DATA_DIR;
  // One server per data directory: its stores keep what they wrote in memory.
  const unlock = await lockDataDir(dataDir);
  const dynamo = await startEmbeddedDynamo({ path: join(dataDir, 'dynamodb'), port: 0 }).catch(
    async (error: unknown) => {
      await unlock();
      throw error;
    },
  );
  const tableName = 'docparse';
  await dynamo.ensureTable(serviceTable(tableName));
  // The local server is the only writer of its data directory.
  const objects = new FsObjectStore(join(dataDir, 'objects'), { onlyWriter: true });
  const { pdfSource, ocr, providers, engineFor } = engines(config, objects);
  // Upload forms point at the local server itself, which verifies them with the data
  // directory's secret; the server names its real URL once it listens (PORT may be 0).
  const uploads = new LocalUploadSigner(await loadUploadSecret(dataDir), {
    baseUrl: `http://${config.HOST}:${config.PORT}`,
  });

  // The local server is the only writer of its embedded table's records, keys and checkpoints.
  const requests = new DynamoDbRequestStore(dynamo.documentClient, tableName, {
    onlyWriter: true,
  });
  const workflow = new LocalStepFunctionsWorkflow(
    join(REPO_ROOT, PARSE_DOCUMENT_ASL),
    loadLocalTasks,
  );

  // Event writes still running after their stage returned; close() waits for them.
  const pendingEvents = new Set<Promise<void>>();
  return {
    ...common(config),
    requests,
    // Stages do not wait for their events here (deferEvents), so a short linger costs them
    // nothing and lets a stage's burst of events share one item.
    events: new DynamoDbEventLog(dynamo.documentClient, tableName, { lingerMs: EVENT_LINGER_MS }),
    deferEvents: (written) => {
      const tracked = written
        .catch((error: unknown) => {
          console.error('progress events could not be written', error);
        })
        .finally(() => pendingEvents.delete(tracked));
      pendingEvents.add(tracked);
    },
    apiKeys: new DynamoDbApiKeyStore(dynamo.documentClient, tableName, { onlyWriter: true }),
    objects,
    uploads,
    engineFor,
    providers,
    workflow,
    warmUp: async () => {
      await Promise.all([pdfSource.warmUp(), workflow.warmUp()]);
    },
    close: async () => {
      await Promise.all(pendingEvents);
      await ocr.terminate();
      await pdfSource.close();
      await dynamo.stop();
      await unlock();
    },
  };
}

/**
 * On Lambda: one set of clients per cold start, credentials and region from the function's
 * environment. Stages write their events before returning (no `deferEvents`).
 */
function buildAwsDeps(config: AwsConfig): Promise<Deps> {
  const dynamoClient = new DynamoDBClient({});
  const documentClient = createDocumentClient(dynamoClient);
  const s3 = new S3Client({});
  const objects = new S3ObjectStore(s3, config.BUCKET_NAME);
  const { pdfSource, ocr, providers, engineFor } = engines(config, objects);
  const sfn = new SFNClient({});
  return Promise.resolve({
    ...common(config),
    requests: new DynamoDbRequestStore(documentClient, config.TABLE_NAME),
    events: new DynamoDbEventLog(documentClient, config.TABLE_NAME),
    apiKeys: new DynamoDbApiKeyStore(documentClient, config.TABLE_NAME),
    objects,
    uploads: new S3UploadSigner(s3, config.BUCKET_NAME),
    engineFor,
    providers,
    workflow:
      config.STATE_MACHINE_ARN === undefined
        ? unavailableWorkflow('STATE_MACHINE_ARN is not set for this function')
        : new StepFunctionsWorkflow(sfn, config.STATE_MACHINE_ARN),
    warmUp: () => pdfSource.warmUp(),
    close: async () => {
      await ocr.terminate();
      await pdfSource.close();
      documentClient.destroy();
      dynamoClient.destroy();
      sfn.destroy();
    },
  });
}

/** A workflow for functions that never start or stop executions: every call throws. */
function unavailableWorkflow(reason: string): Workflow {
  const fail = (): never => {
    throw new ConfigError(reason);
  };
  return { executionIdFor: fail, start: fail, wait: fail, stop: fail };
}

/**
 * The provider chains of the embedded default: every tier tries the text-layer engine first and
 * falls to OCR for pages without a usable text layer.
 */
function providerRegistry(
  entries: { provider: PageProvider; needsTextLayer: boolean }[],
): ProviderRegistry {
  const byId = new Map(entries.map((e) => [e.provider.id, e.provider]));
  const chain: ProviderCapability[] = entries.map((e) => ({
    id: e.provider.id,
    needsTextLayer: e.needsTextLayer,
  }));
  return {
    get(id: string): PageProvider {
      const provider = byId.get(id);
      if (!provider) throw new Error(`provider ${id} is not registered`);
      return provider;
    },
    // The embedded default serves every tier with the same chain.
    chain: () => chain,
  };
}

/** Binds each Task state to its handler module, loaded lazily (the modules import this one). */
async function loadLocalTasks(): Promise<Record<string, LocalTask>> {
  const tasks: Record<string, LocalTask> = {};
  for (const { state, entry } of stages) {
    const mod = (await import(`./pipeline/${entry.replace(/\.ts$/, '.js')}`)) as {
      handler: (event: unknown, context: unknown) => Promise<unknown>;
    };
    tasks[state] = (input) => mod.handler(input, lambdaContext(state));
  }
  return tasks;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A random alphanumeric id of `length` characters (about 5.95 bits each). */
function randomId(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALPHABET.charAt(b % ALPHABET.length);
  return out;
}
