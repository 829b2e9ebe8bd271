import { z } from 'zod';
import {
  BatchStatus,
  BatchSubmitResponse,
  CompareResult,
  EstimateResult,
  HealthResponse,
  ParseResponse,
  StructuredResult,
} from '../core/domain/schemas.js';
import { OBJECT_PREFIXES } from '../core/domain/object-keys.js';
import {
  BatchIdParams,
  CompareForm,
  CreateUploadBody,
  DocsAssetParams,
  EstimateForm,
  formNullableInt,
  ParseBatchRequest,
  ParseUrlRequest,
  RequestIdParams,
  ResultQuery,
  StructuredForm,
  UploadForm,
  UploadQuery,
} from './request-schemas.js';
import {
  BatchView,
  CancelReceipt,
  LiveStatus,
  ParseResultOrStatus,
  ParseStatusView,
  ProviderList,
  UploadSlot,
  WebhookSecret,
} from './response-schemas.js';

/*
 * One record per endpoint, the model of `@hono/zod-openapi`'s `createRoute`: its method and path,
 * the handler module serving it, whether it needs an API key, how it answers on AWS, its OpenAPI
 * operation with the very schemas its handler validates with, and what its handler's function
 * may touch. Everything that describes an endpoint reads this table:
 * - the route matching of the local server and the Lambda runtime (`routes.ts`);
 * - the handler wrapper: each handler passes its record to `httpHandler`, which takes the API key
 *   check, response streaming and the request schemas from it;
 * - the OpenAPI document (`openapi.ts`);
 * - the CDK API (`lib/constructs/parse-api.ts`): resources and methods, one function per handler
 *   module, its IAM grants from `access`, the rate counters of the authenticated ones.
 * Adding an endpoint is one record here and one handler module.
 */

/** What one API handler module touches, and so all its function's role may do. */
export interface HandlerAccess {
  /** Items of the service table (keys, requests, events, checkpoints). */
  readonly table?: 'read' | 'readWrite';
  /**
   * The tenants' webhook signing secrets (`WHSEC#` items), denied to every other function's
   * role (see `grantTable`).
   */
  readonly webhookSecrets?: true;
  /** Object key prefixes read and written (of `OBJECT_PREFIXES`). */
  readonly objects?: { readonly read?: readonly string[]; readonly write?: readonly string[] };
  /**
   * Executions of the parse state machine: started; started and then awaited or stopped; or
   * only read and stopped.
   */
  readonly executions?: 'start' | 'follow' | 'stop';
  /**
   * The handler opens documents itself (estimate, structured blocks): its function ships the
   * engines, like the pipeline stages.
   */
  readonly engines?: true;
  /** Messages sent to the batch queue (`sqs:SendMessage`, and `BATCH_QUEUE_URL`). */
  readonly batchQueue?: 'send';
  /** npm packages whose files the handler serves or reads at run time (shipped as they are). */
  readonly packages?: readonly string[];
}

type Schema = z.ZodType;

/** One documented response of an operation. */
export interface ResponseSpec {
  description: string;
  /** The JSON body's schema; with `contentType` other than JSON, the body is described in text. */
  schema?: Schema;
  /** @default 'application/json' */
  contentType?: string;
  /** A second representation of the same status (e.g. SSE on `Accept: text/event-stream`). */
  alternative?: { contentType: string; description: string };
  /** Response headers by name, with their descriptions. */
  headers?: Record<string, string>;
}

/** Failure statuses an operation lists beyond those every route of its kind has. */
export type FailureStatus = 400 | 402 | 404 | 409 | 413 | 503;

