import { describe, expect, it } from 'vitest';
import { classify } from '../../../../functions/core/domain/pipeline/classify.js';
import { deliver } from '../../../../functions/core/domain/pipeline/deliver.js';
import { ingest } from '../../../../functions/core/domain/pipeline/ingest.js';
import { parsePage } from '../../../../functions/core/domain/pipeline/parse-page.js';
import { route } from '../../../../functions/core/domain/pipeline/route.js';
import type { RequestRecord } from '../../../../functions/core/domain/request.js';
import type { ResultCaching } from '../../../../functions/core/domain/result-cache.js';
import { T0, aPipeline, aStoredRequest, progressTo } from '../../../support/builders.js';
import { aCacheKey } from '../../../contract/result-cache.contract.js';
import { InMemoryResultCache } from '../../../support/fake-result-cache.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Runs Ingest to Deliver for a request stored with `overrides`, with a result cache. */
async function delivered(overrides: Partial<RequestRecord>, caching?: ResultCaching) {
  const world = { ...aPipeline(), ...(caching ? { resultCache: caching } : {}) };
  const { id: requestId } = await aStoredRequest(world, overrides);
  const progress = progressTo(world.events, requestId);
  await ingest({ requestId }, world, progress);
  await classify({ requestId }, world, progress);
  const { pages } = await route({ requestId }, world, progress);
  for (const page of pages) await parsePage(page, world, progress);
  await deliver({ requestId }, world, progress);
  return { world, requestId };
}

const caching = (store = new InMemoryResultCache()): ResultCaching => ({
  store,
  configVersion: 'v1',
  retentionMs: 7 * DAY_MS,
});

describe('deliver and the result cache', () => {
  it('files the completed result under the request cacheKey, valid for the retention', async () => {
    // Arrange
    const cache = caching();
    const cacheKey = aCacheKey();
    // Act
    const { world, requestId } = await delivered({ cacheKey }, cache);
    // Assert
    const record = await world.requests.get(requestId);
    expect(await cache.store.get(cacheKey, T0)).toEqual({
      requestId,
      resultKey: record?.resultKey,
      pages: 1,
      storedAt: T0.toISOString(),
      validUntil: new Date(T0.getTime() + 7 * DAY_MS).toISOString(),
    });
  });

  it('files nothing for a request without a cacheKey', async () => {
    // Arrange
    const store = new InMemoryResultCache();
    // Act
    await delivered({}, caching(store));
    // Assert
    expect(store.size).toBe(0);
  });

  it('completes the parse when the cache cannot be written', async () => {
    // Arrange
    const store = new InMemoryResultCache();
    store.put = () => Promise.reject(new Error('table unavailable'));
    // Act
    const { world, requestId } = await delivered({ cacheKey: aCacheKey() }, caching(store));
    // Assert
    expect((await world.requests.get(requestId))?.status).toBe('completed');
  });
});
