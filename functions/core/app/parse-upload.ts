import { createHash } from 'node:crypto';
import {
  AppError,
  BadRequestError,
  ExtractionStrictError,
  InvalidExtractionSchemaError,
  ParseCancelledError,
  PayloadTooLargeError,
  UnsupportedDocumentError,
  type ErrorKind,
} from '../domain/errors.js';
import { compileExtractionSchema } from '../domain/extraction/extraction-schema.js';
import { workKeys } from '../domain/object-keys.js';
import type { ParseOptions, Plan, RequestRecord, RequestWebhook } from '../domain/request.js';
import type { DocumentFormat, ParseResponse } from '../domain/schemas.js';
import type { DocumentFetcher } from '../ports/document-fetcher.js';
import type { JsonSchemaObject } from '../ports/structured-extractor.js';
import type { AppDeps } from './app-deps.js';
import { resolveProviderModel } from './provider-models.js';
import { answerFromCache, cacheKeyOf } from './result-cache.js';
import { readResult, resultView } from './stored-result.js';
import { readUpload } from './uploads.js';

/** A document received by the upload endpoint. */
export interface UploadedDocument {
  tenant: string;
  /**
   * The caller's plan (its API key's), whose daily pages the parse counts against. Absent: the
   * parse is not metered (event-driven ingestion, which no key authorises).
   */
  plan?: Plan;
  bytes: Uint8Array;
  filename: string | null;
  options: ParseOptions;
  /** The `extraction_schema` as received (checked by {@link submitUpload}); null or absent for none. */
  extractionSchema?: unknown;
  /** Providers named by the request (already resolved with {@link resolveProvider}). */
  providers?: ProviderChoice;
  /** Where to announce the end of the parse (`webhook_url`, already checked). */
  webhook?: WebhookTarget;
  /**
   * Parse afresh even when the result cache has the document (`Cache-Control: no-cache`,
   * `invalidate_cache`); the new result replaces the cache entry.
   */
  refreshCache?: boolean;
}

/** A webhook receiver given with a request, and the API base URL the event's `result_url` uses. */
export interface WebhookTarget {
  url: string;
  apiBaseUrl: string;
}

/** Where a document's bytes come from: sent with the request, or an earlier upload slot. */
export type DocumentSource =
  | Pick<UploadedDocument, 'tenant' | 'bytes' | 'filename'>
  | Pick<UploadReference, 'tenant' | 'uploadId'>;

/** A document sent beforehand to an upload slot (POST /v1/uploads), parsed by its upload id. */
export interface UploadReference {
  tenant: string;
  /** As {@link UploadedDocument.plan}. */
  plan?: Plan;
  uploadId: string;
  options: ParseOptions;
  /** As {@link UploadedDocument.extractionSchema}. */
  extractionSchema?: unknown;
  /** As {@link UploadedDocument.providers}. */
  providers?: ProviderChoice;
  /** As {@link UploadedDocument.refreshCache}. */
  refreshCache?: boolean;
}

/** Request ids: `req_` and letters or digits (the ParseResponse `id` rule). */
const REQUEST_ID_PATTERN = /^req_[A-Za-z0-9]+$/;

const CONTENT_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  tiff: 'image/tiff',
  heic: 'image/heic',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xls: 'application/vnd.ms-excel',
  html: 'text/html',
  md: 'text/markdown',
};

/** A pipeline failure carried back to the caller with the kind the failing stage gave it. */
export class ParseFailedError extends AppError {
  override readonly name = 'ParseFailedError';
  override readonly kind: ErrorKind;

