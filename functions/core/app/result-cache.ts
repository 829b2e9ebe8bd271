import { ObjectNotFoundError } from '../domain/errors.js';
import { announceFinished } from '../domain/pipeline/announce.js';
import { meanScore } from '../domain/pipeline/parse-page.js';
import { workKeys } from '../domain/object-keys.js';
import type { RequestRecord } from '../domain/request.js';
import { cachedResponse, resultCacheKey, type ResultInputs } from '../domain/result-cache.js';
import type { ParseResponse } from '../domain/schemas.js';
import type { ProgressEvent } from '../ports/event-log.js';
import type { CachedResult, ResultCacheKey } from '../ports/result-cache.js';
import type { AppDeps } from './app-deps.js';
import { readResult, resultView } from './stored-result.js';

/**
 * The result cache key of a parse with these inputs, or undefined where the deployment has no
 * result cache.
 */
export function cacheKeyOf(
  deps: Pick<AppDeps, 'resultCache'>,
  inputs: Omit<ResultInputs, 'configVersion'>,
): ResultCacheKey | undefined {
  if (!deps.resultCache) return undefined;
  return resultCacheKey({ ...inputs, configVersion: deps.resultCache.configVersion });
}

/**
 * The cache entry under `key` whose result is still stored, or undefined. An entry whose result
 * is gone is forgotten; one that points outside the tenant's results is never used.
 */
export async function findCached(
  deps: Pick<AppDeps, 'resultCache' | 'objects' | 'clock'>,
  key: ResultCacheKey,
): Promise<{ entry: CachedResult; result: ParseResponse } | undefined> {
  const cache = deps.resultCache;
  if (!cache) return undefined;
  const entry = await cache.store.get(key, deps.clock.now());
  if (!entry?.resultKey.startsWith(`results/${key.tenant}/`)) return undefined;
  try {
    return { entry, result: await readResult(deps, entry.resultKey) };
  } catch (error) {
    if (!(error instanceof ObjectNotFoundError)) throw error;
    await cache.store.delete(key);
    return undefined;
  }
}

/**
 * Answers a submitted request from the result cache when it has the document with the same
 * options (see `resultCacheKey`):
 * 1. reads the entry under the request's `cacheKey` and its stored result;
 * 2. stores that result as this request's own (`results/<tenant>/<id>.json`, see
 *    `cachedResponse`: this id, `document.cached` true, nothing charged, the time it took);
 * 3. creates the request record `completed`, with `cachedFrom` naming the source request; no
 *    page is reserved from the daily quota, no pipeline runs, the document's bytes are not kept;
 * 4. announces the end to the request's webhook, if it has one.
 *
 * @param record the request as it would be created (`queued`), with its `cacheKey`.
 * @param startedAt when the request was received (for `timing.total_ms`).
 * @returns the completed record, or undefined on a miss (nothing was written).
 * @throws {ConflictError} when a request with the record's id exists already.
 */
export async function answerFromCache(
  deps: AppDeps,
  record: RequestRecord,
  startedAt: Date,
): Promise<RequestRecord | undefined> {
  if (!record.cacheKey) return undefined;
  const found = await findCached(deps, record.cacheKey);
  if (!found) return undefined;
  const resultKey = workKeys.resultJson(record.tenant, record.id);
  const response = cachedResponse(found.result, {
    id: record.id,
    filename: record.document.filename,
    createdAt: record.createdAt,
    totalMs: deps.clock.now().getTime() - startedAt.getTime(),
  });
  await deps.objects.put(
    resultKey,
    new TextEncoder().encode(JSON.stringify(response)),
    'application/json',
  );
  const completed: RequestRecord = {
    ...record,
    status: 'completed',
    resultKey,
    cachedFrom: found.entry.requestId,
    document: { ...record.document, pageCount: found.result.document.pages },
  };
  await deps.requests.create(completed);
  await announceFinished(deps, completed, { status: 'completed' });
  return completed;
}

/**
 * The SSE events of a request answered from the cache (spec §6), replayed from its stored
 * result: `ingest.start` (with `cached: true`), then per page `classify.page` (the complexity the
 * source request's Route recorded), `route.page` and `vlm.page.done`, and last `result.final`
 * with the ParseResponse. No pipeline node ran, so there are no `node.*` events.
 */
export async function* replayCached(
  deps: Pick<AppDeps, 'objects' | 'requests'>,
  record: RequestRecord,
  options: { includeWarnings: boolean },
): AsyncGenerator<ProgressEvent> {
  if (!record.resultKey) throw new Error(`request ${record.id} has no stored result`);
  const [result, source] = await Promise.all([
    readResult(deps, record.resultKey),
    record.cachedFrom ? deps.requests.get(record.cachedFrom) : undefined,
  ]);
  const complexity = new Map(source?.routes?.map((r) => [r.pageNumber, r.complexity]));
  yield { event: 'ingest.start', page_count: result.document.pages, cached: true };
  for (const page of result.pages) {
    yield {
      event: 'classify.page',
      page: page.page_number,
      complexity: complexity.get(page.page_number) ?? null,
    };
  }
  for (const page of result.pages) {
    yield {
      event: 'route.page',
      page: page.page_number,
      tier: page.tier_used,
      provider: page.provider,
    };
  }
  for (const page of result.pages) {
    yield {
      event: 'vlm.page.done',
      page: page.page_number,
      confidence: Math.round(meanScore(page) * 1000) / 1000,
    };
  }
  yield { event: 'result.final', payload: resultView(result, options.includeWarnings) };
}
