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
import { endpointList, type Endpoint, type FailureStatus, type ResponseSpec } from './endpoints.js';
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

/*
 * The OpenAPI 3.1 description of the API, generated from the endpoint records (endpoints.ts):
 * the same zod schemas the handlers validate requests with and the domain's result schemas (one
 * source, no hand-written copy). Served at GET /v1/openapi.json; GET /docs renders it.
 */

type Schema = z.ZodType;

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
 * The OpenAPI 3.1 document of every endpoint. Schemas are JSON Schema 2020-12:
 * request schemas as clients send them (`io: 'input'`: defaults make fields optional, form and
 * query values are strings), responses as the service writes them. Objects that are not strict
 * in zod accept additional properties (the service may add extension fields).
 * @param serverUrl the API's base URL for `servers` (the URL a client reached), if known.
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
  for (const operation of endpointList) {
    const item = (paths[operation.path] ??= {});
    item[operation.method.toLowerCase()] = {
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
function parametersOf(operation: Endpoint): { parameters?: unknown[] } {
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
function requestBodyOf(operation: Endpoint): { requestBody?: unknown } {
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
  operation: Endpoint,
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
