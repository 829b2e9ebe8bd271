import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbWebhookSecretStore } from '../../../functions/adapters/aws/dynamodb-webhook-secrets.js';
import { newWebhookSecret } from '../../../functions/adapters/http/webhook-signer.js';
import { DynamoDbApiKeyStore } from '../../../functions/adapters/aws/dynamodb-api-key-store.js';
import { DynamoDbBatchStore } from '../../../functions/adapters/aws/dynamodb-batch-store.js';
import { DynamoDbEventLog } from '../../../functions/adapters/aws/dynamodb-event-log.js';
import { DynamoDbRequestStore } from '../../../functions/adapters/aws/dynamodb-request-store.js';
import { S3ObjectStore } from '../../../functions/adapters/aws/s3-object-store.js';
import { serviceTable } from '../../../functions/adapters/aws/service-table.js';
import {
  startEmbeddedDynamo,
  type EmbeddedDynamo,
} from '../../../functions/adapters/local/embedded-dynamo.js';
import { LocalStepFunctionsWorkflow } from '../../../functions/adapters/local/local-workflow.js';
import { loadConfig } from '../../../functions/config.js';
import { common, type Deps } from '../../../functions/container.js';
import { issueApiKey } from '../../../functions/core/app/issue-api-key.js';
import { routes } from '../../../functions/api/routes.js';
import { HANDLER_ACCESS } from '../../../lib/constructs/parse-api.js';
import { startParse, submitUpload } from '../../../functions/core/app/parse-upload.js';
import { DEFAULT_PARSE_OPTIONS } from '../../../functions/core/domain/request.js';
import { ParseResponse } from '../../../functions/core/domain/schemas.js';
import { PARSE_DOCUMENT_ASL, stages } from '../../../functions/pipeline/stages.js';
import { DocparseStack } from '../../../lib/docparse-stack.js';
import { fakeDeps } from '../../support/builders.js';
import { startS3rver, type S3rverInstance } from '../../support/s3-server.js';
import { corpusPath } from '../../support/corpus.js';

/**
 * The deployable artefacts themselves: the stack is synthesized with bundling (as `cdk deploy`
 * would upload it), and the bundles of the stage functions and of `GET /v1/parse/{request_id}`
 * run in their own Node.js processes, in the AWS runtime mode, against DynamoDB's and S3's wire
 * APIs (dynalite, s3rver). A parse runs the state machine's ASL with every Task state invoking
 * its bundled function, so native modules, worker scripts, WebAssembly and OCR data must all be
 * where the bundles look for them.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const DEV = corpusPath('dev');
const TABLE = 'docparse-bundles';
const BUCKET = 'docparse-bundles';

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}

/** A bundled function running in a child process, invoked over IPC. */
class BundledFunction {
  readonly #child: ChildProcess;
  readonly #pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  readonly ready: Promise<void>;
  #next = 0;

  constructor(assetDir: string, name: string, env: Record<string, string>) {
    this.#child = fork(join(ROOT, 'test/support/lambda-bundle-runner.mjs'), [assetDir, name], {
      cwd: assetDir,
      env,
      execArgv: [],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    this.ready = new Promise((ready, failed) => {
      this.#child.once('exit', (code) => {
        failed(new Error(`${name} exited with ${String(code)}`));
      });
      this.#child.on(
        'message',
        (message: {
          ready?: true;
          id?: number;
          result?: unknown;
          error?: { name: string; message: string };
        }) => {
          if (message.ready) {
            ready();
            return;
          }
          const pending = this.#pending.get(message.id ?? -1);
          if (!pending) return;
          this.#pending.delete(message.id ?? -1);
          if (message.error) {
            const error = new Error(message.error.message);
            error.name = message.error.name;
            pending.reject(error);
          } else {
            pending.resolve(message.result);
          }
        },
      );
    });
  }

  async invoke(event: unknown): Promise<unknown> {
    await this.ready;
    const id = this.#next++;
    return new Promise((resolvePromise, reject) => {
      this.#pending.set(id, { resolve: resolvePromise, reject });
      this.#child.send({ id, event });
    });
  }

  stop(): void {
    this.#child.kill();
  }
}

