import { PassThrough, type Readable } from 'node:stream';
import { followParse } from '../core/app/follow-parse.js';
import { startParse, submitUpload } from '../core/app/parse-upload.js';
import { replayCached } from '../core/app/result-cache.js';
import type { Deps } from '../container.js';
import { errorResponse } from './error-responses.js';
import type { HttpReply } from './http-handler.js';
import { SSE_HEADERS, sseBody } from './sse.js';

/*
 * How the parse endpoints answer over a response that stays open: a synchronous parse that
 * takes long commits its 200 and sends keepalive spaces before the JSON (`replyWhenDone`), and a
 * parse asked for as Server-Sent Events sends its progress as it happens (`streamParse`).
 */

/** Timing of a long synchronous parse's response (see {@link replyWhenDone}). */
export interface LongParseTiming {
  /** Milliseconds the handler waits for the outcome before it commits to a streamed 200. */
  commitAfterMs: number;
  /** Milliseconds between two keepalive spaces once committed. */
  keepaliveMs: number;
}

/**
 * Under API Gateway's idle timeouts: a parse that takes longer than 20 s is answered with its
 * head at once and a space every 15 s (leading whitespace is valid JSON) until the body.
 */
export const LONG_PARSE: LongParseTiming = { commitAfterMs: 20_000, keepaliveMs: 15_000 };

/** How often the SSE stream reads the event log, and how long it stays silent at most. */
export const SSE_TIMING = { pollMs: 250, heartbeatMs: 15_000 };

/**
 * Starts the parse and answers with its events as Server-Sent Events (see `followParse`). The
 * parse runs on its own: a client that disconnects loses nothing, `GET /v1/parse/{id}` has the
 * result. Invalid uploads are refused before the stream starts, with their usual status. A
 * document the result cache answers (see `answerFromCache`) gets its events replayed from the
 * stored result at once (`replayCached`).
 */
export async function streamParse(
  deps: Deps,
  upload: Parameters<typeof submitUpload>[1],
  timing = SSE_TIMING,
): Promise<HttpReply> {
  const record = await submitUpload(deps, upload, { useCache: !upload.refreshCache });
  const cached = record.cachedFrom !== undefined;
  if (!cached) await startParse(deps, record.id);
  const { options } = upload;
  return {
    statusCode: 200,
    body: null,
    headers: { ...SSE_HEADERS, 'x-request-id': record.id },
    stream: sseBody(
      (signal) =>
        cached
          ? replayCached(deps, record, { includeWarnings: options.include_warnings })
          : followParse(deps, record.tenant, record.id, {
              legacyEvents: options.legacy_events,
              includeWarnings: options.include_warnings,
              pollMs: timing.pollMs,
              signal,
            }),
      timing.heartbeatMs,
      (error) => ({ event: 'error', kind: 'internal', detail: String(error) }),
    ),
  };
}

/**
 * The reply of a synchronous parse: its outcome's own status when it ends within
 * `commitAfterMs`, else 200 at that point, keepalive spaces, then the body, or when the parse
 * fails after that 200, {@link lateErrorBody}.
 * @param requestId the request id a late error names: the parse's once known (read when the
 *   error is written), else the HTTP request's.
 */
export async function replyWhenDone(
  parsing: Promise<unknown>,
  timing: LongParseTiming,
  requestId: string | (() => string),
): Promise<HttpReply> {
  const early = await settledWithin(parsing, timing.commitAfterMs);
  if (early) return { statusCode: 200, body: await parsing };
  return {
    statusCode: 200,
    body: null,
    stream: keepaliveJson(parsing, timing.keepaliveMs, (error) =>
      lateErrorBody(error, typeof requestId === 'string' ? requestId : requestId()),
    ),
  };
}

/**
 * The body of a parse that failed after its 200 head was sent: `{detail, request_id, status}`,
 * where `status` is the HTTP status the failure would have had (422 for a page over its time or
 * memory budget, ...) and `detail` its real cause, as `GET /v1/parse/{request_id}` tells it.
 * Errors with a body of their own (validation lists) keep it under `detail`.
 */
export function lateErrorBody(error: unknown, requestId: string): string {
  const response = errorResponse(error, requestId);
  const parsed = JSON.parse(response.body) as unknown;
  const detail =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && 'detail' in parsed
      ? parsed.detail
      : parsed;
  return JSON.stringify({ detail, request_id: requestId, status: response.statusCode });
}

/** True when `promise` settles (either way) within `ms`. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  const settled = promise.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A body of spaces, one every `keepaliveMs`, then the JSON of `value` (or `onError`'s body when
 * it rejects). Leading whitespace is valid JSON, so clients parse the whole body as usual.
 */
function keepaliveJson(
  value: Promise<unknown>,
  keepaliveMs: number,
  onError: (error: unknown) => string,
): Readable {
  const body = new PassThrough();
  body.write(' ');
  const timer = setInterval(() => body.write(' '), keepaliveMs);
  void value
    .then(
      (result) => body.end(JSON.stringify(result)),
      (error: unknown) => body.end(onError(error)),
    )
    .finally(() => {
      clearInterval(timer);
    });
  return body;
}
