import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';
import { openApiDocument, type OpenApiDocument } from './openapi.js';

/**
 * GET /v1/openapi.json: the OpenAPI 3.1 document of the API (see `openApiDocument`), its
 * `servers` naming the base URL the caller reached. No API key needed.
 */
export const createHandler = (getDeps: () => Promise<Deps>) => {
  const documents = new Map<string, OpenApiDocument>();
  return httpHandler(getDeps, endpoints.getOpenApi, ({ baseUrl }) => {
    let document = documents.get(baseUrl);
    if (!document) {
      document = openApiDocument(baseUrl);
      // A few base URLs at most (custom domain, execute-api, local): keep each one's document.
      if (documents.size < 8) documents.set(baseUrl, document);
    }
    return Promise.resolve({
      statusCode: 200,
      body: document,
      headers: { 'cache-control': 'public, max-age=300' },
    });
  });
};

export const handler = createHandler(deps);
