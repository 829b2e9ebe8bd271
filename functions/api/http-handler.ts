import type { Readable } from 'node:stream';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { z } from 'zod';
import { authenticate } from '../core/app/authenticate.js';
import { checkRequestRate } from '../core/app/limits.js';
import { BadRequestError } from '../core/domain/errors.js';
import { parseWith } from '../core/domain/validation.js';
import type { ApiKeyRecord } from '../core/ports/api-key-store.js';
import type { Deps } from '../container.js';
import { errorResponses } from './error-responses.js';
import { appendParseKeys, lambdaContextLogging } from '../observability/logger.js';
import { eventBodyBytes, parseMultipart, type MultipartForm } from './multipart.js';
import { json, withBodyBytes } from './responses.js';
import './streaming.js';

/** A file part of a multipart body. */
export interface UploadedFile {
  filename: string | null;
  mimetype: string;
  content: Buffer;
}

/**
 * The caller of an endpoint: its API key's record behind authentication (`auth` true or left
 * out), nothing on a public endpoint.
 */
export type CallerOf<A extends boolean> = A extends false ? undefined : ApiKeyRecord;

/** What a handler function receives once the event is authenticated and validated. */
export interface HttpRequest<P, Q, F, B = unknown, C = ApiKeyRecord | undefined> {
  params: P;
  query: Q;
  form: F;
  /** The validated JSON body (a `body` schema was given), else undefined. */
  body: B;
  file: UploadedFile | undefined;
  /** The authenticated caller: always there on an endpoint with `auth`, see {@link CallerOf}. */
  caller: C;
  headers: Readonly<Record<string, string | undefined>>;
  /** The request path, e.g. `/v1/health`. */
  path: string;
  /**
   * The API's base URL as the client reached it (no trailing slash): `PUBLIC_BASE_URL`, else the
   * scheme and Host of the request, with the stage on API Gateway's own domain names.
   */
  baseUrl: string;
  /** The Lambda request id (named in 500 responses and logs). */
  requestId: string;
  deps: Deps;
}

/**
 * A handler's reply; `body` is serialised as JSON, except a string body sent with its own
 * `content-type` header (an HTML page, a script), which is sent as it is.
 */
export interface HttpReply {
  statusCode: number;
  body: unknown;
  headers?: Record<string, string>;
  /**
   * With a string `body` sent with its own `content-type`: exactly its UTF-8 encoding, when the
   * handler holds it already (a kept result), so that the local server sends these bytes instead
   * of encoding the text on every request (see `withBodyBytes`).
   */
  bodyBytes?: Uint8Array;
  /**
   * Streaming handlers only: the body's bytes as they are produced (already serialised; `body`
   * is then ignored). The status and headers are sent first.
   */
  stream?: Readable;
}

type Schema = z.ZodType;

/** What a 400 for a malformed form tells the client to send. */
const MULTIPART_HINT = 'send multipart/form-data with one file part named "file"';

/**
 * What the wrapper takes from a handler's endpoint record (`endpoints.ts`): every handler passes
 * its record as it is, so that the API key check, response streaming and the request schemas
 * are the ones the route table, the CDK API and the OpenAPI document read.
 */
interface HandlerSpec<
  P extends Schema,
  Q extends Schema,
  F extends Schema,
  B extends Schema,
  A extends boolean,
> {
  /** Path parameters schema. */
  params?: P;
  /** Query string schema. */
  query?: Q;
  /** Multipart form fields schema; setting it enables the multipart body parser. */
  form?: F;
  /**
   * JSON body schema. An empty body is validated as `{}`; a non-empty one must be sent as
   * `application/json`.
   */
  body?: B;
  /**
   * Require `X-API-Key` (default true: a spec that does not say is authenticated). The handler's
   * `caller` is then always set (see {@link CallerOf}).
   */
  auth?: A;
  /**
   * Answer through Lambda response streaming (the route's `streaming` flag): the reply's `body`
   * may then be a Readable written as it is produced.
   */
  streaming?: boolean;
}

/**
 * The one place where middy is composed: the Lambda context and the request or batch id of the
 * path (`request_id`, `batch_id`) on every log line, error responses, then authentication and the
 * key's request rate (429 with `Retry-After` above its plan's requests per minute), then the
 * multipart parser when a form schema is given, then validation, then the handler.
 * Validation failures become 422 with the HTTPValidationError body (`loc` starts with `path`,
 * `query` or `body`); a file above `MAX_UPLOAD_BYTES` becomes 413; a multipart form that is
 * malformed (truncated, no boundary, a part without Content-Disposition, a second file part, a
 * field sent twice: see `parseMultipart`), a JSON body that does not parse, or one not sent as
 * `application/json`, becomes 400 with a detail naming the problem.
 */
export function httpHandler<
  P extends Schema,
  Q extends Schema,
  F extends Schema,
  B extends Schema = z.ZodUndefined,
  A extends boolean = true,
