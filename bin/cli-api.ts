import { openAsBlob } from 'node:fs';
import { basename, extname } from 'node:path';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { components, operations } from './api-types.js';

/**
 * The HTTP client of the `docparse` command line: one typed method per endpoint it uses, and the
 * errors a shell user needs to tell apart (the API said no, the API cannot be reached, a parse
 * failed on the server). Request and response types are those of `api-types.ts`, generated from
 * the API's OpenAPI document (`npm run generate:api-types`). Responses are checked at run time for
 * the fields the command line reads; everything else is passed through as received.
 */

type Schemas = components['schemas'];
type JsonBody<K extends 'parseUrl' | 'submitBatch' | 'createUpload'> =
  operations[K]['requestBody']['content']['application/json'];

/** The JSON body of POST /v1/parse. */
export type ParseUrlRequest = JsonBody<'parseUrl'>;
/** The JSON body of POST /v1/parse/batch. */
export type BatchRequest = JsonBody<'submitBatch'>;
/** The JSON body of POST /v1/uploads. */
export type CreateUploadRequest = JsonBody<'createUpload'>;

/** Operation modes of a parse (spec §1). */
export type OperationMode = NonNullable<ParseUrlRequest['operation_mode']>;
export const OPERATION_MODES = everyMember<OperationMode>({
  ocr: true,
  extract: true,
  hybrid: true,
});

/** Batch priorities (`low` waits, `high` releases every document at once). */
export type Priority = NonNullable<BatchRequest['priority']>;
export const PRIORITIES = everyMember<Priority>({ low: true, normal: true, high: true });

/** A ParseResponse (spec §2); the `.json` output is the whole object as received. */
export type ParseResponse = Schemas['ParseResponse'];
/** One page of a {@link ParseResponse}. */
export type ParsedPage = ParseResponse['pages'][number];
/** GET /v1/parse/{id}: the ParseResponse of a completed parse, else its status view. */
export type ParseResultOrStatus = Schemas['ParseResultOrStatus'];

/** Tiers in price order. */
export type Tier = ParsedPage['tier_used'];
export const TIERS = everyMember<Tier>({ fast: true, pro: true, premium: true });

/** The answer of POST /v1/parse/estimate (spec §2 "Estimate result"). */
export type EstimateResult = Schemas['EstimateResult'];

/** The answer of POST /v1/uploads: where and how to send one file. */
export type UploadSlot = Schemas['UploadSlot'];

/** The answer of POST /v1/parse/batch. */
export type BatchAccepted = Schemas['BatchSubmitResponse'];

/** The answer of GET /v1/batch/{id}. */
export type BatchState = Schemas['BatchStatus'];
/** One document of a {@link BatchState}, in the order the documents were submitted. */
export type BatchItem = BatchState['items'][number];
/** `completed` and `failed` are final. */
export type BatchItemStatus = BatchItem['status'];

/** Options shared by every kind of parse; unset fields take the server's defaults. */
export interface ParseOptions {
  operationMode?: OperationMode;
  /** Parse at most this many pages (from the first). */
  maxPages?: number;
  /** Rasterisation resolution in dots per inch (the server accepts 36 to 600). */
  dpi?: number;
  /** A JSON Schema whose root is an object (modes `extract` and `hybrid`). */
  extractionSchema?: Record<string, unknown>;
}

/** One document of POST /v1/parse/batch, referring to a file sent to an upload slot. */
export interface BatchDocument extends ParseOptions {
  uploadId: string;
}

/** One Server-Sent Event of a streaming parse: `event` is its name, the rest its fields. */
export interface ProgressEvent {
  event: string;
  [field: string]: unknown;
}

/** A file on disk to send. */
export interface LocalFile {
  /** Path as given. */
  path: string;
  /** File name sent to the server (`document.filename`). */
  name: string;
  /** Media type guessed from the extension (the server detects the format from the bytes). */
  contentType: string;
}

/** The API answered with an error status (or a 200 whose body is an error). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** HTTP status. */
  readonly status: number;
  /** The server's reason, formatted for a terminal (see {@link formatDetail}). */
  readonly detail: string;
  /** The `Retry-After` of a 429 or 503, in seconds. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, detail: string, retryAfterSeconds?: number) {
    super(`HTTP ${status}: ${detail}`);
    this.status = status;
    this.detail = detail;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The API could not be reached at all (connection refused, unknown host, TLS failure). */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
  /** The base URL that was tried. */
  readonly apiUrl: string;
  /** Why: a system error code (`ECONNREFUSED`, `ENOTFOUND`, …) or a short description. */
  readonly reason: string | undefined;

  constructor(apiUrl: string, reason: string | undefined, options?: ErrorOptions) {
    super(`cannot reach the API at ${apiUrl}${reason ? ` (${reason})` : ''}`, options);
    this.apiUrl = apiUrl;
    this.reason = reason;
  }
}