let outdir: string;
let dynamo: EmbeddedDynamo;
let s3: S3rverInstance;
let resources: Record<string, Resource>;
const running: BundledFunction[] = [];

/** The function whose description is `description`, started from its bundle. */
function startBundle(description: string): BundledFunction {
  const [id, fn] =
    Object.entries(resources).find(
      ([, r]) => r.Type === 'AWS::Lambda::Function' && r.Properties.Description === description,
    ) ?? [];
  if (!id || !fn) throw new Error(`no function described as "${description}"`);
  const assetPath = fn.Metadata?.['aws:asset:path'];
  if (typeof assetPath !== 'string') throw new Error(`${id} has no bundled asset`);
  // The function's own environment, with the table and bucket of this test.
  const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    AWS_REGION: 'us-east-1',
    // s3rver's fixed credentials (dynalite accepts any).
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_LAMBDA_FUNCTION_NAME: id,
  };
  for (const [name, value] of Object.entries(variables)) {
    if (typeof value === 'string') env[name] = value;
  }
  Object.assign(env, { TABLE_NAME: TABLE, BUCKET_NAME: BUCKET, LOG_LEVEL: 'ERROR' });
  const bundled = new BundledFunction(join(outdir, assetPath), id, env);
  running.push(bundled);
  return bundled;
}

/** Dependencies of this test process, on the same table and bucket as the bundles. */
function sourceDeps(workflow: LocalStepFunctionsWorkflow): Deps {
  const config = loadConfig({ RUNTIME_MODE: 'aws', TABLE_NAME: TABLE, BUCKET_NAME: BUCKET });
  return {
    ...common(config),
    requests: new DynamoDbRequestStore(dynamo.documentClient, TABLE),
    events: new DynamoDbEventLog(dynamo.documentClient, TABLE),
    apiKeys: new DynamoDbApiKeyStore(dynamo.documentClient, TABLE),
    webhookSecrets: new DynamoDbWebhookSecretStore(dynamo.documentClient, TABLE, newWebhookSecret),
    batches: new DynamoDbBatchStore(dynamo.documentClient, TABLE),
    objects: new S3ObjectStore(s3.client, BUCKET),
    workflow,
    // Never used here: the bundles parse.
    ...pick(fakeDepsSync(), ['engineFor', 'providers', 'offlineExtractor', 'uploads']),
    warmUp: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

let fakes: Awaited<ReturnType<typeof fakeDeps>>;
const fakeDepsSync = () => fakes;
function pick<T extends object, K extends keyof T>(value: T, keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, value[k]])) as Pick<T, K>;
}

beforeAll(async () => {
  // Arrange: synthesize with bundling, into a directory of our own.
  outdir = mkdtempSync(join(tmpdir(), 'docparse-assembly-'));
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  new DocparseStack(app, 'Docparse');
  const assembly = app.synth();
  resources = (
    assembly.getStackByName('Docparse').template as { Resources: Record<string, Resource> }
  ).Resources;
  dynamo = await startEmbeddedDynamo();
  await dynamo.ensureTable(serviceTable(TABLE));
  s3 = await startS3rver(BUCKET);
  fakes = await fakeDeps();
}, 300_000);

