/** The API load part of `npm run bench` (see `api-load.ts`), with its console lines. */
import { join } from 'node:path';
import { measureApiLoad, type ApiLoadResult, type EndpointLoad } from './api-load.js';
import { CORPUS_DIR } from './corpus.js';
import { TARGETS } from './report.js';
import type { BenchContext } from './run-options.js';

/**
 * Loads the service and the bare server with the stored response of `ctx.apiDoc`, and prints
 * each endpoint's figures and ratio.
 * @throws {Error} when `ctx.apiDoc` is not a corpus document.
 */
export async function runApiLoad(ctx: BenchContext): Promise<ApiLoadResult> {
  console.log('\n## API load\n');
  const doc = ctx.manifest.find((d) => d.id === ctx.apiDoc);
  if (!doc) throw new Error(`--api-doc ${ctx.apiDoc}: no such corpus document`);
  const result = await measureApiLoad({
    file: join(CORPUS_DIR, doc.file),
    durationSeconds: ctx.apiDurationSeconds,
    connections: ctx.apiConnections,
    warmUpSeconds: 2,
  });
  printApiLoad(result);
  return result;
}

function printApiLoad(a: ApiLoadResult): void {
  const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
  const row = (who: string, e: EndpointLoad) =>
    `  ${who.padEnd(10)} ${e.requestsPerSecond.toFixed(0).padStart(7)} requests/s   ` +
    `latency p50 ${e.latencyP50Ms} ms, p99 ${e.latencyP99Ms} ms, max ${e.latencyMaxMs} ms   ` +
    `(${e.requests} requests; non-2xx ${e.non2xx}, errors ${e.errors}, timeouts ${e.timeouts})`;
  for (const { service, bare, ratio } of [{ service: a, bare: a.bare, ratio: a.ratio }, a.live]) {
    console.log(
      `${service.endpoint} (${service.responseBytes}-byte body), ${a.connections} connections, ${a.durationSeconds} s:`,
    );
    console.log(row('docparse', service));
    console.log(row('bare http', bare));
    console.log(
      `  ratio ${percent(ratio)} of the bare server's requests/s, p99 ${service.latencyP99Ms} ms` +
        (service.endpoint.startsWith('GET /v1/parse')
          ? ` (target: ratio >= ${percent(TARGETS.apiBareRatio)}, p99 < ${TARGETS.apiP99Ms} ms)`
          : ''),
    );
  }
}
