import { z } from 'zod';
import { SERVICE_VERSION } from '../core/app/check-health.js';
import {
  BatchSubmitResponse,
  CompareResult,
  ErrorBody,
  EstimateResult,
  HealthResponse,
  HTTPValidationError,
  ParseResponse,
  StructuredResult,
} from '../core/domain/schemas.js';
import {
  BatchIdParams,
  CompareForm,
  CreateUploadBody,
  DocsAssetParams,
  EstimateForm,
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
  ExtractionFailureList,
  LiveStatus,
  ParseResultOrStatus,
  ParseStatusView,
  ProviderList,
  UploadSlot,
  WebhookSecret,
} from './response-schemas.js';
import { routes } from './routes.js';

/*
 * The OpenAPI 3.1 description of the API, generated from the same zod schemas the handlers
 * validate requests with (request-schemas.ts) and the domain's result schemas (one source, no
 * hand-written copy). Served at GET /v1/openapi.json; GET /docs renders it.
 */

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

/** One operation: the request schemas of its route and every response it can give. */
export interface Operation {
  operationId: string;
  summary: string;
  description: string;
  tag: 'Parse' | 'Results' | 'Batch' | 'Uploads' | 'Webhooks' | 'Operations' | 'Reference';
  /** Requires `X-API-Key` (and counts against the key's request rate). */
  auth: boolean;
  params?: Schema;
  query?: Schema;
  /** Request headers the operation reads (beyond `X-API-Key`), by name, with their descriptions. */
  headers?: Record<string, string>;
  /** Multipart form fields; the document goes in the part `file` (or `upload_id` names a slot). */
  form?: Schema;
  /** JSON body. */
  body?: Schema;
  /** Successful responses, by status. */
  responses: Record<number, ResponseSpec>;
  /** Failure statuses beyond those every route of its kind has (see {@link failureResponses}). */
  failures?: readonly FailureStatus[];
}

type FailureStatus = 400 | 402 | 404 | 409 | 413 | 503;

const FAILURES: Record<FailureStatus | 401 | 422 | 429 | 500, ResponseSpec> = {
  400: {
    description:
      'Bad request: malformed JSON or multipart body, missing or extra file part, empty or unsupported document, refused URL.',
    schema: ErrorBody,
  },
  401: { description: 'Missing, unknown or revoked API key.', schema: ErrorBody },
  402: {
    description: "The document's pages exceed what the key's plan allows today.",
    schema: ErrorBody,
  },
  404: {
    description: 'Unknown id, or an id of another tenant (the two are indistinguishable).',
    schema: ErrorBody,
  },
  409: { description: 'The parse was cancelled while the request waited.', schema: ErrorBody },
  413: { description: 'The document is larger than the maximum upload size.', schema: ErrorBody },
  422: {
    description:
      'Validation failed: `detail` lists each problem with its location (`loc` starts with `path`, `query` or `body`).',
    schema: HTTPValidationError,
  },
  429: {
    description: "Over the key's requests per minute.",
    schema: ErrorBody,
    headers: { 'Retry-After': 'Seconds until the next one-minute window.' },
  },
  500: { description: 'Internal error; `detail` names the request id.', schema: ErrorBody },
  503: {
    description: 'Every provider able to take the work is unavailable (circuits open).',
    schema: ErrorBody,
  },
};

/**
 * A 429 that API Gateway or the web ACL answers before any handler runs: the gateway's own
 * `{ message }` body, or the ACL's `{ detail }` one.
 */
const ThrottledBody = z.union([
  ErrorBody,
  z.object({ message: z.string().describe('API Gateway’s text, `Too Many Requests`.') }),
]);

/**
 * 429 of an operation without an API key: no per-key rate applies, only the throttles of an AWS
 * deployment (lib/constructs/parse-api.ts, api-web-acl.ts), which every route is behind.
 */
const THROTTLED_429: ResponseSpec = {
  description:
    'Over a throttle of an AWS deployment, applied before the service runs: the API stage’s request rate (API Gateway’s `{"message": "Too Many Requests"}`), or, where the web ACL is attached, the requests of one client address in 5 minutes (`{"detail": …}` with `Retry-After`). The local server does not throttle.',
  schema: ThrottledBody,
  headers: { 'Retry-After': 'Seconds to wait (the web ACL’s answer only).' },
};

/** Validation failure bodies of a synchronous parse, one component. */
const ParseValidationFailure = z.union([HTTPValidationError, ExtractionFailureList]);