/** One endpoint, as written in {@link endpoints} (its operation id is its key there). */
export interface EndpointSpec {
  method: 'GET' | 'POST';
  /** Path with `{param}` placeholders, as API Gateway writes them. */
  path: string;
  /**
   * Handler module under `functions/api/`, exporting `createHandler` and `handler`. Endpoints
   * sharing a module share its function, so they must agree on `auth`, `streaming`,
   * `shortLived` and `access`.
   */
  entry: string;
  /** The handler needs response streaming (SSE, long synchronous uploads) on AWS. */
  streaming: boolean;
  /**
   * A streaming route that answers at once and streams only to send a large body (past the
   * 6 MB of a buffered Lambda response): it keeps the buffered routes' timeout and takes no
   * share of the reserved concurrency of the routes that hold a Lambda for minutes.
   */
  shortLived?: boolean;
  /** Requires `X-API-Key` (and counts against the key's request rate). */
  auth: boolean;
  summary: string;
  description: string;
  tag: 'Parse' | 'Results' | 'Batch' | 'Uploads' | 'Webhooks' | 'Operations' | 'Reference';
  /** Path parameters schema. */
  params?: Schema;
  /** Query string schema. */
  query?: Schema;
  /** Request headers the operation reads (beyond `X-API-Key`), by name, with their descriptions. */
  headers?: Record<string, string>;
  /** Multipart form fields; the document goes in the part `file` (or `upload_id` names a slot). */
  form?: Schema;
  /** JSON body. */
  body?: Schema;
  /** Successful responses, by status. */
  responses: Record<number, ResponseSpec>;
  /** Failure statuses beyond those every route of its kind has (see `openapi.ts`). */
  failures?: readonly FailureStatus[];
  /** What the handler module may touch (its function's IAM grants and environment). */
  access: HandlerAccess;
}

/** An endpoint with its operation id. */
export interface Endpoint extends EndpointSpec {
  operationId: string;
}

const PARSE_FAILURES: readonly FailureStatus[] = [400, 402, 404, 409, 413, 503];

/** Readiness answers (both health paths). */
const HEALTH_RESPONSES: Endpoint['responses'] = {
  200: { description: 'Healthy or degraded.', schema: HealthResponse },
  503: { description: 'Unhealthy.', schema: HealthResponse },
};

const SSE_DESCRIPTION =
  'Server-Sent Events: each event is a `data: {...}` line named by its `event` key: `ingest.start` (`page_count`), `classify.page` (`page`, `complexity`), `route.page` (`page`, `tier`, `provider`), `vlm.page.done` (`page`, `tier_used`, `confidence`, `latency_ms`), `node.started` / `node.completed` (unless `legacy_events=true`), and always `result.final` last with the whole ParseResponse (or the failure). A comment is sent every 15 s as a heartbeat.';

const LONG_PARSE_NOTE =
  'A parse that takes longer than 20 s is committed as 200 with keepalive spaces before the JSON body (leading whitespace is valid JSON).';

const CACHE_NOTE =
  'A document parsed before by the same tenant with the same output options (`operation_mode`, `maintain_format`, `max_pages`, `enable_verification`, `dpi`, `extraction_schema`, `preferred_model`, `compare_provider`) and provider configuration is answered at once from the result cache, for `RETENTION_DAYS` (7) after that parse: a new request id, `document.cached: true`, zero tokens and cost (`usage.cached`, `usage.cached_from` naming the request that parsed it, `timing.cached`), and no pages taken from the daily quota. `Cache-Control: no-cache` (or `invalidate_cache=true`) parses afresh and replaces the entry.';

/** The `Cache-Control` request header of the parses the result cache can answer. */
const CACHE_CONTROL_HEADER =
  '`no-cache` parses afresh instead of answering from the result cache, and replaces the entry; other directives are ignored.';

