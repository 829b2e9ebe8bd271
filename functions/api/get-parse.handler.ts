import { Readable } from 'node:stream';
import { getParseResultBody } from '../core/app/parse-result-body.js';
import { deps, type Deps } from '../container.js';
import { endpoints } from './endpoints.js';
import { httpHandler } from './http-handler.js';

/** Bytes per chunk written to the response stream. */
const CHUNK_BYTES = 256 * 1024;

/**
 * GET /v1/parse/{request_id}: the stored ParseResponse, or status while processing; 404 for
 * unknown or foreign ids. The body comes serialised (finished results are kept as JSON text and
 * as its UTF-8 bytes, see `getParseResultBody`) and is written as it is.
 *
 * The route streams (Lambda response streaming, API Gateway `STREAM` mode): a buffered Lambda
 * response stops at 6 MB, which a result of a few hundred pages with grounding passes, while a
 * streamed one may reach 200 MB. The body is the same ParseResponse at every size (the
 * specification's answer), so no client has to follow a link or a redirect for a large result.
 */
export const createHandler = (getDeps: () => Promise<Deps>) =>
  httpHandler(getDeps, endpoints.getParse, async ({ params, query, caller, deps }) => {
    const { json, utf8 } = await getParseResultBody(
      deps,
      caller.tenant,
      params.request_id,
      query.include_warnings,
    );
    const bytes = utf8 ?? new TextEncoder().encode(json);
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: null,
      stream: Readable.from(chunksOf(bytes), { objectMode: false }),
    };
  });

/** Views on `bytes`, CHUNK_BYTES at a time (no copy). */
function* chunksOf(bytes: Uint8Array): Generator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
    yield bytes.subarray(at, at + CHUNK_BYTES);
  }
}

export const handler = createHandler(deps);
