import { PassThrough, type Readable } from 'node:stream';
import type { ProgressEvent } from '../core/ports/event-log.js';

/** Headers of a Server-Sent Events response. */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
});

/**
 * A Server-Sent Events body (spec §6): each event one `data: <JSON>` line and a blank line, and
 * a `: keepalive` comment every `heartbeatMs` while nothing is sent, so that idle connections
 * (API Gateway closes a stream idle for 5 minutes) stay open. When the client goes away the
 * body is destroyed and `events` is stopped through `abort`; the parse itself goes on.
 *
 * @param onError the last events to send when `events` throws (an `error` event).
 */
export function sseBody(
  events: (signal: AbortSignal) => AsyncIterable<ProgressEvent>,
  heartbeatMs: number,
  onError: (error: unknown) => ProgressEvent,
): Readable {
  const body = new PassThrough();
  const abort = new AbortController();
  let last = Date.now();
  const send = (chunk: string) => {
    last = Date.now();
    if (!body.destroyed && !body.writableEnded) body.write(chunk);
  };
  const heartbeat = setInterval(
    () => {
      if (Date.now() - last >= heartbeatMs) send(': keepalive\n\n');
    },
    Math.max(10, Math.floor(heartbeatMs / 2)),
  );
  body.on('close', () => {
    clearInterval(heartbeat);
    abort.abort();
  });
  void (async () => {
    try {
      for await (const event of events(abort.signal)) send(`data: ${JSON.stringify(event)}\n\n`);
    } catch (error) {
      send(`data: ${JSON.stringify(onError(error))}\n\n`);
    } finally {
      clearInterval(heartbeat);
      if (!body.destroyed) body.end();
    }
  })();
  return body;
}
