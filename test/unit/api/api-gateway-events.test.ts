import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createHandler as getParseHandler } from '../../../functions/api/get-parse.handler.js';
import { createHandler as liveHandler } from '../../../functions/api/live.handler.js';
import { createHandler as uploadHandler } from '../../../functions/api/parse-upload.handler.js';
import { matchRoute } from '../../../functions/api/routes.js';
import { type ApiHandler } from '../../../functions/api/streaming.js';
import { invokeBuffered } from '../../support/invoke-buffered.js';
import { toProxyEvent } from '../../../functions/adapters/local/proxy-event.js';
import { ParseResponse } from '../../../functions/core/domain/schemas.js';
import { API_KEY, fakeDeps, lambdaContext, type FakeDeps } from '../../support/builders.js';

/** A REST API proxy event in the shape API Gateway sends (test/fixtures/api-gateway). */
function fixture(name: string, apiKey?: string): APIGatewayProxyEvent {
  const text = readFileSync(
    new URL(`../../fixtures/api-gateway/${name}.json`, import.meta.url),
    'utf8',
  );
  return JSON.parse(
    apiKey ? text.replaceAll('KEY_PLACEHOLDER', apiKey) : text,
  ) as APIGatewayProxyEvent;
}

const invoke = async (
  create: (getDeps: () => Promise<FakeDeps>) => unknown,
  event: APIGatewayProxyEvent,
  deps?: FakeDeps,
) => {
  const d = deps ?? (await fakeDeps());
  const handler = create(() => Promise.resolve(d)) as ApiHandler;
  return invokeBuffered(handler, event, lambdaContext('fixture'));
};

describe('handlers fed the events API Gateway sends', () => {
  it('POST /v1/parse/upload: a base64 multipart body with a PDF answers 200 with a ParseResponse', async () => {
    // Act
    const result = await invoke(uploadHandler, fixture('parse-upload', API_KEY));
    // Assert
    expect(result.statusCode).toBe(200);
    const response = ParseResponse.parse(JSON.parse(result.body));
    expect(response.document).toMatchObject({ format: 'pdf', filename: 'tiny.pdf', pages: 1 });
  });

  it('POST /v1/parse/upload: an unknown key in the same event answers 401', async () => {
    // Act
    const result = await invoke(uploadHandler, fixture('parse-upload', 'not-a-key-000000'));
    // Assert
    expect(result.statusCode).toBe(401);
  });

  it('GET /v1/parse/{request_id}: an unknown id answers 404 with a detail', async () => {
    // Act
    const result = await invoke(getParseHandler, fixture('get-parse', API_KEY));
    // Assert
    expect(result.statusCode).toBe(404);
    expect(JSON.parse(result.body)).toEqual({
      detail: expect.stringContaining('req_unknown') as unknown,
    });
  });

  it('GET /v1/live answers 200 without a key', async () => {
    // Act
    const result = await invoke(liveHandler, fixture('live'));
    // Assert
    expect(result.statusCode).toBe(200);
  });
});

describe('the local bridge', () => {
  it('builds events of the same shape as API Gateway: the same keys, and null where it sends null', () => {
    // Arrange
    const aws = fixture('parse-upload', API_KEY);
    const url = new URL('http://127.0.0.1:8080/v1/parse/upload?include_warnings=true');
    const match = matchRoute('POST', url.pathname);
    if (!match || match === 'method') throw new Error('route expected');
    const headers = Object.fromEntries(
      Object.entries(aws.headers).map(([name, value]) => [name.toLowerCase(), value]),
    );
    // Act
    const local = toProxyEvent({
      method: 'POST',
      url,
      headers,
      body: Buffer.from(aws.body ?? '', 'base64'),
      route: match.route,
      params: match.params,
    });
    // Assert
    expect(Object.keys(local).sort()).toEqual(Object.keys(aws).sort());
    expect(Object.keys(local.requestContext).sort()).toEqual(
      Object.keys(aws.requestContext).sort(),
    );
    expect(Object.keys(local.requestContext.identity).sort()).toEqual(
      Object.keys(aws.requestContext.identity).sort(),
    );
    expect(local).toMatchObject({
      resource: aws.resource,
      path: aws.path,
      httpMethod: aws.httpMethod,
      queryStringParameters: aws.queryStringParameters,
      multiValueQueryStringParameters: aws.multiValueQueryStringParameters,
      pathParameters: null,
      body: aws.body,
      isBase64Encoded: true,
    });
    expect(local.multiValueHeaders['content-type']).toEqual([headers['content-type']]);
  });

  it('gives path parameters by name and no body as null, like API Gateway', () => {
    // Arrange
    const aws = fixture('get-parse', API_KEY);
    const url = new URL(`http://127.0.0.1:8080${aws.path}`);
    const match = matchRoute('GET', url.pathname);
    if (!match || match === 'method') throw new Error('route expected');
    // Act
    const local = toProxyEvent({
      method: 'GET',
      url,
      headers: {},
      body: Buffer.alloc(0),
      route: match.route,
      params: match.params,
    });
    // Assert
    expect(local).toMatchObject({
      resource: aws.resource,
      pathParameters: aws.pathParameters,
      queryStringParameters: null,
      body: null,
      isBase64Encoded: false,
    });
  });
});
