import type { APIGatewayProxyResult } from 'aws-lambda';

/** A JSON response with the service's standard headers. */
export function json(
  statusCode: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}

/** Where a result keeps the UTF-8 bytes of its `body` (see {@link withBodyBytes}). */
const BODY_BYTES = Symbol('docparse.bodyBytes');

type WithBodyBytes = APIGatewayProxyResult & { [BODY_BYTES]?: Uint8Array };

/**
 * `result`, carrying `bytes` (exactly the UTF-8 encoding of its `body`) for a transport that can
 * send them as they are instead of encoding the text again (the local server). The bytes are kept
 * under a symbol: Lambda serialises the result with `JSON.stringify`, which leaves them out.
 *
 * @example
 * return withBodyBytes({ statusCode: 200, headers, body: cached.json }, cached.utf8);
 */
export function withBodyBytes(
  result: APIGatewayProxyResult,
  bytes: Uint8Array | undefined,
): APIGatewayProxyResult {
  if (bytes !== undefined) (result as WithBodyBytes)[BODY_BYTES] = bytes;
  return result;
}

/** The UTF-8 bytes of `result.body` given by {@link withBodyBytes}, if any. */
export const bodyBytesOf = (result: APIGatewayProxyResult): Uint8Array | undefined =>
  (result as WithBodyBytes)[BODY_BYTES];
