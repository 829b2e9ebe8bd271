import { describe, expect, it } from 'vitest';
import { createHandler as getParseHandler } from '../../../functions/api/get-parse.handler.js';
import { createHandler as listProvidersHandler } from '../../../functions/api/list-providers.handler.js';
import { createHandler as liveHandler } from '../../../functions/api/live.handler.js';
import { createHandler as uploadHandler } from '../../../functions/api/parse-upload.handler.js';
import { type ApiHandler } from '../../../functions/api/streaming.js';
import { invokeBuffered } from '../../support/invoke-buffered.js';
import { parseUpload } from '../../../functions/core/app/parse-upload.js';
import {
  API_KEY,
  FakeDocumentEngine,
  OTHER_API_KEY,
  OTHER_TENANT,
  TINY_PDF,
  aGetEvent,
  anUploadEvent,
  bodyOf,
  fakeDeps,
  lambdaContext,
  parseOptions,
  type FakeDeps,
} from '../../support/builders.js';

/** GET /v1/providers `n` times with `apiKey`; the status codes and the last response. */
async function listProviders(deps: FakeDeps, apiKey: string | null, n: number) {
  const handler = listProvidersHandler(() => Promise.resolve(deps));
  const statuses: number[] = [];
  let last: Awaited<ReturnType<typeof handler>> | undefined;
  for (let i = 0; i < n; i++) {
    last = await handler(aGetEvent('/v1/providers', { apiKey }), lambdaContext('providers'));
    statuses.push(last.statusCode);
  }
  return { statuses, last };
}

const upload = (deps: FakeDeps, apiKey: string) =>
  invokeBuffered(
    uploadHandler(() => Promise.resolve(deps)) as ApiHandler,
    anUploadEvent({ apiKey }),
    lambdaContext('parse-upload'),
  );

describe('request rate limits', () => {
  it('answers the 11th request of a free key within a minute with 429 and Retry-After', async () => {
    // Arrange
    const deps = await fakeDeps();
    // Act
    const { statuses, last } = await listProviders(deps, OTHER_API_KEY, 11);
    // Assert
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(last?.statusCode).toBe(429);
    // The clock stands at 05:06:07: 53 seconds to the next minute.
    expect(last?.headers).toMatchObject({ 'Retry-After': '53' });
    expect(bodyOf(last ?? { body: '{}' })).toEqual({
      detail:
        'rate limit exceeded: the free plan allows 10 requests per minute per API key; retry in 53 seconds',
    });
  });

  it('counts every read of a result it keeps serialised', async () => {
    // Arrange
    const deps = await fakeDeps();
    const parsed = await parseUpload(deps, {
      tenant: OTHER_TENANT,
      bytes: TINY_PDF,
      filename: 'report.pdf',
      options: parseOptions(),
    });
    const handler = getParseHandler(() => Promise.resolve(deps)) as ApiHandler;
    const get = () =>
      invokeBuffered(
        handler,
        aGetEvent(`/v1/parse/${parsed.id}`, {
          apiKey: OTHER_API_KEY,
          pathParameters: { request_id: parsed.id },
        }),
        lambdaContext('get-parse'),
      );
    // Act
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await get()).statusCode);
    // Assert
    expect(statuses).toEqual([...Array<number>(10).fill(200), 429]);
  });

  it('does not limit a pro key at 11 requests', async () => {
    // Arrange
    const deps = await fakeDeps();
    // Act
    const { statuses } = await listProviders(deps, API_KEY, 11);
    // Assert
    expect(statuses.every((s) => s === 200)).toBe(true);
  });

  it('counts uploads against the same budget and refuses them before reading the body', async () => {
    // Arrange
    const deps = await fakeDeps();
    await listProviders(deps, OTHER_API_KEY, 10);
    // Act
    const result = await upload(deps, OTHER_API_KEY);
    // Assert
    expect(result.statusCode).toBe(429);
    expect(deps.objects.keys()).toEqual([]);
  });

  it('counts neither unauthenticated probes nor refused keys', async () => {
    // Arrange
    const deps = await fakeDeps();
    const live = liveHandler(() => Promise.resolve(deps));
    // Act
    for (let i = 0; i < 20; i++) await live(aGetEvent('/v1/live'), lambdaContext('live'));
    const unknown = await listProviders(deps, 'not-a-key-at-all', 3);
    // Assert
    expect(unknown.statuses).toEqual([401, 401, 401]);
    expect(deps.usage.expiries.size).toBe(0);
  });
});

describe('daily pages through the upload endpoint', () => {
  it('records the caller plan on the request', async () => {
    // Arrange
    const deps = await fakeDeps();
    // Act
    const result = await upload(deps, API_KEY);
    // Assert
    const record = await deps.requests.get(bodyOf(result).id as string);
    expect(record?.plan).toBe('pro');
  });

  it('answers 402 with the detail when a free document exceeds the day', async () => {
    // Arrange
    const deps = await fakeDeps({ engine: new FakeDocumentEngine({ pageCount: 26 }) });
    // Act
    const result = await upload(deps, OTHER_API_KEY);
    // Assert
    expect(result.statusCode).toBe(402);
    expect(bodyOf(result)).toEqual({
      detail:
        'the free plan allows 25 pages per day; 0 are used today and this document has 26; the count resets at 2025-03-05T00:00:00Z (UTC midnight); set max_pages to 25 or less to parse the first pages now',
    });
  });
});