/** A parse that the server accepted but reported as failed (its `error` event or failed status). */
export class ServerParseError extends Error {
  override readonly name = 'ServerParseError';
  /** The server's reason. */
  readonly detail: string;
  /** The parse request, when known. */
  readonly requestId: string | undefined;

  constructor(detail: string, requestId: string | undefined) {
    super(detail);
    this.detail = detail;
    this.requestId = requestId;
  }
}

/** Options of {@link ApiClient}. */
export interface ApiClientOptions {
  /** Base URL of the API, e.g. `http://127.0.0.1:8080` or a deployment's `https://…/prod/`. */
  baseUrl: string;
  /** Sent as `X-API-Key`; requests go without a key when undefined (and get 401). */
  apiKey: string | undefined;
  /** Sent as `User-Agent`. */
  userAgent?: string;
  /** The fetch implementation. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
  /**
   * On 429, wait the `Retry-After` (at most 60 s) and try again, up to this many times.
   * Safe on every endpoint: a 429 means the request did nothing. @default 0
   */
  retryRateLimited?: number;
  /** Told about each wait for a 429 (seconds). */
  onRateLimited?: (seconds: number) => void;
}

/** Media types by file extension (lower case, without the dot). */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xls: 'application/vnd.ms-excel',
  html: 'text/html',
  htm: 'text/html',
  md: 'text/markdown',
  markdown: 'text/markdown',
};

/** File extensions of the formats the service parses (it detects the format from the bytes). */
export const SUPPORTED_EXTENSIONS: ReadonlySet<string> = new Set(Object.keys(CONTENT_TYPES));

/** The {@link LocalFile} for `path`: its name and a media type from its extension. */
export function localFile(path: string): LocalFile {
  const ext = extname(path).slice(1).toLowerCase();
  return {
    path,
    name: basename(path),
    contentType: CONTENT_TYPES[ext] ?? 'application/octet-stream',
  };
}

/** How long the client waits at most for one 429's `Retry-After`, in seconds. */
const MAX_RETRY_WAIT_S = 60;

/**
 * Typed calls to the docparse API. Every method throws {@link ApiError} for an error answer,
 * {@link ConnectionError} when the API cannot be reached, and the signal's `AbortError` when
 * aborted.
 */
export class ApiClient {
  readonly baseUrl: string;
  readonly #apiKey: string | undefined;
  readonly #userAgent: string;
  readonly #fetch: typeof fetch;

