import { createHash } from 'node:crypto';
import {
  AppError,
  BadRequestError,
  NotFoundError,
  PayloadTooLargeError,
  UnsupportedDocumentError,
  type ErrorKind,
} from '../domain/errors.js';
import { workKeys } from '../domain/pipeline/pipeline-ports.js';
import type { ParseOptions, RequestRecord } from '../domain/request.js';
import type { Page, ParseResponse } from '../domain/schemas.js';
import type { AppDeps } from './app-deps.js';

/** A document received by the upload endpoint. */
export interface UploadedDocument {
  tenant: string;
  bytes: Uint8Array;
  filename: string | null;
  options: ParseOptions;
}

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
 * 1. checks the size and detects the format from the bytes (not the file name);
 * 2. stores the bytes and creates the request record (`queued`);
 * 3. starts the parse state machine and waits for it;
 * 4. returns the stored ParseResponse, or throws the failure the pipeline recorded.
 *
 * @throws {PayloadTooLargeError} above the configured maximum upload size (413).
 * @throws {BadRequestError} for an empty file (400).
 * @throws {UnsupportedDocumentError} when the bytes are not a supported format (400).
 * @throws {ParseFailedError} with the kind of the stage failure (400, 422, 503).
 */
export async function parseUpload(deps: AppDeps, upload: UploadedDocument): Promise<ParseResponse> {
  const record = await submitUpload(deps, upload);
  const { executionId } = await deps.workflow.start(record.id, {
    requestId: record.id,
    settings: { pageConcurrency: deps.limits.pageConcurrency },
  });
  const outcome = await deps.workflow.wait(executionId);
  if (outcome.status === 'SUCCEEDED') {
    // Deliver stores the response under a key derived from the request.
    const key = workKeys.resultJson(record.tenant, record.id);
    const result = await readResult(deps, key).catch(() => undefined);
    if (result) return resultView(result, upload.options.include_warnings);
  }
  return readOutcome(deps, record.id, upload.options.include_warnings);
}

/** Steps 1 and 2 of {@link parseUpload}: validates and stores the upload, returns the new record. */
export async function submitUpload(
  deps: AppDeps,
  upload: UploadedDocument,
): Promise<RequestRecord> {
  const size = upload.bytes.byteLength;
  if (size > deps.limits.maxUploadBytes) {
    throw new PayloadTooLargeError(
      `the file is ${size} bytes; the maximum upload size is ${deps.limits.maxUploadBytes} bytes`,
    );
  }
  if (size === 0) throw new BadRequestError('the uploaded file is empty (0 bytes)');
  const detection = deps.detectFormat(upload.bytes);
  if (detection.format === null) {
    throw new UnsupportedDocumentError(
      `unsupported file type: the content is ${detection.detected}; supported formats are pdf, png, jpeg, webp, tiff, heic, docx, pptx, xlsx and xls`,
    );
  }
  const id = `req_${deps.newId()}`;
  const key = workKeys.upload(id);
  await deps.objects.put(
    key,
    upload.bytes,
    CONTENT_TYPES[detection.format] ?? 'application/octet-stream',
  );
  const now = deps.clock.now().toISOString();
  const record: RequestRecord = {
    id,
    tenant: upload.tenant,
    status: 'queued',
    createdAt: now,
    updatedAt: now,
    options: upload.options,
    executionId: deps.workflow.executionIdFor(id),
    document: {
      key,
      format: detection.format,
      hash: createHash('sha256').update(upload.bytes).digest('hex'),
      filename: upload.filename,
      sizeBytes: size,
    },
  };
  await deps.requests.create(record);
  deps.events.opened(id);
  return record;
}

/** The outcome of a finished parse: the ParseResponse, or the recorded failure thrown. */
async function readOutcome(
  deps: AppDeps,
  requestId: string,
  includeWarnings: boolean,
): Promise<ParseResponse> {
  const record = await deps.requests.get(requestId);
  if (record?.status === 'completed' && record.resultKey) {
    return resultView(await readResult(deps, record.resultKey), includeWarnings);
  }
  if (record?.status === 'failed' && record.error) throw failureOf(record.error);
  throw new Error(`parse ${requestId} ended in status ${record?.status ?? 'unknown'}`);
}

/** Reads a stored ParseResponse. */
export async function readResult(
  deps: Pick<AppDeps, 'objects'>,
  key: string,
): Promise<ParseResponse> {
  return JSON.parse(new TextDecoder().decode(await deps.objects.get(key))) as ParseResponse;
}

const API_KINDS = new Set<ErrorKind>(['invalid', 'unprocessable', 'too_large', 'unavailable']);

/** Maps a recorded stage failure to the error the API answers with; unknown failures are 500s. */
export function failureOf(error: NonNullable<RequestRecord['error']>): Error {
  const kind = error.kind as ErrorKind;
  if (API_KINDS.has(kind)) return new ParseFailedError(kind, error.message);
  return new Error(`${error.name}: ${error.message}`);
}

/** The ParseResponse as returned: per-page `warnings` only when asked for (spec §4 include_warnings). */
export function resultView(response: ParseResponse, includeWarnings: boolean): ParseResponse {
  if (includeWarnings) {
    return {
      ...response,
      pages: response.pages.map((p) => ({ ...p, warnings: p.warnings ?? [] })),
    };
  }
  return {
    ...response,
    pages: response.pages.map(
      (page) => Object.fromEntries(Object.entries(page).filter(([k]) => k !== 'warnings')) as Page,
    ),
  };
}

/**
 * The result of a request owned by `tenant`: the ParseResponse when completed, status
 * information otherwise (the same shape with the pages finished so far).
 * @throws {NotFoundError} when the id is unknown or owned by another tenant (identical 404).
 */
export async function getParseResult(
  deps: Pick<AppDeps, 'requests' | 'objects'>,
  tenant: string,
  requestId: string,
  includeWarnings: boolean,
): Promise<Record<string, unknown>> {
  const record = await deps.requests.get(requestId);
  if (!record || record.tenant !== tenant) {
    throw new NotFoundError(`parse request ${requestId} not found`);
  }
  if (record.status === 'completed' && record.resultKey) {
    return resultView(await readResult(deps, record.resultKey), includeWarnings);
  }
  return {
    id: record.id,
    status: record.status,
    document: {
      hash: record.document.hash,
      pages: record.document.pageCount ?? 0,
      format: record.document.format,
      cached: false,
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
