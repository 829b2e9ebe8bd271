import type { Page } from '../core/domain/schemas.js';
import type { PageCheckpoint } from '../core/domain/request.js';
import type { ObjectStore } from '../core/ports/object-store.js';
import type { RequestStore } from '../core/ports/request-store.js';
import type { ResultCache } from '../core/ports/result-cache.js';
import type { ServiceMetrics } from '../api/metrics.js';

/**
 * `requests` counting every page checkpoint it writes as a parsed page of the tier that answered
 * it (`PagesParsed` by `tier`): ParsePage writes one checkpoint per page it parsed, whichever
 * provider or re-route answered. A page stored behind a pointer (a large one) is read back for
 * its tier. Counting never fails the write: a tier that cannot be read counts as `unknown`.
 *
 * Every other method is the store's own, so the port can grow without this wrapper changing.
 */
export function meteredPageWrites<S extends RequestStore>(
  requests: S,
  objects: Pick<ObjectStore, 'get'>,
  metrics: () => ServiceMetrics,
): S {
  const putPage = async (requestId: string, checkpoint: PageCheckpoint): Promise<void> => {
    await requests.putPage(requestId, checkpoint);
    metrics().pageParsed(await tierOf(checkpoint, objects));
  };
  return new Proxy(requests, {
    get(target, property) {
      if (property === 'putPage') return putPage;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
}

async function tierOf(
  checkpoint: PageCheckpoint,
  objects: Pick<ObjectStore, 'get'>,
): Promise<string> {
  if (checkpoint.page) return checkpoint.page.tier_used;
  if (checkpoint.pageKey === undefined) return 'unknown';
  try {
    const page = JSON.parse(
      new TextDecoder().decode(await objects.get(checkpoint.pageKey)),
    ) as Partial<Page>;
    return typeof page.tier_used === 'string' ? page.tier_used : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** `cache` counting each lookup as a hit (`CacheHits`) or a miss (`CacheMisses`). */
export function meteredResultCache(cache: ResultCache, metrics: () => ServiceMetrics): ResultCache {
  return {
    get: async (key, now) => {
      const entry = await cache.get(key, now);
      if (entry) metrics().cacheHit();
      else metrics().cacheMissed();
      return entry;
    },
    put: (key, entry) => cache.put(key, entry),
    delete: (key) => cache.delete(key),
  };
}
