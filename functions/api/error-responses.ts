import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import {
  AppError,
  ExtractionStrictError,
  ValidationError,
  type ErrorKind,
} from '../core/domain/errors.js';
import { logger } from '../observability/logger.js';
import { json } from './responses.js';

/** HTTP status per error kind (spec §7). The Record is exhaustive: a new kind does not compile until mapped. */
export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  plan_limit: 402,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unprocessable: 422,
  rate_limited: 429,
  unavailable: 503,
  transient: 503,
};

interface HttpLikeError {
  statusCode: number;
  message: string;
}

const isHttpError = (e: unknown): e is HttpLikeError =>
  e instanceof Error && typeof (e as Partial<HttpLikeError>).statusCode === 'number';

/**
 * Errors to responses: ValidationError → 422 HTTPValidationError body; ExtractionStrictError →
 * 422 whose body is the list of schema failures; other AppErrors → `{ detail }`
 * with its kind's status; middy's body-parser errors → 400; anything else → 500 whose detail
 * names the request id (the message is logged, never returned).
 */
export const errorResponses = (): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  onError: (request) => {
    request.response = errorResponse(request.error, request.context.awsRequestId);
  },
});

/** The response for `error` (see {@link errorResponses}); `requestId` names a 500 in its detail. */
export function errorResponse(error: unknown, requestId: string): APIGatewayProxyResult {
  if (error instanceof ValidationError) return json(422, { detail: error.issues });
  if (error instanceof ExtractionStrictError) return json(422, error.errors);
  if (error instanceof AppError) {
    return json(STATUS_BY_KIND[error.kind], { detail: error.message }, error.headers);
  }
  if (isHttpError(error) && error.statusCode < 500) {
    return json(400, {
      detail: `malformed request body: ${error.message}; send multipart/form-data with a "file" part`,
    });
  }
  logger.error('unhandled error', { error, requestId });
  return json(500, { detail: `internal error (request ${requestId})` });
}
