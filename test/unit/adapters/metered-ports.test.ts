import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  meteredPageWrites,
  meteredResultCache,
} from '../../../functions/adapters/metered-ports.js';
import {
  METRIC,
  METRICS_NAMESPACE,
  noMetrics,
  powertoolsMetrics,
  serviceMetrics,
  useMetrics,
  type ServiceMetrics,
} from '../../../functions/api/metrics.js';
import type { Page } from '../../../functions/core/domain/schemas.js';
import { aRequestRecord } from '../../support/builders.js';
import { InMemoryResultCache } from '../../support/fake-result-cache.js';
import { InMemoryObjectStore, InMemoryRequestStore } from '../../support/fakes.js';

/** Counters that remember what they counted. */
function recording() {
  const counted: string[] = [];
  const metrics: ServiceMetrics = {
    pageParsed: (tier) => counted.push(`page ${tier}`),
    providerFailed: (id) => counted.push(`failed ${id}`),
    breakerOpened: (id) => counted.push(`opened ${id}`),
    cacheHit: () => counted.push('hit'),
    cacheMissed: () => counted.push('miss'),
  };
  return { counted, metrics: () => metrics };
}

const aPage = (tier: string): Page => ({ page_number: 1, tier_used: tier }) as unknown as Page;

afterEach(() => {
  vi.restoreAllMocks();
  useMetrics(noMetrics);
});

describe('powertoolsMetrics', () => {
  it('writes one EMF line per count, named and dimensioned', () => {
    // Arrange
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const metrics = powertoolsMetrics(
      new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'docparse' }),
    );
    // Act
    metrics.pageParsed('pro');
    metrics.providerFailed('gpt');
    metrics.breakerOpened('gpt');
    metrics.cacheHit();
    metrics.cacheMissed();
    // Assert
    const emf = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(emf).toHaveLength(5);
    expect(emf[0]).toMatchObject({ tier: 'pro', service: 'docparse', [METRIC.pagesParsed]: 1 });
    expect(emf[1]).toMatchObject({ provider: 'gpt', [METRIC.providerFailures]: 1 });
    expect(emf[2]).toMatchObject({ provider: 'gpt', [METRIC.breakerOpens]: 1 });
    expect(emf[3]).toMatchObject({ [METRIC.cacheHits]: 1 });
    expect(emf[4]).toMatchObject({ [METRIC.cacheMisses]: 1 });
    expect(emf[0]).toMatchObject({
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: 'docparse',
            Dimensions: [expect.arrayContaining(['service', 'tier'])],
            Metrics: [{ Name: 'PagesParsed', Unit: 'Count' }],
          },
        ],
      },
    });
  });

  it('counts nothing until the composition root makes them the process counters', () => {
    // Arrange
    const { counted, metrics } = recording();
    // Act
    serviceMetrics().cacheHit();
    useMetrics(metrics());
    serviceMetrics().cacheHit();
    // Assert
    expect(counted).toEqual(['hit']);
    expect(() => {
      noMetrics.pageParsed('fast');
      noMetrics.providerFailed('x');
      noMetrics.breakerOpened('x');
      noMetrics.cacheMissed();
    }).not.toThrow();
  });
});

describe('meteredPageWrites', () => {
  it('counts each checkpoint written as a page parsed by the tier that answered it', async () => {
    // Arrange
    const { counted, metrics } = recording();
    const store = new InMemoryRequestStore();
    await store.create(aRequestRecord({ id: 'req_1' }));
    const objects = new InMemoryObjectStore();
    await objects.put(
      'work/p2.json',
      new TextEncoder().encode(JSON.stringify(aPage('premium'))),
      '',
    );
    await objects.put('work/p3.json', new TextEncoder().encode('not json'), '');
    const requests = meteredPageWrites(store, objects, metrics);
    // Act
    await requests.putPage('req_1', { pageNumber: 1, page: aPage('fast') });
    await requests.putPage('req_1', { pageNumber: 2, pageKey: 'work/p2.json' });
    await requests.putPage('req_1', { pageNumber: 3, pageKey: 'work/p3.json' });
    await requests.putPage('req_1', { pageNumber: 4 });
    // Assert
    expect(counted).toEqual(['page fast', 'page premium', 'page unknown', 'page unknown']);
    expect((await requests.listPages('req_1')).map((c) => c.pageNumber)).toEqual([1, 2, 3, 4]);
  });

  it('counts nothing when the write fails, and passes every other call to the store', async () => {
    // Arrange
    const { counted, metrics } = recording();
    const store = new InMemoryRequestStore();
    const requests = meteredPageWrites(store, new InMemoryObjectStore(), metrics);
    vi.spyOn(store, 'putPage').mockRejectedValue(new Error('throttled'));
    // Act
    await requests.create(aRequestRecord({ id: 'req_2' }));
    const write = requests.putPage('req_2', { pageNumber: 1, page: aPage('fast') });
    // Assert
    await expect(write).rejects.toThrow('throttled');
    expect(counted).toEqual([]);
    expect((await requests.get('req_2'))?.id).toBe('req_2');
  });
});

describe('meteredResultCache', () => {
  it('counts a lookup that finds an entry as a hit and one that does not as a miss', async () => {
    // Arrange
    const { counted, metrics } = recording();
    const cache = meteredResultCache(new InMemoryResultCache(), metrics);
    const key = { tenant: 't', documentHash: 'ab', variant: 'v' };
    const now = new Date('2026-01-01T00:00:00Z');
    // Act
    const before = await cache.get(key, now);
    await cache.put(key, {
      requestId: 'r',
      resultKey: 'k',
      pages: 1,
      storedAt: now.toISOString(),
      validUntil: '2026-02-01T00:00:00Z',
    });
    const found = await cache.get(key, now);
    await cache.delete(key);
    const after = await cache.get(key, now);
    // Assert
    expect(before).toBeUndefined();
    expect(found?.requestId).toBe('r');
    expect(after).toBeUndefined();
    expect(counted).toEqual(['miss', 'hit', 'miss']);
  });
});