  constructor(options: ApiClientOptions) {
    this.baseUrl = options.baseUrl;
    this.#apiKey = options.apiKey;
    this.#userAgent = options.userAgent ?? 'docparse-cli';
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /** `path` (e.g. `v1/parse`) resolved against the base URL, whatever its trailing slash. */
  url(path: string): string {
    const base = this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`;
    return new URL(path.replace(/^\/+/, ''), base).toString();
  }

  /**
   * POST /v1/parse/stream: uploads `file` and follows the parse's Server-Sent Events, calling
   * `onEvent` for each (`ingest.start` with `page_count`, `classify.page`, `route.page`,
   * `vlm.page.done` with `page`, `node.*`). `onRequestId` gets the request id as soon as the
   * response starts.
   * @returns the ParseResponse of `result.final`.
   * @throws {ServerParseError} when the stream reports an `error` event, ends without
   *   `result.final`, or its result is not `completed`.
   * @throws {ConnectionError} when the connection drops mid-stream (the parse goes on).
   */
  async parseStream(
    file: LocalFile,
    options: ParseOptions,
    handlers: { onEvent?: (event: ProgressEvent) => void; onRequestId?: (id: string) => void },
    call: CallOptions = {},
  ): Promise<ParseResponse> {
    const form = await this.#form(file, formFields(options));
    const res = await this.#send(
      'v1/parse/stream',
      { method: 'POST', body: form, headers: { accept: 'text/event-stream' } },
      call,
    );
    const requestId = res.headers.get('x-request-id') ?? undefined;
    if (requestId) handlers.onRequestId?.(requestId);
    if (!res.body) throw new ServerParseError('the stream had no body', requestId);

    let final: unknown;
    let failure: string | undefined;
    const parser = createParser({
      onEvent: (message: EventSourceMessage) => {
        let event: unknown;
        try {
          event = JSON.parse(message.data);
        } catch {
          return; // not one of the service's events
        }
        if (!isRecord(event) || typeof event.event !== 'string') return;
        const progress = event as ProgressEvent;
        if (progress.event === 'result.final') final = progress.payload;
        else if (progress.event === 'error') {
          failure = typeof progress.detail === 'string' ? progress.detail : 'the parse failed';
        }
        handlers.onEvent?.(progress);
      },
    });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (call.signal?.aborted) throw error;
        throw new ConnectionError(this.baseUrl, 'connection lost during the stream', {
          cause: error,
        });
      }
      const { done, value } = chunk;
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      if (final !== undefined) {
        await reader.cancel().catch(() => undefined);
        break;
      }
    }
    parser.feed(decoder.decode());
    if (final === undefined) {
      throw new ServerParseError(
        failure ?? 'the event stream ended before the result (result.final)',
        requestId,
      );
    }
    return completedParse(final, requestId, failure);
  }

  /**
   * POST /v1/parse: the service downloads `fileUrl` (https, public addresses) and parses it.
   * Synchronous: answers when the parse ends (long parses are kept alive with leading spaces).
   * @throws {ServerParseError} when the answer is not a completed parse.
   */
  async parseUrl(
    fileUrl: string,
    options: ParseOptions,
    call: CallOptions = {},
  ): Promise<ParseResponse> {
    const request: ParseUrlRequest = { file_url: fileUrl, ...jsonFields(options) };
    const res = await this.#send('v1/parse', { method: 'POST', ...jsonBody(request) }, call);
    return completedParse(await readJson(res), res.headers.get('x-request-id') ?? undefined);
  }

  /**
   * POST /v1/parse/estimate: page count, tier mix, estimated cost (USD) and document type, from
   * ingestion and classification only (no provider is called).
   */
  async estimate(
    file: LocalFile,
    maxPages: number | undefined,
    call: CallOptions = {},
  ): Promise<EstimateResult> {
    const fields: [string, string][] = maxPages === undefined ? [] : [['max_pages', `${maxPages}`]];
    const form = await this.#form(file, fields);
    const res = await this.#send('v1/parse/estimate', { method: 'POST', body: form }, call);
    const body = await readJson(res);
    if (!isRecord(body) || typeof body.page_count !== 'number' || !isRecord(body.tier_mix)) {
      throw new ApiError(res.status, 'the estimate answer is not an estimate');
    }
    return body as unknown as EstimateResult;
  }

  /** POST /v1/uploads: a slot to send one file to (valid 15 minutes). */
  async createUpload(file: LocalFile, call: CallOptions = {}): Promise<UploadSlot> {
    const request: CreateUploadRequest = { filename: file.name, content_type: file.contentType };
    const res = await this.#send('v1/uploads', { method: 'POST', ...jsonBody(request) }, call);
    const body = await readJson(res);
    if (
      !isRecord(body) ||
      typeof body.upload_id !== 'string' ||
      typeof body.url !== 'string' ||
      !isRecord(body.fields)
    ) {
      throw new ApiError(res.status, 'the upload slot answer has no upload_id, url and fields');
    }
    return body as unknown as UploadSlot;
  }

  /**
   * Sends `file` to `slot`: a multipart POST to `slot.url` with every field of `slot.fields`
   * and then the part `file` (an S3 presigned POST, or the local server's stand-in). The API key
   * is not sent there.
   * @throws {ApiError} for a refused form (403 expired or bad signature, 413 / S3 400
   *   `EntityTooLarge` above `max_bytes`).
   */
  async upload(slot: UploadSlot, file: LocalFile, call: CallOptions = {}): Promise<void> {
    const form = await this.#form(file, Object.entries(slot.fields));
    const target = new URL(slot.url, this.url('')).toString();
    await this.#send(target, { method: 'POST', body: form }, call, false);
  }

  /** POST /v1/parse/batch: 1 to 100 documents sent to upload slots; answers at once. */
  async submitBatch(
    documents: readonly BatchDocument[],
    priority: Priority | undefined,
    call: CallOptions = {},
  ): Promise<BatchAccepted> {
    const body: BatchRequest = {
      documents: documents.map(({ uploadId, ...options }) => ({
        upload_id: uploadId,
        ...jsonFields(options),
      })),
      ...(priority ? { priority } : {}),
    };
    const res = await this.#send('v1/parse/batch', { method: 'POST', ...jsonBody(body) }, call);
    const answer = await readJson(res);
    if (!isRecord(answer) || typeof answer.batch_id !== 'string') {
      throw new ApiError(res.status, 'the batch answer has no batch_id');
    }
    return answer as unknown as BatchAccepted;
  }

  /** GET /v1/batch/{batchId}: the batch's status, totals and items (in submission order). */
  async getBatch(batchId: string, call: CallOptions = {}): Promise<BatchState> {
    const res = await this.#send(`v1/batch/${encodeURIComponent(batchId)}`, {}, call);
    const body = await readJson(res);
    if (!isRecord(body) || typeof body.status !== 'string' || !Array.isArray(body.items)) {
      throw new ApiError(res.status, 'the batch status has no status and items');
    }
    return body as unknown as BatchState;
  }

  /**
   * GET /v1/parse/{requestId}: the stored ParseResponse, or the status view of a parse that has
   * not completed (`status` and, when it failed, `detail`); {@link isCompleted} tells them apart.
   */
  async getParse(requestId: string, call: CallOptions = {}): Promise<ParseResultOrStatus> {
    const res = await this.#send(`v1/parse/${encodeURIComponent(requestId)}`, {}, call);
    const body = await readJson(res);
    if (!isParseResponse(body)) throw new ApiError(res.status, 'the answer is not a parse result');
    return body;
  }

  /** A multipart form: `fields` then the part `file`. */
  async #form(file: LocalFile, fields: readonly [string, string][]): Promise<FormData> {
    const form = new FormData();
    for (const [name, value] of fields) form.append(name, value);
    form.append('file', await openAsBlob(file.path, { type: file.contentType }), file.name);
    return form;
  }

  /**
   * Sends a request (`path` relative to the base URL, or an absolute URL) and returns the
   * response when its status is 2xx; otherwise throws the {@link ApiError} of its body.
   */
  async #send(
    path: string,
    init: RequestInit,
    call: CallOptions,
    withKey = true,
  ): Promise<Response> {
    const target = /^https?:\/\//i.test(path) ? path : this.url(path);
    const headers = new Headers(init.headers);
    headers.set('user-agent', this.#userAgent);
    if (withKey && this.#apiKey !== undefined) headers.set('x-api-key', this.#apiKey);
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.#fetch(target, {
          ...init,
          headers,
          ...(call.signal ? { signal: call.signal } : {}),
        });
      } catch (error) {
        if (call.signal?.aborted) throw error;
        throw new ConnectionError(this.baseUrl, failureReason(error), { cause: error });
      }
      if (res.ok) return res;
      const error = await errorOf(res);
      const retries = call.retryRateLimited ?? 0;
      if (res.status === 429 && attempt < retries) {
        const seconds = Math.min(error.retryAfterSeconds ?? 1, MAX_RETRY_WAIT_S);
        call.onRateLimited?.(seconds);
        await sleep(seconds * 1000, call.signal);
        continue;
      }
      throw error;
    }
  }
}

/** Form fields of the upload and stream forms for `options` (unset ones left out). */
export function formFields(options: ParseOptions): [string, string][] {
  const fields: [string, string][] = [];
  if (options.operationMode) fields.push(['operation_mode', options.operationMode]);
  if (options.maxPages !== undefined) fields.push(['max_pages', `${options.maxPages}`]);
  if (options.dpi !== undefined) fields.push(['dpi', `${options.dpi}`]);
  if (options.extractionSchema) {
    fields.push(['extraction_schema', JSON.stringify(options.extractionSchema)]);
  }
  return fields;
}

/** JSON fields of POST /v1/parse and of batch documents for `options` (unset ones left out). */
export function jsonFields(
  options: ParseOptions,
): Pick<ParseUrlRequest, 'operation_mode' | 'max_pages' | 'dpi' | 'extraction_schema'> {
  return {
    ...(options.operationMode ? { operation_mode: options.operationMode } : {}),
    ...(options.maxPages === undefined ? {} : { max_pages: options.maxPages }),
    ...(options.dpi === undefined ? {} : { dpi: options.dpi }),
    ...(options.extractionSchema ? { extraction_schema: options.extractionSchema } : {}),
  };
}

/**
 * The server's reason in an error body, for a terminal:
 * - `{"detail": "text"}` → the text;
 * - `{"detail": [{loc, msg}, …]}` (422 validation errors) → `body.field: msg` per issue, joined
 *   with `; `;
 * - a list of `{extraction_validation: {pointer, message}}` (strict extraction) → `pointer: message`;
 * - an S3 XML error → its `Code: Message`;
 * - anything else → the text itself, cut at 300 characters, or `undefined` when empty.
 */
export function formatDetail(body: unknown): string | undefined {
  if (typeof body === 'string') {
    const code = /<Code>([^<]*)<\/Code>/.exec(body)?.[1];
    const message = /<Message>([^<]*)<\/Message>/.exec(body)?.[1];
    if (code ?? message) return [code, message].filter(Boolean).join(': ');
    const text = body.trim();
    if (text === '') return undefined;
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  }
  if (Array.isArray(body)) {
    const lines = body.map(formatIssue).filter((line): line is string => line !== undefined);
    return lines.length > 0 ? lines.join('; ') : undefined;
  }
  if (!isRecord(body)) return undefined;
  const { detail } = body;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return formatDetail(detail);
  return undefined;
}

/** One validation issue as `loc.joined: msg`, or an extraction failure as `pointer: message`. */
function formatIssue(issue: unknown): string | undefined {
  if (!isRecord(issue)) return typeof issue === 'string' ? issue : undefined;
  if (isRecord(issue.extraction_validation)) {
    const { pointer, message } = issue.extraction_validation;
    const where = typeof pointer === 'string' && pointer !== '' ? pointer : '/';
    return `${where}: ${typeof message === 'string' ? message : 'invalid'}`;
  }
  const msg = typeof issue.msg === 'string' ? issue.msg : 'invalid';
  if (!Array.isArray(issue.loc) || issue.loc.length === 0) return msg;
  const loc = issue.loc.map((part) => (typeof part === 'number' ? `${part}` : String(part)));
  return `${loc.join('.')}: ${msg}`;
}

/** The {@link ApiError} of an error response. */
async function errorOf(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let body: unknown = text;
  try {
    body = JSON.parse(text.trim());
  } catch {
    // not JSON: S3 XML, a proxy's HTML page, …
  }
  const detail =
    formatDetail(body) ?? `${res.status} ${res.statusText || 'error'} with no explanation`;
  return new ApiError(res.status, detail, retryAfter(res.headers.get('retry-after')));
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date), or undefined. */
export function retryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The JSON body of a 2xx response; leading keepalive whitespace is allowed. */
async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text.trim());
  } catch {
    throw new ApiError(res.status, `the answer is not JSON: ${formatDetail(text) ?? '(empty)'}`);
  }
}

/**
 * `body` as a completed ParseResponse.
 * @throws {ApiError} for an error body under a 200 (a long parse that failed after the answer
 *   had started).
 * @throws {ServerParseError} for the status view of a parse that did not complete.
 */
function completedParse(
  body: unknown,
  requestId: string | undefined,
  streamError?: string,
): ParseResponse {
  if (!isParseResponse(body)) {
    const detail = formatDetail(body);
    if (detail !== undefined) throw new ServerParseError(detail, requestId);
    throw new ServerParseError('the answer is not a parse result', requestId);
  }
  if (!isCompleted(body)) {
    throw new ServerParseError(
      body.detail ?? streamError ?? `the parse ended ${body.status}`,
      body.id,
    );
  }
  return body;
}

/**
 * True for the ParseResponse of a completed parse; false for the status view of a parse that is
 * queued, processing, failed or cancelled (the service answers a completed parse with its result).
 */
export function isCompleted(body: ParseResultOrStatus): body is ParseResponse {
  return body.status === 'completed';
}

/**
 * True when `value` has the fields of a ParseResponse or status view that the command line reads
 * (`id`, `status`, `pages`).
 */
export function isParseResponse(value: unknown): value is ParseResultOrStatus {
  return (
    isRecord(value) &&
    typeof value.id === 'string' &&
    typeof value.status === 'string' &&
    Array.isArray(value.pages)
  );
}

/** A JSON request body with its content type. */
function jsonBody(value: unknown): { body: string; headers: Record<string, string> } {
  return { body: JSON.stringify(value), headers: { 'content-type': 'application/json' } };
}

/**
 * Why a fetch failed: the system error code (`ECONNREFUSED`, `ENOTFOUND`, …) when there is one,
 * else the innermost cause's message (`bad port`, a TLS error).
 */
function failureReason(error: unknown): string | undefined {
  let message: string | undefined;
  for (let e: unknown = error, depth = 0; isRecord(e) && depth < 5; depth++) {
    if (typeof e.code === 'string' && /^E[A-Z_]+$/.test(e.code)) return e.code;
    if (Array.isArray(e.errors)) {
      const inner: unknown = e.errors[0];
      if (isRecord(inner) && typeof inner.code === 'string') return inner.code;
    }
    if (depth > 0 && typeof e.message === 'string' && e.message !== '') message = e.message;
    e = e.cause;
  }
  return message;
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The members of the string union `T` as a list, in the order given: `members` must name each
 * of them once (a member the API adds, or drops, fails the type check here).
 */
function everyMember<T extends string>(members: Record<T, true>): readonly T[] {
  return Object.keys(members) as T[];
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
