import { z } from 'zod';
import { getParseResult } from '../core/app/parse-upload.js';
import { deps, type Deps } from '../container.js';
import { formBoolean, httpHandler } from './http-handler.js';

const Params = z.object({ request_id: z.string().min(1).max(200) });
const Query = z.object({ include_warnings: formBoolean.default(false) });

/** GET /v1/parse/{request_id}: the stored ParseResponse, or status while processing; 404 for unknown or foreign ids. */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(
    getDeps,
    { params: Params, query: Query },
    async ({ params, query, caller, deps }) => {
      const body = await getParseResult(
        deps,
        caller?.tenant ?? '',
        params.request_id,
        query.include_warnings,
      );
      return { statusCode: 200, body };
    },
  );

export const handler = createHandler(deps);
