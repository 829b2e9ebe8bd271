import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import {
  invokeStreaming,
  isStreamingHandler,
  LocalResponseStream,
  type ApiHandler,
} from '../../functions/api/streaming.js';

/**
 * Invokes a handler of either kind and returns the whole response, for callers that want it
 * buffered (tests). Body bytes are decoded as UTF-8.
 */
export async function invokeBuffered(
  handler: ApiHandler,
  event: APIGatewayProxyEvent,
  context: Context,
): Promise<{ statusCode: number; headers: Record<string, string>; body: string }> {
  if (!isStreamingHandler(handler)) {
    const run = handler as unknown as (
      e: APIGatewayProxyEvent,
      c: Context,
    ) => Promise<{
      statusCode: number;
      headers?: Record<string, string>;
      body: string;
    }>;
    const result = await run(event, context);
    return { statusCode: result.statusCode, headers: result.headers ?? {}, body: result.body };
  }
  const stream = new LocalResponseStream();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => stream.on('end', resolve));
  await invokeStreaming(handler, event, stream, context);
  await ended;
  return {
    statusCode: stream.prelude?.statusCode ?? 200,
    headers: stream.prelude?.headers ?? {},
    body: Buffer.concat(chunks).toString('utf8'),
  };
}
