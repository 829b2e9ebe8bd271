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
