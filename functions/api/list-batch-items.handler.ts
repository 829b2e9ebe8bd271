import type { z } from 'zod';
import { getBatch } from '../core/app/batch.js';
import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';
import type { BatchView } from './response-schemas.js';

/**
 * GET /v1/batch/{batch_id}/items: the batch's items a page at a time, in submission order, each
 * with its `index`, optionally only those of one `status`; 404 for unknown ids and other
 * tenants' alike. The items come from the same one-read snapshot as GET /v1/batch/{batch_id}
 * (`getBatch`); `next_cursor` is the index to start the next page at, null on the last page.
 */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(getDeps, endpoints.listBatchItems, async ({ params, query, caller, deps }) => {
    const batch = await getBatch(deps, caller.tenant, params.batch_id);
    const from = query.cursor ?? 0;
    const matching = (batch.items as z.infer<typeof BatchView>['items'])
      .map((item, index) => ({ index, ...item }))
      .filter((item) => item.index >= from)
      .filter((item) => query.status === undefined || item.status === query.status);
    const page = matching.slice(0, query.limit);
    const next = matching[query.limit];
    return {
      statusCode: 200,
      body: {
        batch_id: params.batch_id,
        items: page,
        next_cursor: next ? String(next.index) : null,
      },
    };
  });

export const handler = createHandler(deps);
