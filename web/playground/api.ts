import { createParser } from 'eventsource-parser';
import type { Page, ParseResponse } from '../../functions/core/domain/schemas.js';

export type { Page, ParseResponse };

/** One Server-Sent Event of a parse: `event` is its name, the other keys its fields. */
export interface StreamEvent {
  event: string;
  [field: string]: unknown;
}

/** An operation mode of the parse form. */
export type OperationMode = 'ocr' | 'extract' | 'hybrid';

/** What the parse form sends to `POST /v1/parse/stream`. */
export interface ParseRequest {
  /** Base URL of the API without `/v1`; empty for this page's own origin. */
  base: string;
  apiKey: string;
  file: File;
  mode: OperationMode;
  /** JSON Schema text, sent with `extract` and `hybrid` only. */
  schema: string;
  /** Page limit, empty for all pages. */
  maxPages: string;
  /** Rendering resolution, empty for the service's choice. */
  dpi: string;
  signal: AbortSignal;
}

/**
 * A refused or failed call, ready to show: `status` is the HTTP status (0 when the API could not
 * be reached), `title` a short heading, `message` the service's `detail` (or what went wrong),
 * `issues` the entries of a validation failure (`body.max_pages: ...`) and `hint` what to do.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly title: string;
  readonly issues: readonly string[];
  readonly hint: string | null;

  constructor(
    status: number,
    title: string,
    message: string,
    issues: readonly string[] = [],
    hint: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.title = title;
    this.issues = issues;
    this.hint = hint;
  }
}

/** `path` (starting with `/`) on the API at `base`, or on this page's origin when `base` is empty. */
export function apiUrl(base: string, path: string): string {
  const trimmed = base.trim().replace(/\/+$/, '');
  return `${trimmed}${path}`;
}

/**
 * Starts a parse with `POST /v1/parse/stream` (with `include_warnings=true`) and calls `onEvent`
 * for every event as it arrives, until the server ends the stream (after `result.final`).
 * `onStart` gets the request id (the `X-Request-Id` header, null when the browser may not read it)
 * once the stream is open.
 *
 * @throws {ApiError} when the request is refused (401, 413, 422, 429, ...), the API cannot be
 * reached, or the connection drops mid-stream.
 * @throws {DOMException} `AbortError` when `request.signal` aborts.
 */