afterAll(async () => {
  for (const fn of running) fn.stop();
  await s3.stop();
  await dynamo.stop();
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

describe('the synthesized Lambda bundles', () => {
  // 1.5 MB before the X-Ray SDK that Powertools Tracer brings (about 125 KB with cls-hooked and
  // semver), which every function carries to trace its AWS calls.
  it('keep every API function that does not parse documents under 1.75 MB minified', () => {
    // Arrange
    // Handlers that open documents themselves (estimate, structured) ship the engines.
    const withEngines = routes
      .filter((route) => HANDLER_ACCESS[route.entry]?.engines === true)
      .map((route) => `${route.method} ${route.path}`);
    const api = Object.values(resources).filter(
      (r) =>
        r.Type === 'AWS::Lambda::Function' &&
        String(r.Properties.Description).startsWith('API: ') &&
        !withEngines.some((route) => String(r.Properties.Description).includes(route)),
    );
    // Act
    const sizes = api.map((r) => {
      const assetPath = String(r.Metadata?.['aws:asset:path']);
      return {
        fn: String(r.Properties.Description),
        bytes: statSync(join(outdir, assetPath, 'index.mjs')).size,
      };
    });
    // Assert
    expect(sizes.length).toBeGreaterThanOrEqual(5);
    for (const { fn, bytes } of sizes) expect(bytes, fn).toBeLessThan(1.75 * 1024 * 1024);
  });

  it('parse a born-digital PDF and a scanned image through the state machine, and serve the result', async () => {
    // Arrange: every Task state invokes its own bundle.
    const tasks = Object.fromEntries(
      stages.map(({ state }) => {
        const fn = startBundle(`Parse pipeline: the ${state} state`);
        return [state, (input: unknown) => fn.invoke(input)];
      }),
    );
    const workflow = new LocalStepFunctionsWorkflow(join(ROOT, PARSE_DOCUMENT_ASL), () =>
      Promise.resolve(tasks),
    );
    const deps = sourceDeps(workflow);
    const key = await issueApiKey(deps.apiKeys, 'bundles', 'pro', new Date());
    const getParse = startBundle('API: GET /v1/parse/{request_id}');
    const documents = [
      { file: 'docling-2305.03393v1-pg9.pdf', text: 'TableFormer' },
      { file: 'docling-2305.03393v1-pg9-img.png', text: 'TableFormer' },
    ];

    for (const document of documents) {
      // Act
      const record = await submitUpload(deps, {
        tenant: 'bundles',
        bytes: new Uint8Array(readFileSync(join(DEV, 'files', document.file))),
        filename: document.file,
        options: DEFAULT_PARSE_OPTIONS,
      });
      const { executionId } = await startParse(deps, record.id);
      const outcome = await workflow.wait(executionId);
      const event = getParseEvent(record.id, key);
      const answer = (await getParse.invoke(event)) as { statusCode: number; body: string };

      // Assert
      expect(outcome, document.file).toEqual({ status: 'SUCCEEDED' });
      expect(answer.statusCode, document.file).toBe(200);
      const response = ParseResponse.parse(JSON.parse(answer.body));
      expect(response.status).toBe('completed');
      expect(response.pages).toHaveLength(1);
      const page = response.pages[0];
      expect(page?.content_markdown).toContain(document.text);
      expect(page?.provider).toBe(document.file.endsWith('.png') ? 'local-ocr' : 'local-text');
      expect(page?.grounding.length).toBeGreaterThan(0);
      for (const { bbox } of page?.grounding ?? []) {
        expect(bbox.x + bbox.w).toBeLessThanOrEqual(page?.width ?? 0);
        expect(bbox.y + bbox.h).toBeLessThanOrEqual(page?.height ?? 0);
      }
    }
  }, 240_000);
});

/** The REST proxy event of `GET /v1/parse/{request_id}` (fixture shape), for `requestId`. */
function getParseEvent(requestId: string, apiKey: string): APIGatewayProxyEvent {
  const text = readFileSync(join(ROOT, 'test/fixtures/api-gateway/get-parse.json'), 'utf8')
    .replaceAll('KEY_PLACEHOLDER', apiKey)
    .replaceAll('req_unknown00000000000000000', requestId);
  return JSON.parse(text) as APIGatewayProxyEvent;
}
