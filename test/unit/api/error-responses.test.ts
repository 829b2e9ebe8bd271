import middy from '@middy/core';
import { createError } from '@middy/util';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { STATUS_BY_KIND, errorResponses } from '../../../functions/api/error-responses.js';
import { logger } from '../../../functions/observability/logger.js';
import {
  AppError,
  BadRequestError,
  NotFoundError,
  ProviderUnavailableError,
  ValidationError,
} from '../../../functions/core/domain/errors.js';
import { anApiEvent, bodyOf, lambdaContext } from '../../support/builders.js';

class RateLimitedError extends AppError {
  override readonly name = 'RateLimitedError';
  override readonly kind = 'rate_limited';
}

function throwing(error: unknown) {
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(errorResponses())
    .handler(() => Promise.reject(error as Error));
  const context = lambdaContext('errors');
  return handler(anApiEvent(), context).then((result) => ({ result, context }));
}

describe('errorResponses', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([
    [new BadRequestError('bad'), 400],
    [new NotFoundError('gone'), 404],
    [new ProviderUnavailableError('busy'), 503],
  ])('answers %s with its kind status and the message as detail', async (error, status) => {
    // Act
    const { result } = await throwing(error);
    // Assert
    expect(result.statusCode).toBe(status);
    expect(bodyOf(result)).toEqual({ detail: error.message });
  });

  it('passes the error headers through', async () => {
    // Act
    const { result } = await throwing(
      new RateLimitedError('slow down', { headers: { 'Retry-After': '30' } }),
    );
    // Assert
    expect(result.statusCode).toBe(429);
    expect(result.headers).toMatchObject({ 'Retry-After': '30' });
  });

  it('answers a ValidationError with 422 and the HTTPValidationError body', async () => {
    // Arrange
    const issues = [{ loc: ['body', 'dpi'], msg: 'must be an integer or null', type: 'custom' }];
    // Act
    const { result } = await throwing(new ValidationError(issues));
    // Assert
    expect(result.statusCode).toBe(422);
    expect(bodyOf(result)).toEqual({ detail: issues });
  });

  it('answers a client http error from middy with 400', async () => {
    // Act
    const { result } = await throwing(createError(415, 'Unsupported Media Type'));
    // Assert
    expect(result.statusCode).toBe(400);
    expect(bodyOf(result).detail).toMatch(/^malformed request body: Unsupported Media Type/);
  });

  it('answers anything else with 500 naming the request id, not the message', async () => {
    // Arrange
    vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    // Act
    const { result, context } = await throwing(new Error('secret internals'));
    // Assert
    expect(result.statusCode).toBe(500);
    expect(bodyOf(result)).toEqual({ detail: `internal error (request ${context.awsRequestId})` });
    expect(result.body).not.toContain('secret');
  });

  it('maps every error kind to a status from the specification', () => {
    // Assert
    expect(STATUS_BY_KIND).toEqual({
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
    });
  });
});