export async function streamParse(
  request: ParseRequest,
  onStart: (requestId: string | null) => void,
  onEvent: (event: StreamEvent) => void,
): Promise<void> {
  const form = new FormData();
  form.append('operation_mode', request.mode);
  if (request.maxPages.trim() !== '') form.append('max_pages', request.maxPages.trim());
  if (request.dpi.trim() !== '') form.append('dpi', request.dpi.trim());
  if (request.mode !== 'ocr') form.append('extraction_schema', request.schema);
  form.append('file', request.file, request.file.name);
  const url = apiUrl(request.base, '/v1/parse/stream?include_warnings=true');
  const response = await send(url, {
    method: 'POST',
    headers: { 'x-api-key': request.apiKey, accept: 'text/event-stream' },
    body: form,
    signal: request.signal,
  });
  if (!response.ok) throw await errorOf(response);
  if (response.body === null) throw new ApiError(0, 'Empty response', 'the stream has no body');
  onStart(response.headers.get('x-request-id'));
  const parser = createParser({
    onEvent: (message) => {
      onEvent(eventOf(message.data));
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(value);
    }
  } catch (error) {
    if (request.signal.aborted) throw error;
    throw new ApiError(
      0,
      'Connection lost',
      `the event stream broke off: ${error instanceof Error ? error.message : String(error)}`,
      [],
      'The parse goes on on the server: its result can be read with GET /v1/parse/{id}.',
    );
  }
}

/**
 * The stored result of a parse (`GET /v1/parse/{id}`), used when a stream ends early.
 * @throws {ApiError} as {@link streamParse}.
 */
export async function fetchResult(base: string, apiKey: string, id: string): Promise<unknown> {
  const url = apiUrl(base, `/v1/parse/${encodeURIComponent(id)}?include_warnings=true`);
  const response = await send(url, { headers: { 'x-api-key': apiKey } });
  if (!response.ok) throw await errorOf(response);
  return response.json();
}

/**
 * Asks the service to stop a parse (`POST /v1/parse/{id}/cancel`); its stream then ends with an
 * `error` event.
 * @throws {ApiError} as {@link streamParse} (404 when the parse has already ended).
 */
export async function cancelParse(base: string, apiKey: string, id: string): Promise<void> {
  const url = apiUrl(base, `/v1/parse/${encodeURIComponent(id)}/cancel`);
  const response = await send(url, { method: 'POST', headers: { 'x-api-key': apiKey } });
  if (!response.ok) throw await errorOf(response);
}

/** The ParseResponse in a `result.final` payload, or null when it is something else (a failure). */
export function parseResponseOf(payload: unknown): ParseResponse | null {
  if (!isRecord(payload) || !Array.isArray(payload.pages) || !isRecord(payload.document)) {
    return null;
  }
  return payload as ParseResponse;
}

/** True for a plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (init.signal?.aborted === true) throw error;
    throw new ApiError(
      0,
      'Network error',
      `could not reach the API at ${new URL(url, location.href).origin}: ${
        error instanceof Error ? error.message : String(error)
      }`,
      [],
      'Check that the service is running (npm start) and the API URL setting.',
    );
  }
}

function eventOf(data: string): StreamEvent {
  try {
    const value: unknown = JSON.parse(data);
    if (isRecord(value) && typeof value.event === 'string') return value as StreamEvent;
  } catch {
    // Shown as an unreadable event below.
  }
  return { event: 'unreadable', data };
}

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad request',
  401: 'API key refused',
  402: 'Plan limit reached',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Document too large',
  415: 'Unsupported document',
  422: 'Request not accepted',
  429: 'Too many requests',
  500: 'Server error',
  503: 'Service unavailable',
};

const HINTS: Readonly<Record<number, string>> = {
  401: 'Paste a valid key: npm start prints a demo key and keeps it in .data/demo-api-key.',
  402: 'The plan’s page allowance is used up; wait for the next period or use another key.',
  413: 'The service refuses files above its upload limit (MAX_UPLOAD_BYTES, 50 MB by default).',
  503: 'Every provider of the tier is unavailable for now; try again shortly.',
};

/** The error an unsuccessful response stands for, from its `detail` (string or issue list). */
async function errorOf(response: Response): Promise<ApiError> {
  const status = response.status;
  const title = TITLES[status] ?? `HTTP ${String(status)}`;
  const text = await response.text().catch(() => '');
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  const detail = isRecord(body) ? body.detail : body;
  let message = `the service answered ${String(status)} ${response.statusText}`.trim();
  let issues: string[] = [];
  if (typeof detail === 'string') message = detail;
  else if (Array.isArray(detail)) {
    issues = detail.map(issueText);
    message =
      issues.length === 1
        ? 'one field was refused'
        : `${String(issues.length)} fields were refused`;
  } else if (text.trim() !== '' && body === null) message = text.trim().slice(0, 300);
  let hint = HINTS[status] ?? null;
  if (status === 429) {
    const retry = response.headers.get('retry-after');
    hint = retry ? `Retry after ${retry} s.` : 'Wait a moment and retry.';
  }
  return new ApiError(status, title, message, issues, hint);
}

/** One entry of a validation failure (`{loc, msg}`, or an extraction `{pointer, message}`). */
function issueText(entry: unknown): string {
  if (!isRecord(entry)) return String(entry);
  if (Array.isArray(entry.loc) && typeof entry.msg === 'string') {
    return `${entry.loc.map(String).join('.')}: ${entry.msg}`;
  }
  const failure = entry.extraction_validation;
  if (isRecord(failure) && typeof failure.message === 'string') {
    return `${typeof failure.pointer === 'string' ? failure.pointer || '/' : '/'}: ${failure.message}`;
  }
  return JSON.stringify(entry);
}