>(
  getDeps: () => Promise<Deps>,
  spec: HandlerSpec<P, Q, F, B, A>,
  fn: (
    request: HttpRequest<z.infer<P>, z.infer<Q>, z.infer<F>, z.infer<B>, CallerOf<A>>,
  ) => Promise<HttpReply>,
) {
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>({
    streamifyResponse: spec.streaming ?? false,
  })
    .use(lambdaContextLogging())
    .use(parseKeysLogging())
    .use(errorResponses());
  // Authentication runs before the body is parsed: unauthenticated uploads are not read.
  const callers = new WeakMap<APIGatewayProxyEvent, ApiKeyRecord>();
  if (spec.auth !== false) {
    const authentication: MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> = {
      before: async (request) => {
        const deps = await getDeps();
        const key = lowerCaseHeaders(request.event.headers)['x-api-key'];
        const caller = await authenticate(deps.apiKeys, key);
        // Before the body is read: a refused upload costs nothing more.
        await checkRequestRate(deps, caller);
        callers.set(request.event, caller);
      },
    };
    handler.use(authentication);
  }
  const forms = new WeakMap<APIGatewayProxyEvent, MultipartForm>();
  if (spec.form) {
    const multipart: MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> = {
      before: async (request) => {
        const deps = await getDeps();
        // 400 for a malformed form (see parseMultipart), 413 for a file above MAX_UPLOAD_BYTES.
        const { event } = request;
        const form = await parseMultipart(
          eventBodyBytes(event.body, event.isBase64Encoded),
          lowerCaseHeaders(event.headers)['content-type'],
          { maxFileBytes: deps.limits.maxUploadBytes, hint: MULTIPART_HINT },
        );
        forms.set(event, form);
      },
    };
    handler.use(multipart);
  }
  return handler.handler(async (event, context) => {
    const deps = await getDeps();
    const headers = lowerCaseHeaders(event.headers);
    const caller = callers.get(event);
    const params = validate('path', spec.params, event.pathParameters ?? {});
    const query = validate('query', spec.query, event.queryStringParameters ?? {});
    let form: unknown = {};
    let file: UploadedFile | undefined;
    if (spec.form) {
      const parsed = forms.get(event) ?? { fields: {}, file: undefined };
      if (parsed.file) {
        const { filename, mimetype, content } = parsed.file;
        file = { filename, mimetype, content };
      }
      form = validate('body', spec.form, parsed.fields);
    }
    const body = spec.body ? parseWith('body', spec.body, jsonBodyOf(event, headers)) : undefined;
    const reply = await fn({
      params: params as z.infer<P>,
      query: query as z.infer<Q>,
      form: form as z.infer<F>,
      body: body as z.infer<B>,
      file,
      // Set by the authentication middleware whenever the spec has `auth`.
      caller: caller as CallerOf<A>,
      headers,
      path: event.path,
      baseUrl: baseUrlOf(event, headers, deps.config.PUBLIC_BASE_URL),
      requestId: context.awsRequestId,
      deps,
    });
    if (reply.stream) {
      // middy pipes a Readable body into the Lambda response stream.
      const streamed = json(reply.statusCode, null, reply.headers);
      return { ...streamed, body: reply.stream as unknown as string };
    }
    if (typeof reply.body === 'string' && reply.headers?.['content-type'] !== undefined) {
      return withBodyBytes(
        { statusCode: reply.statusCode, headers: reply.headers, body: reply.body },
        reply.bodyBytes,
      );
    }
    return json(reply.statusCode, reply.body, reply.headers);
  });
}

/**
 * Appends the parse or batch a route works on (its `request_id` or `batch_id` path parameter,
 * before validation: a malformed one is logged as it came) to the invocation's log lines.
 */
function parseKeysLogging(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: (request) => {
      const params = request.event.pathParameters ?? {};
      appendParseKeys({ request_id: params.request_id, batch_id: params.batch_id });
    },
  };
}

/** See {@link HttpRequest.baseUrl}. */
function baseUrlOf(
  event: APIGatewayProxyEvent,
  headers: Readonly<Record<string, string | undefined>>,
  configured: string | undefined,
): string {
  if (configured !== undefined) return configured.replace(/\/+$/, '');
  const { stage, domainName } = event.requestContext;
  const host = headers['x-forwarded-host'] ?? headers.host ?? domainName ?? 'localhost';
  const scheme = headers['x-forwarded-proto'] ?? (stage === 'local' ? 'http' : 'https');
  // On execute-api domain names the stage is the first path segment; custom domains map it away.
  const prefix =
    host.endsWith('.amazonaws.com') && stage && stage !== '$default' ? `/${stage}` : '';
  return `${scheme.split(',')[0]?.trim() ?? 'https'}://${host}${prefix}`;
}

/** The event's JSON body; an empty body reads as `{}`. @throws {BadRequestError} otherwise. */
function jsonBodyOf(
  event: APIGatewayProxyEvent,
  headers: Readonly<Record<string, string | undefined>>,
): unknown {
  const raw =
    event.body === null
      ? ''
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  if (raw.trim() === '') return {};
  const mediaType = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new BadRequestError(
      `malformed request body: send a JSON object with Content-Type: application/json (got ${mediaType || 'no content type'})`,
    );
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw new BadRequestError(
      `malformed request body: invalid JSON (${(error as Error).message}); send a JSON object`,
      { cause: error },
    );
  }
}

function lowerCaseHeaders(
  headers: APIGatewayProxyEvent['headers'] | null,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k.toLowerCase()] = v;
  return out;
}

/** Validates an optional part of the request; without a schema the value passes as it is. */
function validate(
  where: 'path' | 'query' | 'body',
  schema: Schema | undefined,
  value: unknown,
): unknown {
  return schema ? parseWith(where, schema, value) : value;
}

/** A 404-style helper for the local server's unknown routes. */
export const notFound = (detail: string): APIGatewayProxyResult => json(404, { detail });
