import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Route } from '../../api/routes.js';

/** What the local server knows of a request when it hands it to a handler. */
export interface LocalRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
  route: Route;
  params: Record<string, string>;
}

/**
 * The API Gateway REST proxy event (payload format 1.0) AWS would send for `request`, as the
 * local server passes it to handler modules: single- and multi-value headers and query
 * parameters, path parameters, a request context with the stage, a request id and the caller's
 * source IP, and the body base64-encoded (the API's `binaryMediaTypes` make API Gateway do the
 * same for multipart bodies). `null` where API Gateway sends null.
 */
export function toProxyEvent(request: LocalRequest, sourceIp = '127.0.0.1'): APIGatewayProxyEvent {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    headers[name] = values.join(', ');
    multiValueHeaders[name] = values;
  }
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [name, value] of request.url.searchParams) {
    query[name] = value;
    (multiQuery[name] ??= []).push(value);
  }
  const hasQuery = Object.keys(query).length > 0;
  const now = new Date();
  return {
    resource: request.route.path,
    path: request.url.pathname,
    httpMethod: request.method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: Object.keys(request.params).length > 0 ? request.params : null,
    stageVariables: null,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      extendedRequestId: randomUUID(),
      httpMethod: request.method,
      identity: anonymousIdentity(sourceIp, headers['user-agent'] ?? null),
      path: `/local${request.url.pathname}`,
      protocol: 'HTTP/1.1',
      requestId: randomUUID(),
      requestTime: now.toUTCString(),
      requestTimeEpoch: now.getTime(),
      resourceId: 'local',
      resourcePath: request.route.path,
      stage: 'local',
    },
    body: request.body.length > 0 ? request.body.toString('base64') : null,
    isBase64Encoded: request.body.length > 0,
  };
}

/** The `requestContext.identity` API Gateway sends for a caller without IAM or Cognito auth. */
export function anonymousIdentity(
  sourceIp: string,
  userAgent: string | null,
): APIGatewayProxyEvent['requestContext']['identity'] {
  return {
    accessKey: null,
    accountId: null,
    apiKey: null,
    apiKeyId: null,
    caller: null,
    clientCert: null,
    cognitoAuthenticationProvider: null,
    cognitoAuthenticationType: null,
    cognitoIdentityId: null,
    cognitoIdentityPoolId: null,
    principalOrgId: null,
    sourceIp,
    user: null,
    userAgent,
    userArn: null,
  };
}