  constructor(kind: ErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

/**
 * Parses an uploaded document synchronously:
 * 1. reads the bytes of a referenced upload slot (the tenant's own); checks the size and detects
 *    the format from the bytes (not the file name);
 * 2. answers from the result cache when it has the document with the same options (unless
 *    `refreshCache`; see `answerFromCache`), or stores the bytes and creates the request record
 *    (`queued`);
 * 3. starts the parse state machine and waits for it;
 * 4. returns the stored ParseResponse, or throws the failure the pipeline recorded.
 *
 * `hooks.onSubmitted` is told the request id once the record exists (a caller that already
 * answered names it in a late error).
 *
 * @throws {NotFoundError} when a referenced upload is unknown, was never sent or belongs to
 *   another tenant (404).
 * @throws {PayloadTooLargeError} above the configured maximum upload size (413).
 * @throws {BadRequestError} for an empty file (400).
 * @throws {UnsupportedDocumentError} when the bytes are not a supported format (400).
 * @throws {ParseFailedError} with the kind of the stage failure (400, 402, 422, 503).
 */
export async function parseUpload(
  deps: AppDeps,
  upload: UploadedDocument | UploadReference,
  hooks: { onSubmitted?: (requestId: string) => void } = {},
): Promise<ParseResponse> {
  const record = await submitUpload(deps, upload, { useCache: !upload.refreshCache });
  hooks.onSubmitted?.(record.id);
  if (record.cachedFrom !== undefined && record.resultKey) {
    const cached = await readResult(deps, record.resultKey);
    if (upload.options.extraction_strict && cached.errors.length > 0) {
      throw new ExtractionStrictError(cached.errors);
    }
    return resultView(cached, upload.options.include_warnings);
  }
  const { executionId } = await startParse(deps, record.id);
  const outcome = await deps.workflow.wait(executionId);
  let result: ParseResponse | undefined;
  if (outcome.status === 'SUCCEEDED') {
    // Deliver stores the response under a key derived from the request.
    const key = workKeys.resultJson(record.tenant, record.id);
    result = await readResult(deps, key).catch(() => undefined);
  }
  result ??= await readOutcome(deps, record.id);
  if (upload.options.extraction_strict && result.errors.length > 0) {
    throw new ExtractionStrictError(result.errors);
  }
  return resultView(result, upload.options.include_warnings);
}

/**
 * The `extraction_schema` of a request, checked against its `operation_mode`: required (a JSON
 * Schema object) by `extract` and `hybrid`, refused with `ocr`, and compiled once so that a
 * broken schema is refused before anything is stored or downloaded.
 * @returns the schema, or undefined in `ocr` mode.
 * @throws {InvalidExtractionSchemaError} (422) saying what is wrong.
 */
export function checkedExtractionSchema(
  mode: ParseOptions['operation_mode'],
  schema: unknown,
): JsonSchemaObject | undefined {
  const given = schema !== undefined && schema !== null;
  if (mode === 'ocr') {
    if (!given) return undefined;
    throw new InvalidExtractionSchemaError(
      'extraction_schema is only used by operation_mode extract or hybrid; set operation_mode, or leave the schema out for ocr',
    );
  }
  if (!given) {
    throw new InvalidExtractionSchemaError(
      `operation_mode ${mode} needs an extraction_schema: a JSON Schema object describing the fields to extract`,
    );
  }
  return compileExtractionSchema(schema).schema;
}

/** A ParseURLRequest as the core takes it. */
export interface UrlParseRequest {
  tenant: string;
  /** As {@link UploadedDocument.plan}. */
  plan?: Plan;
  fileUrl: string;
  options: ParseOptions;
  /** As {@link UploadedDocument.extractionSchema}. */
  extractionSchema?: unknown;
  /** As {@link UploadedDocument.providers}. */
  providers?: ProviderChoice;
  /** As {@link UploadedDocument.refreshCache}. */
  refreshCache?: boolean;
  /** As {@link UploadedDocument.webhook} (`webhook_url`). */
  webhook?: WebhookTarget;
}

/** Providers a request names (`preferred_model`, `compare_provider`), as configured ids. */
export interface ProviderChoice {
  preferred?: string;
  compare?: string;
}

/**
 * The configured provider a ParseURLRequest field names: a provider id, or a model id as pages
 * report it (see {@link resolveProviderModel}).
 * @throws {ValidationError} (422) at `body.<field>`, listing the valid provider and model pairs.
 */
export function resolveProvider(
  providers: AppDeps['providers'],
  field: 'preferred_model' | 'compare_provider',
  value: string,
): string {
  return resolveProviderModel(providers, value, ['body', field]).id;
}

/**
 * POST /v1/parse: downloads `fileUrl` with `fetcher` (its rules: https, public addresses, a byte
 * cap of the upload limit, at most 3 redirects) and parses it like an upload. With a `webhook`,
 * the end of the parse is also announced to it, signed with the tenant's secret (created by the
 * deliverer on the tenant's first delivery, or by GET /v1/webhooks/secret).
 * @throws {UrlRefusedError} when the URL is refused or the download fails (400).
 * @throws {PayloadTooLargeError} when the document is above the upload limit (413).
 * @throws the errors of {@link parseUpload} for the document itself.
 */
export async function parseUrl(
  deps: AppDeps,
  fetcher: DocumentFetcher,
  request: UrlParseRequest,
): Promise<ParseResponse> {
  return parseUpload(deps, await downloadedUpload(deps, fetcher, request));
}

/**
 * POST /v1/parse answered asynchronously (`Prefer: respond-async`): downloads the document like
 * {@link parseUrl}, submits it (with its webhook, if any) and starts the parse without waiting;
 * `GET /v1/parse/{id}` follows it, and the webhook gets its end as with {@link parseUrl}.
 * @returns the request's status view (`queued`), for a 202 answer.
 * @throws the errors of {@link parseUrl} that come before the parse starts.
 */
export async function submitUrlParse(
  deps: AppDeps,
  fetcher: DocumentFetcher,
  request: UrlParseRequest,
): Promise<Record<string, unknown>> {
  const upload = await downloadedUpload(deps, fetcher, request);
  const record = await submitUpload(deps, upload, { useCache: !upload.refreshCache });
  // A cache hit is completed already (and announced to the webhook).
  if (record.cachedFrom === undefined) await startParse(deps, record.id);
  return statusView(record);
}

/**
 * The document of a ParseURLRequest, downloaded with `fetcher` (within the upload limit) once
 * its `extraction_schema` has passed {@link checkedExtractionSchema}: nothing is downloaded for a
 * request that would be refused anyway.
 */
async function downloadedUpload(
  deps: AppDeps,
  fetcher: DocumentFetcher,
  request: UrlParseRequest,
): Promise<UploadedDocument> {
  checkedExtractionSchema(request.options.operation_mode, request.extractionSchema);
  const document = await fetcher.fetch(request.fileUrl, { maxBytes: deps.limits.maxUploadBytes });
  return {
    tenant: request.tenant,
    ...(request.plan === undefined ? {} : { plan: request.plan }),
    bytes: document.bytes,
    filename: document.filename,
    options: request.options,
    extractionSchema: request.extractionSchema,
    ...(request.providers ? { providers: request.providers } : {}),
    ...(request.refreshCache ? { refreshCache: true } : {}),
    ...(request.webhook ? { webhook: request.webhook } : {}),
  };
}

/**
 * The bytes of an upload (sent, or read from the tenant's upload slot) once they pass the checks:
 * size, not empty, a supported format detected from the bytes (not the name).
 * @throws {NotFoundError} for an unknown or foreign upload slot (404).
 * @throws {PayloadTooLargeError} above the configured maximum upload size (413).
 * @throws {BadRequestError} for an empty file (400).
 * @throws {UnsupportedDocumentError} when the bytes are not a supported format (400).
 */
export async function checkedUpload(
  deps: Pick<AppDeps, 'objects' | 'limits' | 'detectFormat'>,
  upload: DocumentSource,
): Promise<{ bytes: Uint8Array; filename: string | null; format: DocumentFormat; hash: string }> {
  const { bytes, filename } =
    'uploadId' in upload ? await readUpload(deps, upload.tenant, upload.uploadId) : upload;
  const size = bytes.byteLength;
  if (size > deps.limits.maxUploadBytes) {
    throw new PayloadTooLargeError(
      `the file is ${size} bytes; the maximum upload size is ${deps.limits.maxUploadBytes} bytes`,
    );
  }
  if (size === 0) throw new BadRequestError('the uploaded file is empty (0 bytes)');
  const detection = deps.detectFormat(bytes, filename);
  if (detection.format === null) {
    throw new UnsupportedDocumentError(
      `unsupported file type: the content is ${detection.detected}; supported formats are pdf, png, jpeg, webp, tiff, heic, docx, pptx, xlsx, xls, html and md (Markdown: a .md name or Markdown syntax)`,
    );
  }
  return {
    bytes,
    filename,
    format: detection.format,
    hash: createHash('sha256').update(bytes).digest('hex'),
  };
}

/** Options of {@link submitUpload}. */
export interface SubmitOptions {
  /**
   * The request's id (`req_` and letters or digits), for callers that must find the same request
   * again on a retry (see `ingestObjects`).
   * @default - `req_` and a new random id (`deps.newId()`)
   */
  requestId?: string;
  /**
   * Answer from the result cache when it has the document with the same options: the returned
   * record is then `completed` already, with `cachedFrom` set (see `answerFromCache`), and must
   * not be started. Otherwise the record is created `queued`; either way it carries the
   * `cacheKey` its result is filed under when it completes.
   * @default false
   */
  useCache?: boolean;
}

/**
 * Steps 1 and 2 of {@link parseUpload}: validates and stores the upload, returns the new record.
 * A referenced upload is copied to the request's own key, so sending another file to the slot
 * later cannot change the document under a running parse.
 *
 * With an explicit `options.requestId` that exists already, the bytes are stored again under the
 * same key and the create fails: the caller decides what a second submission means.
 * @throws {ConflictError} when a request with `options.requestId` exists already.
 * @throws {Error} when `options.requestId` is not `req_` and letters or digits.
 */
export async function submitUpload(
  deps: AppDeps,
  upload: UploadedDocument | UploadReference,
  options: SubmitOptions = {},
): Promise<RequestRecord> {
  if (options.requestId !== undefined && !REQUEST_ID_PATTERN.test(options.requestId)) {
    throw new Error(`not a request id: ${options.requestId}`);
  }
  const receivedAt = deps.clock.now();
  const extractionSchema = checkedExtractionSchema(
    upload.options.operation_mode,
    upload.extractionSchema,
  );
  const { bytes, filename, format, hash } = await checkedUpload(deps, upload);
  const id = options.requestId ?? `req_${deps.newId()}`;
  const key = workKeys.upload(id);
  const providers = 'providers' in upload ? upload.providers : undefined;
  const cacheKey = cacheKeyOf(deps, {
    tenant: upload.tenant,
    documentHash: hash,
    options: upload.options,
    extractionSchema,
    ...(providers?.preferred ? { preferredProvider: providers.preferred } : {}),
    ...(providers?.compare ? { compareProvider: providers.compare } : {}),
  });
  const now = receivedAt.toISOString();
  const record: RequestRecord = {
    id,
    tenant: upload.tenant,
    ...(upload.plan === undefined ? {} : { plan: upload.plan }),
    status: 'queued',
    createdAt: now,
    updatedAt: now,
    options: upload.options,
    executionId: deps.workflow.executionIdFor(id),
    ...(extractionSchema ? { extractionSchema } : {}),
    ...('providers' in upload && upload.providers?.preferred
      ? { preferredProvider: upload.providers.preferred }
      : {}),
    ...('providers' in upload && upload.providers?.compare
      ? { compareProvider: upload.providers.compare }
      : {}),
    ...('webhook' in upload && upload.webhook
      ? { webhook: { ...upload.webhook, status: 'pending', attempts: [] } }
      : {}),
    document: {
      key,
      format,
      hash,
      filename,
      sizeBytes: bytes.byteLength,
    },
    ...(cacheKey ? { cacheKey } : {}),
  };
  if (options.useCache) {
    const answered = await answerFromCache(deps, record, receivedAt);
    if (answered) return answered;
  }
  await deps.objects.put(key, bytes, CONTENT_TYPES[format] ?? 'application/octet-stream');
  await deps.requests.create(record);
  deps.events.opened(id);
  return record;
}

/**
 * Starts the parse state machine for a submitted request, without waiting for it. Starting the
 * same request again is the same execution (see `Workflow.start`).
 */
export function startParse(
  deps: Pick<AppDeps, 'workflow' | 'limits'>,
  requestId: string,
): Promise<{ executionId: string }> {
  return deps.workflow.start(requestId, {
    requestId,
    settings: { pageConcurrency: deps.limits.pageConcurrency },
  });
}

/** The outcome of a finished parse: the ParseResponse, or the recorded failure thrown. */
async function readOutcome(deps: AppDeps, requestId: string): Promise<ParseResponse> {
  const record = await deps.requests.get(requestId);
  if (record?.status === 'completed' && record.resultKey) {
    return readResult(deps, record.resultKey);
  }
  if (record?.status === 'failed' && record.error) throw failureOf(record.error);
  if (record?.status === 'cancelled') throw new ParseCancelledError(requestId);
  throw new Error(`parse ${requestId} ended in status ${record?.status ?? 'unknown'}`);
}

const API_KINDS = new Set<ErrorKind>([
  'invalid',
  'plan_limit',
  'unprocessable',
  'too_large',
  'unavailable',
]);

/** Maps a recorded stage failure to the error the API answers with; unknown failures are 500s. */
export function failureOf(error: NonNullable<RequestRecord['error']>): Error {
  const kind = error.kind as ErrorKind;
  if (API_KINDS.has(kind)) return new ParseFailedError(kind, error.message);
  return new Error(`${error.name}: ${error.message}`);
}

/**
 * A request that has no stored result (yet): the ParseResponse shape with its status, no pages,
 * and the failure's `detail` when it failed.
 */
export function statusView(record: RequestRecord): Record<string, unknown> {
  return {
    id: record.id,
    status: record.status,
    document: {
      hash: record.document.hash,
      pages: record.document.pageCount ?? 0,
      format: record.document.format,
      cached: record.cachedFrom !== undefined,
      filename: record.document.filename,
      size_bytes: record.document.sizeBytes,
    },
    pages: [],
    extracted: null,
    document_type: null,
    created_at: record.createdAt,
    errors: [],
    ...(record.error ? { detail: record.error.message } : {}),
  };
}

/** A request's webhook as GET /v1/parse/{id} shows it (an extension): where, status, attempts. */
export function webhookView(webhook: RequestWebhook): Record<string, unknown> {
  return { url: webhook.url, status: webhook.status, attempts: webhook.attempts };
}
