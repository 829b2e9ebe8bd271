import { getParseResultBody } from '../core/app/parse-result-body.js';
import { deps, type Deps } from '../container.js';
import { httpHandler } from './http-handler.js';
import { RequestIdParams, ResultQuery } from './request-schemas.js';

/**
 * GET /v1/parse/{request_id}: the stored ParseResponse, or status while processing; 404 for
 * unknown or foreign ids. The body comes serialised (finished results are kept as JSON text and
 * as its UTF-8 bytes, see `getParseResultBody`) and is sent as it is.
 */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(
    getDeps,
    { params: RequestIdParams, query: ResultQuery },
    async ({ params, query, caller, deps }) => {
      const { json, utf8 } = await getParseResultBody(
        deps,
        caller?.tenant ?? '',
        params.request_id,
        query.include_warnings,
      );
      return {
        statusCode: 200,
        headers: { 'content-type': 'application/json' },
        body: json,
        bodyBytes: utf8,
      };
    },
  );

export const handler = createHandler(deps);
