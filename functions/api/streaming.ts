import { PassThrough, type Writable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

/** Status and headers of a streamed response, sent before its body. */
export interface ResponsePrelude {
  statusCode?: number;
  headers?: Record<string, string>;
}

/**
 * The Lambda runtime's response-streaming API (the global `awslambda` of the Node.js runtime):
 * `streamifyResponse` marks a handler `(event, responseStream, context)` for
 * InvokeWithResponseStream, and `HttpResponseStream.from` writes the status and headers ahead
 * of the body (API Gateway's STREAM mode and function URLs read them from there).
 */
interface ResponseStreamingApi {
  streamifyResponse<T>(handler: T): T;
  HttpResponseStream: { from(stream: Writable, prelude: ResponsePrelude): Writable };
}

/** Marks handlers made streaming by the stand-in below. */
const STREAMING = Symbol.for('docparse.streaming-handler');

/**
 * A response stream outside Lambda: the body as a Node stream, with the prelude handed to
 * `onPrelude` before any body byte (the local server sends it as the HTTP head).
 */
export class LocalResponseStream extends PassThrough {
  prelude: ResponsePrelude | undefined;
  readonly #onPrelude: (prelude: ResponsePrelude) => void;

  constructor(onPrelude: (prelude: ResponsePrelude) => void = () => undefined) {
    super();
    this.#onPrelude = onPrelude;
  }

  setPrelude(prelude: ResponsePrelude): void {
    this.prelude = prelude;
    this.#onPrelude(prelude);
  }
}

// Outside Lambda (local server, tests) the same handler modules run against this stand-in.
// Other libraries create the global too (the SDK's invoke store), so members are filled in one by one.
const runtime = globalThis as { awslambda?: Partial<ResponseStreamingApi> };
runtime.awslambda ??= {};
runtime.awslambda.streamifyResponse ??= <T>(handler: T): T =>
  Object.assign(handler as object, { [STREAMING]: true }) as T;
runtime.awslambda.HttpResponseStream ??= {
  from(stream, prelude) {
    if (stream instanceof LocalResponseStream) stream.setPrelude(prelude);
    return stream;
  },
};

/** A buffered API Gateway proxy handler, or a streaming one made by `streamifyResponse`. */
export type ApiHandler = (
  event: APIGatewayProxyEvent,
  contextOrStream: Context | Writable,
  context?: Context,
) => Promise<unknown>;

/** True for a handler made streaming by the stand-in `awslambda.streamifyResponse`. */
export const isStreamingHandler = (handler: ApiHandler): boolean =>
  (handler as unknown as Record<symbol, unknown>)[STREAMING] === true;

/**
 * Runs a streaming handler outside Lambda: returns once the handler has finished writing.
 * `stream` receives the prelude and the body as the handler produces them.
 */
export async function invokeStreaming(
  handler: ApiHandler,
  event: APIGatewayProxyEvent,
  stream: LocalResponseStream,
  context: Context,
): Promise<void> {
  const run = handler as unknown as (
    event: APIGatewayProxyEvent,
    stream: Writable,
    context: Context,
  ) => Promise<void>;
  await run(event, stream, context);
}
