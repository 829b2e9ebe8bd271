import { submitBatch } from '../core/app/batch.js';
import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';
import { NO_FLAGS, parseOptionsOf, submitterOf, webhookOf } from './parse-request.js';
import { outboundOf } from '../outbound-http.js';

/**
 * POST /v1/parse/batch: accepts 1 to 100 ParseURLRequests (each with `file_url`, or `upload_id`
 * for a file sent beforehand to an upload slot) and answers at once with
 * `{ batch_id, status: "queued", item_count }`; the documents are downloaded and parsed in the
 * background (see `submitBatch`). Each document is checked as POST /v1/parse checks it (422 at
 * `body.documents.<n>.<field>`); a document's own `webhook_url` is refused (422). The batch's
 * `webhook_url` passes the same address rules as POST /v1/parse's (400 when refused) and gets a
 * `batch.completed` event when every document has ended. `priority` (`low`, `normal`, `high`)
 * sets how fast the documents are released to the shared queue (`RELEASE_SCHEDULE`).
 */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(getDeps, endpoints.submitBatch, async ({ body, caller, deps, baseUrl }) => {
    const webhook = await webhookOf(outboundOf(deps).webhookUrls, body.webhook_url, baseUrl);
    const accepted = await submitBatch(deps, {
      ...submitterOf(caller),
      priority: body.priority,
      ...(webhook ? { webhook } : {}),
      documents: body.documents.map((document) => ({
        ...(document.upload_id === undefined
          ? { fileUrl: document.file_url ?? '' }
          : { uploadId: document.upload_id }),
        extractionSchema: document.extraction_schema,
        preferredModel: document.preferred_model,
        compareProvider: document.compare_provider,
        options: parseOptionsOf(document, NO_FLAGS),
      })),
    });
    return { statusCode: 200, body: accepted };
  });

export const handler = createHandler(deps);