/** 422 of a synchronous parse: a validation failure, or (extraction_strict) the schema failures. */
const STRICT_PARSE_422: ResponseSpec = {
  description: `${FAILURES[422].description} With \`extraction_strict=true\`, a parse whose extracted object fails its \`extraction_schema\` answers the list of failures instead (ExtractionFailureList).`,
  schema: ParseValidationFailure,
};

const PARSE_FAILURES: readonly FailureStatus[] = [400, 402, 404, 409, 413, 503];

/** Readiness answers (both health paths). */
const HEALTH_RESPONSES: Operation['responses'] = {
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

/** Every operation, by `METHOD path` of the route table. */
export const operations: Readonly<Record<string, Operation>> = {
  'POST /v1/parse/upload': {
    operationId: 'parseUpload',
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
  },
  'POST /v1/parse': {
    operationId: 'parseUrl',
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
  },
  'POST /v1/parse/stream': {
    operationId: 'parseStream',
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
  },
  'POST /v1/parse/estimate': {
    operationId: 'estimateParse',
    summary: 'Estimate pages, tiers and cost',
    description:
      'Page count, tier mix and estimated cost from ingestion and classification only (no provider is called), routed by the live router’s own function. A document the result cache holds for this tenant with the upload form’s default options and this `max_pages` is estimated at 0 (a parse would be answered from the cache), with `cached: true`, `cached_from` and a `reason`.',
    tag: 'Parse',
    auth: true,
    form: EstimateForm,
    responses: { 200: { description: 'The estimate.', schema: EstimateResult } },
    failures: [400, 404, 413],
  },
  'POST /v1/compare': {
    operationId: 'compareProviders',
    summary: 'Parse with several providers and compare',
    description: `The document parsed by 1 to 4 configured providers at once, each run with its ParseResponse, and the agreement of their texts per page. Providers are named by the \`{id, model}\` pairs GET /v1/providers lists (the \`model\` their pages report; \`model\` may be left out); any other pair is 422, listing the valid ones. ${LONG_PARSE_NOTE}`,
    tag: 'Parse',
    auth: true,
    form: CompareForm,
    responses: { 200: { description: 'The runs and their agreement.', schema: CompareResult } },
    failures: PARSE_FAILURES,
  },
  'POST /v1/parse/structured': {
    operationId: 'parseStructured',
    summary: 'Extract tables, equations and figures as typed blocks',
    description: `Tables (cells with spans), display equations (LaTeX) and figures (with captions) with boxes in pixels of the page image at the page's DPI, origin top-left. 422 when the document has none. ${LONG_PARSE_NOTE}`,
    tag: 'Parse',
    auth: true,
    form: StructuredForm,
    responses: { 200: { description: 'The blocks.', schema: StructuredResult } },
    failures: [400, 402, 404, 413],
  },
  'POST /v1/parse/batch': {
    operationId: 'submitBatch',
    summary: 'Submit a batch of documents',
    description:
      'Accepts 1 to 100 ParseURLRequests (each with `file_url`, or `upload_id` of a filled upload slot) and answers at once; the documents are parsed in the background by `priority`. The batch’s `webhook_url` gets one `batch.completed` event. A document the result cache holds (see POST /v1/parse/upload) is answered from it, its item completed at once; a batch document cannot set `invalidate_cache`.',
    tag: 'Batch',
    auth: true,
    body: ParseBatchRequest,
    responses: { 200: { description: 'The batch, queued.', schema: BatchSubmitResponse } },
    failures: [400, 503],
  },
  'GET /v1/batch/{batch_id}': {
    operationId: 'getBatch',
    summary: 'Read a batch’s status',
    description:
      'Status, totals, progress and items as one snapshot: `totals` and `completed_documents` are counted from the `items` of the same answer (so they add up to `item_count`), and `status` agrees with them. Each item gets its `request_id` in the write that starts it; an item that failed before its parse request was made has none.',
    tag: 'Batch',
    auth: true,
    params: BatchIdParams,
    responses: { 200: { description: 'The batch.', schema: BatchView } },
    failures: [404],
  },
  'POST /v1/uploads': {
    operationId: 'createUpload',
    summary: 'Create an upload slot for a large file',
    description:
      'Returns a form to POST the file to (every entry of `fields`, then the part `file`), straight to storage; parse it afterwards by `upload_id`.',
    tag: 'Uploads',
    auth: true,
    body: CreateUploadBody,
    responses: { 201: { description: 'The upload slot.', schema: UploadSlot } },
    failures: [400],
  },
  'GET /v1/parse/{request_id}': {
    operationId: 'getParse',
    summary: 'Read a parse result',
    description:
      'The stored ParseResponse, or the status of a parse that is still running, failed or was cancelled. The body is always the JSON itself, at every size: on AWS the route answers through Lambda response streaming (API Gateway `STREAM` mode), so a result past the 6 MB of a buffered Lambda response (a few hundred pages with grounding) comes whole, without a redirect or a download link; beyond 10 MB the gateway sends it more slowly.',
    tag: 'Results',
    auth: true,
    params: RequestIdParams,
    query: ResultQuery,
    responses: { 200: { description: 'The result or status.', schema: ParseResultOrStatus } },
    failures: [404],
  },
  'POST /v1/parse/{request_id}/cancel': {
    operationId: 'cancelParse',
    summary: 'Cancel an in-flight parse',
    description:
      'Stops the parse, deletes its checkpoints and gives its reserved pages back. 404 for finished parses.',
    tag: 'Results',
    auth: true,
    params: RequestIdParams,
    responses: { 202: { description: 'Cancelled.', schema: CancelReceipt } },
    failures: [404],
  },
  'POST /v1/parse/{request_id}/resume': {
    operationId: 'resumeParse',
    summary: 'Resume a parse from its checkpoints',
    description: `Parses only the pages without a checkpoint and answers the full ParseResponse; concurrent resumes share one run. ${LONG_PARSE_NOTE}`,
    tag: 'Results',
    auth: true,
    params: RequestIdParams,
    query: ResultQuery,
    responses: { 200: { description: 'The parsed document.', schema: ParseResponse } },
    failures: [404, 409, 503],
  },
  'GET /v1/providers': {
    operationId: 'listProviders',
    summary: 'List providers and their circuit breakers',
    description:
      'Each configured provider with its model (`model_id`: the `model` its pages report, and the name `preferred_model`, `compare_provider` and compare’s `providers` take; `model_ids`: every model id its pages may report, e.g. `office-convert-1` for converted office pages) and its circuit-breaker state.',
    tag: 'Operations',
    auth: true,
    responses: { 200: { description: 'The providers.', schema: ProviderList } },
  },
  'GET /v1/webhooks/secret': {
    operationId: 'getWebhookSecret',
    summary: 'Read the webhook signing secret',
    description: 'The tenant’s Standard Webhooks secret (`whsec_…`), created on the first call.',
    tag: 'Webhooks',
    auth: true,
    responses: { 200: { description: 'The secret.', schema: WebhookSecret } },
  },
  'GET /v1/live': {
    operationId: 'live',
    summary: 'Liveness',
    description: '200 while the process is up.',
    tag: 'Operations',
    auth: false,
    responses: { 200: { description: 'Live.', schema: LiveStatus } },
  },
  'GET /v1/health': {
    operationId: 'health',
    summary: 'Readiness',
    description:
      '`healthy` or `degraded` (200), `unhealthy` (503); `providers` is listed for a caller with a valid API key.',
    tag: 'Operations',
    auth: false,
    responses: HEALTH_RESPONSES,
  },
  'GET /health': {
    operationId: 'healthUnversioned',
    summary: 'Readiness (unversioned path)',
    description: 'As GET /v1/health, for load balancers; never lists providers.',
    tag: 'Operations',
    auth: false,
    responses: HEALTH_RESPONSES,
  },
  'GET /v1/openapi.json': {
    operationId: 'getOpenApi',
    summary: 'This description',
    description: 'The OpenAPI 3.1 document of the API.',
    tag: 'Reference',
    auth: false,
    responses: {
      200: { description: 'The OpenAPI document.', schema: z.record(z.string(), z.unknown()) },
    },
  },
  'GET /docs': {
    operationId: 'getDocs',
    summary: 'Interactive API reference',
    description: 'An HTML page rendering this description, with its scripts served under /docs/.',
    tag: 'Reference',
    auth: false,
    responses: { 200: { description: 'The reference page.', contentType: 'text/html' } },
  },
  'GET /docs/{asset}': {
    operationId: 'getDocsAsset',
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
  },
};

/** Named schemas of `components.schemas`, referenced from the operations. */
const COMPONENTS: Readonly<Record<string, Schema>> = {
  ParseResponse,
  ParseStatus: ParseStatusView,
  ParseResultOrStatus,
  EstimateResult,
  CompareResult,
  StructuredResult,
  BatchSubmitResponse,
  BatchStatus: BatchView,
  UploadSlot,
  CancelReceipt,
  ProviderList,
  WebhookSecret,
  HealthResponse,
  LiveStatus,
  ExtractionFailureList,
  ParseValidationFailure,
  ErrorBody,
  HTTPValidationError,
  ThrottledBody,
};

/** The key of a route in {@link operations}. */
export const operationKey = (method: string, path: string): string => `${method} ${path}`;

type JsonSchema = Record<string, unknown>;

/** An OpenAPI 3.1 document (the parts this module writes). */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    description: string;
    license: { name: string; identifier: string };
  };
  servers?: { url: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, unknown> };
}