/** Every endpoint, by operation id, in the order the OpenAPI document and the route table list them. */
export const endpoints = {
  parseUpload: {
    method: 'POST',
    path: '/v1/parse/upload',
    entry: 'parse-upload.handler.ts',
    streaming: true,
    summary: 'Parse an uploaded document',
    description: `Parses the document synchronously and answers its ParseResponse: page-by-page Markdown with tier, provider, confidence, grounding boxes, tokens and cost. Send the document as the part \`file\`, or name a filled upload slot with \`upload_id\`. With \`Accept: text/event-stream\` the answer is the stream of POST /v1/parse/stream. ${CACHE_NOTE} ${LONG_PARSE_NOTE}`,
    tag: 'Parse',
    auth: true,
    headers: { 'Cache-Control': CACHE_CONTROL_HEADER },
    form: UploadForm,
    query: UploadQuery,
    responses: {
      200: {
        description: 'The parsed document.',
        schema: ParseResponse,
        alternative: { contentType: 'text/event-stream', description: SSE_DESCRIPTION },
      },
    },
    failures: PARSE_FAILURES,
    // A document the result cache has is answered from it: its stored result is read and copied
    // as the new request's own under results/.
    access: {
      table: 'readWrite',
      objects: {
        read: [OBJECT_PREFIXES.uploads, OBJECT_PREFIXES.results],
        write: [OBJECT_PREFIXES.uploads, OBJECT_PREFIXES.results],
      },
      executions: 'follow',
    },
  },
  parseUrl: {
    method: 'POST',
    path: '/v1/parse',
    entry: 'parse-url.handler.ts',
    streaming: true,
    summary: 'Parse a document at a URL',
    description: `Downloads \`file_url\` (https on port 443, public addresses only, every redirect checked, at most 3, the upload size limit) and answers like the upload. With \`webhook_url\`, the answer is the same and the end of the parse is also POSTed to the webhook, once (Standard Webhooks signature). With \`Prefer: respond-async\` (RFC 7240), the answer is 202 at once with the status of the queued parse; \`GET /v1/parse/{request_id}\` returns the result once it is there. The result cache answers by the hash of the downloaded bytes. ${CACHE_NOTE} ${LONG_PARSE_NOTE}`,
    tag: 'Parse',
    auth: true,
    headers: {
      'Cache-Control': CACHE_CONTROL_HEADER,
      Prefer:
        'RFC 7240 preferences. `respond-async` asks for a 202 at once instead of the result (`wait` is not honoured); other preferences are ignored.',
    },
    body: ParseUrlRequest,
    query: UploadQuery,
    responses: {
      200: { description: 'The parsed document.', schema: ParseResponse },
      202: {
        description:
          'Accepted, on `Prefer: respond-async`: the status of the queued parse (`status: "queued"`).',
        schema: ParseStatusView,
        headers: {
          'Preference-Applied': '`respond-async`.',
          Location: 'The URL of the result: `GET /v1/parse/{request_id}`.',
        },
      },
    },
    failures: PARSE_FAILURES,
    access: {
      table: 'readWrite',
      objects: {
        read: [OBJECT_PREFIXES.results],
        write: [OBJECT_PREFIXES.uploads, OBJECT_PREFIXES.results],
      },
      executions: 'follow',
    },
  },
  parseStream: {
    method: 'POST',
    path: '/v1/parse/stream',
    entry: 'parse-stream.handler.ts',
    streaming: true,
    summary: 'Parse a document with live progress (SSE)',
    description: `The upload form, answered with Server-Sent Events as the parse goes. A client that disconnects loses nothing: GET /v1/parse/{request_id} returns the result. A document the result cache answers gets \`ingest.start\` (with \`cached: true\`), \`classify.page\`, \`route.page\`, \`vlm.page.done\` and \`result.final\` replayed from the stored result at once. ${CACHE_NOTE}`,
    tag: 'Parse',
    auth: true,
    headers: { 'Cache-Control': CACHE_CONTROL_HEADER },
    form: UploadForm,
    query: UploadQuery,
    responses: {
      200: { description: SSE_DESCRIPTION, contentType: 'text/event-stream' },
    },
    failures: [400, 402, 404, 413],
    access: {
      table: 'readWrite',
      objects: {
        read: [OBJECT_PREFIXES.uploads, OBJECT_PREFIXES.results],
        write: [OBJECT_PREFIXES.uploads, OBJECT_PREFIXES.results],
      },
      executions: 'start',
    },
  },
  estimateParse: {
    method: 'POST',
    path: '/v1/parse/estimate',
    entry: 'estimate.handler.ts',
    streaming: false,
    summary: 'Estimate pages, tiers and cost',
    description:
      'Page count, tier mix and estimated cost from ingestion and classification only (no provider is called), routed by the live router’s own function. A document the result cache holds for this tenant with the upload form’s default options and this `max_pages` is estimated at 0 (a parse would be answered from the cache), with `cached: true`, `cached_from` and a `reason`.',
    tag: 'Parse',
    auth: true,
    form: EstimateForm,
    responses: { 200: { description: 'The estimate.', schema: EstimateResult } },
    failures: [400, 404, 413],
    // Stores the document for the engines, opens and measures it; reads upload slots.
    access: {
      table: 'read',
      objects: { read: [OBJECT_PREFIXES.uploads], write: [OBJECT_PREFIXES.estimates] },
      engines: true,
    },
  },
  compareProviders: {
    method: 'POST',
    path: '/v1/compare',
    entry: 'compare.handler.ts',
    streaming: true,
    summary: 'Parse with several providers and compare',
    description: `The document parsed by 1 to 4 configured providers at once, each run with its ParseResponse, and the agreement of their texts per page. Providers are named by the \`{id, model}\` pairs GET /v1/providers lists (the \`model\` their pages report; \`model\` may be left out); any other pair is 422, listing the valid ones. ${LONG_PARSE_NOTE}`,
    tag: 'Parse',
    auth: true,
    form: CompareForm,
    responses: { 200: { description: 'The runs and their agreement.', schema: CompareResult } },
    failures: PARSE_FAILURES,
    // One parse per provider: like the upload.
    access: {
      table: 'readWrite',
      objects: {
        read: [OBJECT_PREFIXES.uploads, OBJECT_PREFIXES.results],
        write: [OBJECT_PREFIXES.uploads],
      },
      executions: 'follow',
    },
  },
  parseStructured: {
    method: 'POST',
    path: '/v1/parse/structured',
    entry: 'parse-structured.handler.ts',
    streaming: true,
    summary: 'Extract tables, equations and figures as typed blocks',
    description: `Tables (cells with spans), display equations (LaTeX) and figures (with captions) with boxes in pixels of the page image at the page's DPI, origin top-left. 422 when the document has none. ${LONG_PARSE_NOTE}`,
    tag: 'Parse',
    auth: true,
    form: StructuredForm,
    responses: { 200: { description: 'The blocks.', schema: StructuredResult } },
    failures: [400, 402, 404, 413],
    // Opens the document itself (bytes in memory, nothing stored); reads upload slots; counts the
    // pages read against the tenant's daily quota.
    access: {
      table: 'readWrite',
      objects: { read: [OBJECT_PREFIXES.uploadSlots] },
      engines: true,
    },
  },
  submitBatch: {
    method: 'POST',
    path: '/v1/parse/batch',
    entry: 'parse-batch.handler.ts',
    streaming: false,
    summary: 'Submit a batch of documents',
    description:
      'Accepts 1 to 100 ParseURLRequests (each with `file_url`, or `upload_id` of a filled upload slot) and answers at once; the documents are parsed in the background by `priority`. The batch’s `webhook_url` gets one `batch.completed` event. A document the result cache holds (see POST /v1/parse/upload) is answered from it, its item completed at once; a batch document cannot set `invalidate_cache`.',
    tag: 'Batch',
    auth: true,
    body: ParseBatchRequest,
    responses: { 200: { description: 'The batch, queued.', schema: BatchSubmitResponse } },
    failures: [400, 503],
    // Stores the batch and its items, queues one message per item.
    access: { table: 'readWrite', batchQueue: 'send' },
  },
  getBatch: {
    method: 'GET',
    path: '/v1/batch/{batch_id}',
    entry: 'get-batch.handler.ts',
    streaming: false,
    summary: 'Read a batch’s status',
    description:
      'Status, totals, progress and items as one snapshot: `totals` and `completed_documents` are counted from the `items` of the same answer (so they add up to `item_count`), and `status` agrees with them. Each item gets its `request_id` in the write that starts it; an item that failed before its parse request was made has none.',
    tag: 'Batch',
    auth: true,
    params: BatchIdParams,
    responses: { 200: { description: 'The batch.', schema: BatchView } },
    failures: [404],
    access: { table: 'read' },
  },
  listBatchItems: {
    method: 'GET',
    path: '/v1/batch/{batch_id}/items',
    entry: 'list-batch-items.handler.ts',
    streaming: false,
    summary: 'List a batch’s items, a page at a time',
    description:
      'The items GET /v1/batch/{batch_id} shows, read the same way (the batch and its items in one read), in submission order, each with its `index` (its position in `documents`, from 0): at most `limit` of them, from `cursor` on, only those of `status` when it is given. `next_cursor` is the `cursor` of the next page, null on the last one.',
    tag: 'Batch',
    auth: true,
    params: BatchIdParams,
    query: z.object({
      status: BatchStatus.optional().describe('Only the items of this status.'),
      limit: formNullableInt(1, 100)
        .default(null)
        .transform((limit) => limit ?? 50)
        .describe('Items per page, 1 to 100; default 50.'),
      cursor: formNullableInt(0, 9999)
        .default(null)
        .describe('The `next_cursor` of the previous page; default the first item.'),
    }),
    responses: {
      200: {
        description: 'A page of the batch’s items.',
        schema: z.object({
          batch_id: z.string(),
          items: z.array(BatchView.shape.items.element.extend({ index: z.number().int().min(0) })),
          next_cursor: z.string().nullable(),
        }),
      },
    },
    failures: [404],
    // The batch and its items, read together (one query).
    access: { table: 'read' },
  },
  createUpload: {
    method: 'POST',
    path: '/v1/uploads',
    entry: 'create-upload.handler.ts',
    streaming: false,
    summary: 'Create an upload slot for a large file',
    description:
      'Returns a form to POST the file to (every entry of `fields`, then the part `file`), straight to storage; parse it afterwards by `upload_id`.',
    tag: 'Uploads',
    auth: true,
    body: CreateUploadBody,
    responses: { 201: { description: 'The upload slot.', schema: UploadSlot } },
    failures: [400],
    // The presigned upload form is signed with the function's own credentials: its role must be
    // able to write where the form writes.
    access: { table: 'read', objects: { write: [OBJECT_PREFIXES.uploadSlots] } },
  },
  getParse: {
    method: 'GET',
    path: '/v1/parse/{request_id}',
    entry: 'get-parse.handler.ts',
    // A finished result may pass the 6 MB of a buffered Lambda response.
    streaming: true,
    shortLived: true,
    summary: 'Read a parse result',
    description:
      'The stored ParseResponse, or the status of a parse that is still running, failed or was cancelled. The body is always the JSON itself, at every size: on AWS the route answers through Lambda response streaming (API Gateway `STREAM` mode), so a result past the 6 MB of a buffered Lambda response (a few hundred pages with grounding) comes whole, without a redirect or a download link; beyond 10 MB the gateway sends it more slowly.',
    tag: 'Results',
    auth: true,
    params: RequestIdParams,
    query: ResultQuery,
    responses: { 200: { description: 'The result or status.', schema: ParseResultOrStatus } },
    failures: [404],
    access: { table: 'read', objects: { read: [OBJECT_PREFIXES.results] } },
  },
  cancelParse: {
    method: 'POST',
    path: '/v1/parse/{request_id}/cancel',
    entry: 'cancel-parse.handler.ts',
    streaming: false,
    summary: 'Cancel an in-flight parse',
    description:
      'Stops the parse, deletes its checkpoints and gives its reserved pages back. 404 for finished parses.',
    tag: 'Results',
    auth: true,
    params: RequestIdParams,
    responses: { 202: { description: 'Cancelled.', schema: CancelReceipt } },
    failures: [404],
    // Marks the request cancelled, deletes its checkpoints, stops its execution.
    access: { table: 'readWrite', executions: 'stop' },
  },
  resumeParse: {
    method: 'POST',
    path: '/v1/parse/{request_id}/resume',
    entry: 'resume-parse.handler.ts',
    streaming: true,
    summary: 'Resume a parse from its checkpoints',
    description: `Parses only the pages without a checkpoint and answers the full ParseResponse; concurrent resumes share one run. ${LONG_PARSE_NOTE}`,
    tag: 'Results',
    auth: true,
    params: RequestIdParams,
    query: ResultQuery,
    responses: { 200: { description: 'The parsed document.', schema: ParseResponse } },
    failures: [404, 409, 503],
    // Starts the next run of the pipeline, waits for it, reads the result.
    access: {
      table: 'readWrite',
      objects: { read: [OBJECT_PREFIXES.results] },
      executions: 'follow',
    },
  },
  listProviders: {
    method: 'GET',
    path: '/v1/providers',
    entry: 'list-providers.handler.ts',
    streaming: false,
    summary: 'List providers and their circuit breakers',
    description:
      'Each configured provider with its model (`model_id`: the `model` its pages report, and the name `preferred_model`, `compare_provider` and compare’s `providers` take; `model_ids`: every model id its pages may report, e.g. `office-convert-1` for converted office pages) and its circuit-breaker state.',
    tag: 'Operations',
    auth: true,
    responses: { 200: { description: 'The providers.', schema: ProviderList } },
    access: { table: 'read' },
  },
  getWebhookSecret: {
    method: 'GET',
    path: '/v1/webhooks/secret',
    entry: 'webhook-secret.handler.ts',
    streaming: false,
    summary: 'Read the webhook signing secret',
    description: 'The tenant’s Standard Webhooks secret (`whsec_…`), created on the first call.',
    tag: 'Webhooks',
    auth: true,
    responses: { 200: { description: 'The secret.', schema: WebhookSecret } },
    // Shows the tenant's signing secret, creating it on the first call.
    access: { table: 'readWrite', webhookSecrets: true },
  },
  live: {
    method: 'GET',
    path: '/v1/live',
    entry: 'live.handler.ts',
    streaming: false,
    summary: 'Liveness',
    description: '200 while the process is up.',
    tag: 'Operations',
    auth: false,
    responses: { 200: { description: 'Live.', schema: LiveStatus } },
    access: {},
  },
  health: {
    method: 'GET',
    path: '/v1/health',
    entry: 'health.handler.ts',
    streaming: false,
    summary: 'Readiness',
    description:
      '`healthy` or `degraded` (200), `unhealthy` (503); `providers` is listed for a caller with a valid API key.',
    tag: 'Operations',
    auth: false,
    responses: HEALTH_RESPONSES,
    access: { table: 'read' },
  },
  healthUnversioned: {
    method: 'GET',
    path: '/health',
    entry: 'health.handler.ts',
    streaming: false,
    summary: 'Readiness (unversioned path)',
    description: 'As GET /v1/health, for load balancers; never lists providers.',
    tag: 'Operations',
    auth: false,
    responses: HEALTH_RESPONSES,
    access: { table: 'read' },
  },
  getOpenApi: {
    method: 'GET',
    path: '/v1/openapi.json',
    entry: 'openapi.handler.ts',
    streaming: false,
    summary: 'This description',
    description: 'The OpenAPI 3.1 document of the API.',
    tag: 'Reference',
    auth: false,
    responses: {
      200: { description: 'The OpenAPI document.', schema: z.record(z.string(), z.unknown()) },
    },
    // The OpenAPI document is generated from the schemas in the bundle; nothing is read.
    access: {},
  },
  getDocs: {
    method: 'GET',
    path: '/docs',
    entry: 'docs.handler.ts',
    streaming: false,
    summary: 'Interactive API reference',
    description: 'An HTML page rendering this description, with its scripts served under /docs/.',
    tag: 'Reference',
    auth: false,
    responses: { 200: { description: 'The reference page.', contentType: 'text/html' } },
    // The reference page serves Swagger UI's files from the package shipped beside the bundle.
    access: { packages: ['swagger-ui-dist'] },
  },
  getDocsAsset: {
    method: 'GET',
    path: '/docs/{asset}',
    entry: 'docs.handler.ts',
    streaming: false,
    summary: 'A script or style sheet of the reference page',
    description: 'Files of the reference page (from the `swagger-ui-dist` package).',
    tag: 'Reference',
    auth: false,
    params: DocsAssetParams,
    responses: {
      200: {
        description: 'The file.',
        contentType: 'text/javascript',
        alternative: { contentType: 'text/css', description: 'A style sheet.' },
      },
    },
    failures: [404],
    // The reference page serves Swagger UI's files from the package shipped beside the bundle.
    access: { packages: ['swagger-ui-dist'] },
  },
} satisfies Record<string, EndpointSpec>;

/** The operation id of an endpoint. */
export type OperationId = keyof typeof endpoints;

/** {@link endpoints} as a list, each with its operation id. */
export const endpointList: readonly Endpoint[] = Object.entries(endpoints).map(
  ([operationId, spec]: [string, EndpointSpec]) => ({ operationId, ...spec }),
);
