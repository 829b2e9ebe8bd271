import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { MiddlewareObj } from '@middy/core';

/** Structured JSON logger shared by the handlers (level from `POWERTOOLS_LOG_LEVEL`). */
export const logger = new Logger({ serviceName: 'docparse' });

/**
 * The middy middleware every Lambda entry point uses first: Powertools' `injectLambdaContext`,
 * which adds the invocation's context (`function_request_id`, `cold_start`, function name and
 * memory) to every log line, and removes the keys the invocation appended (`request_id` of the
 * parse, see {@link appendParseKeys}) when it ends, so that none reaches the next invocation.
 */
export const lambdaContextLogging = (): MiddlewareObj =>
  injectLambdaContext(logger, { resetKeys: true }) as MiddlewareObj;

/**
 * Appends the parse (or batch) the invocation works for to every log line it writes from now
 * on: `request_id` is the service's request id (`GET /v1/parse/{request_id}`), which the
 * caller, the API and every stage share; `function_request_id` stays the Lambda invocation's.
 */
export function appendParseKeys(keys: {
  request_id?: string | undefined;
  batch_id?: string | undefined;
  page?: number | undefined;
}): void {
  const defined: Record<string, string | number> = {};
  for (const name of ['request_id', 'batch_id', 'page'] as const) {
    const value = keys[name];
    if (value !== undefined) defined[name] = value;
  }
  if (Object.keys(defined).length > 0) logger.appendKeys(defined);
}