/**
 * The OpenAPI 3.1 document of every route of the route table. Schemas are JSON Schema 2020-12:
 * request schemas as clients send them (`io: 'input'`: defaults make fields optional, form and
 * query values are strings), responses as the service writes them. Objects that are not strict
 * in zod accept additional properties (the service may add extension fields).
 * @param serverUrl the API's base URL for `servers` (the URL a client reached), if known.
 * @throws {Error} when a route has no operation here (a programming error).
 */
export function openApiDocument(serverUrl?: string): OpenApiDocument {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(COMPONENTS)) registry.add(schema, { id });
  const componentSchemas = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    io: 'output',
    unrepresentable: 'any',
    override: adjustSchema,
  }).schemas;
  for (const schema of Object.values(componentSchemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  const ref = (schema: Schema): JsonSchema => {
    const id = registry.get(schema)?.id;
    return id === undefined ? inline(schema, 'output') : { $ref: `#/components/schemas/${id}` };
  };

  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const operation = operations[operationKey(route.method, route.path)];
    if (!operation) throw new Error(`no OpenAPI operation for ${route.method} ${route.path}`);
    const item = (paths[route.path] ??= {});
    item[route.method.toLowerCase()] = {
      operationId: operation.operationId,
      summary: operation.summary,
      description: operation.description,
      tags: [operation.tag],
      // An empty list says the operation takes no credentials (not that it was forgotten).
      security: operation.auth ? [{ ApiKeyAuth: [] }] : [],
      ...parametersOf(operation),
      ...requestBodyOf(operation),
      responses: responsesOf(operation, ref),
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'docparse API',
      version: SERVICE_VERSION,
      description:
        'PDFs, images and office files to page-by-page Markdown and schema-driven JSON. Every page reports the tier and provider that parsed it, a confidence report, bounding boxes (`grounding`, pixels of the page image at `dpi`, origin top-left), warnings, tokens and cost. Authenticate with the `X-API-Key` header.',
      license: { name: 'Apache License 2.0', identifier: 'Apache-2.0' },
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    tags: [
      { name: 'Parse', description: 'Parse documents: synchronous, streaming, estimate, compare.' },
      { name: 'Results', description: 'Read, cancel and resume parses.' },
      { name: 'Batch', description: 'Many documents in the background.' },
      { name: 'Uploads', description: 'Large files sent straight to storage.' },
      { name: 'Webhooks', description: 'Signed notifications.' },
      { name: 'Operations', description: 'Health and providers.' },
      { name: 'Reference', description: 'This description and its reference page.' },
    ],
    paths,
    components: {
      schemas: componentSchemas,
      securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    },
  };
}

/** A schema converted on its own (no component references), without `$schema`. */
function inline(schema: Schema, io: 'input' | 'output'): JsonSchema {
  const converted = z.toJSONSchema(schema, { io, unrepresentable: 'any', override: adjustSchema });
  delete converted.$schema;
  return converted;
}

/** The adjustments of every converted schema (see {@link openObjects}, {@link enumRecordKeys}). */
function adjustSchema(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  openObjects(ctx);
  enumRecordKeys(ctx.jsonSchema);
}

/**
 * zod writes a record keyed by an enum (`z.record(Tier, count)`, which needs every key) as
 * `propertyNames` with the enum, `additionalProperties` with the value schema, and `required`
 * naming the keys, but no `properties`: tools that read `properties` (client generators, linters)
 * then see required fields that do not exist. Each key becomes a property with the value schema;
 * `propertyNames` still closes the object to the enum.
 */
function enumRecordKeys(json: JsonSchema): void {
  const keys = (json.propertyNames as JsonSchema | undefined)?.enum;
  const value = json.additionalProperties;
  if (!Array.isArray(keys) || json.properties !== undefined || typeof value !== 'object') return;
  json.properties = Object.fromEntries(keys.map((key) => [String(key), value]));
  delete json.additionalProperties;
}

/**
 * zod writes `additionalProperties: false` for every object of an output schema, since parsing
 * strips unknown keys; the service's responses are not parsed, and may carry extension fields.
 * Only strict objects keep it.
 */
function openObjects(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  const def = (ctx.zodSchema as { _zod?: { def?: { type?: string; catchall?: unknown } } })._zod
    ?.def;
  if (def?.type !== 'object') return;
  const strict = (def.catchall as { _zod?: { def?: { type?: string } } } | undefined)?._zod?.def
    ?.type;
  if (strict !== 'never' && ctx.jsonSchema.additionalProperties === false) {
    delete ctx.jsonSchema.additionalProperties;
  }
}

/**
 * The `parameters` of path and query schemas (each property one parameter), and of the request
 * headers the operation reads.
 */
function parametersOf(operation: Operation): { parameters?: unknown[] } {
  const parameters: unknown[] = [];
  for (const [where, schema] of [
    ['path', operation.params],
    ['query', operation.query],
  ] as const) {
    if (!schema) continue;
    const object = inline(schema, 'input');
    const required = new Set((object.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries(
      (object.properties as Record<string, JsonSchema> | undefined) ?? {},
    )) {
      parameters.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        schema: property,
      });
    }
  }
  for (const [name, description] of Object.entries(operation.headers ?? {})) {
    parameters.push({
      name,
      in: 'header',
      required: false,
      description,
      schema: { type: 'string' },
    });
  }
  return parameters.length > 0 ? { parameters } : {};
}

/** The `requestBody` of a JSON body or a multipart form (with its `file` part). */
function requestBodyOf(operation: Operation): { requestBody?: unknown } {
  if (operation.body) {
    return {
      requestBody: {
        required: true,
        content: { 'application/json': { schema: inline(operation.body, 'input') } },
      },
    };
  }
  if (operation.form) {
    const fields = inline(operation.form, 'input');
    const properties = {
      file: {
        type: 'string',
        format: 'binary',
        contentMediaType: 'application/octet-stream',
        description:
          'The document (PDF, PNG, JPEG, WebP, TIFF, HEIC, DOCX, PPTX, XLSX, XLS, HTML or Markdown), detected from its bytes. Required unless `upload_id` names a filled upload slot.',
      },
      ...((fields.properties as Record<string, JsonSchema> | undefined) ?? {}),
    };
    return {
      requestBody: {
        required: true,
        content: { 'multipart/form-data': { schema: { ...fields, properties } } },
      },
    };
  }
  return {};
}

/** Success responses, then the failures every route of its kind can give, then its own. */
function responsesOf(
  operation: Operation,
  ref: (schema: Schema) => JsonSchema,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const add = (status: number, spec: ResponseSpec) => {
    const content: Record<string, unknown> = {};
    const contentType = spec.contentType ?? 'application/json';
    content[contentType] = spec.schema
      ? { schema: ref(spec.schema) }
      : { schema: { type: 'string' } };
    if (spec.alternative) {
      content[spec.alternative.contentType] = {
        schema: { type: 'string', description: spec.alternative.description },
      };
    }
    out[String(status)] = {
      description: spec.description,
      content,
      ...(spec.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(spec.headers).map(([name, description]) => [
                name,
                { description, schema: { type: 'integer' } },
              ]),
            ),
          }
        : {}),
    };
  };
  for (const [status, spec] of Object.entries(operation.responses)) add(Number(status), spec);
  const failures = new Set<number>(operation.failures ?? []);
  if (operation.auth) failures.add(401);
  // Every route is behind the deployment's throttles; a keyed one also has its key's rate.
  failures.add(429);
  if (operation.params || operation.query || operation.form || operation.body) failures.add(422);
  if (operation.body) failures.add(400);
  failures.add(500);
  for (const status of [...failures].sort((a, b) => a - b)) {
    if (out[String(status)] !== undefined) continue;
    // A synchronous parse with extraction_strict=true answers the schema failures themselves.
    const strictParse = status === 422 && operation.responses[200]?.schema === ParseResponse;
    const spec = strictParse
      ? STRICT_PARSE_422
      : status === 429 && !operation.auth
        ? THROTTLED_429
        : FAILURES[status as keyof typeof FAILURES];
    add(status, spec);
  }
  return out;
}
