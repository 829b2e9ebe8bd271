import { describe, expect, it } from 'vitest';
import { parseUrl, submitUrlParse } from '../../../../functions/core/app/parse-upload.js';
import { InvalidExtractionSchemaError } from '../../../../functions/core/domain/errors.js';
import type { ResultCaching } from '../../../../functions/core/domain/result-cache.js';
import type { DocumentFetcher } from '../../../../functions/core/ports/document-fetcher.js';
import { TENANT, TINY_PDF, anAppWorld, parseOptions } from '../../../support/builders.js';
import { InMemoryResultCache } from '../../../support/fake-result-cache.js';

const URL = 'https://files.example.com/report.pdf';

/** A fetcher that serves TINY_PDF as `report.pdf` and records the URLs it was asked for. */
function aFetcher(): DocumentFetcher & { fetched: string[] } {
  const fetched: string[] = [];
  return {
    fetched,
    fetch: (url) => {
      fetched.push(url);
      return Promise.resolve({
        bytes: TINY_PDF,
        contentType: 'application/pdf',
        finalUrl: url,
        filename: 'report.pdf',
      });
    },
  };
}

/** An application world with a result cache (the same object the stages are bound to). */
async function aCachingWorld() {
  const resultCache: ResultCaching = {
    store: new InMemoryResultCache(),
    configVersion: 'v1',
    retentionMs: 24 * 60 * 60 * 1000,
  };
  return Object.assign(await anAppWorld(), { resultCache });
}

const aUrlRequest = (overrides: { refreshCache?: boolean } = {}) => ({
  tenant: TENANT,
  fileUrl: URL,
  options: parseOptions(),
  ...overrides,
});

describe('parseUrl', () => {
  it('downloads the document and answers with the ParseResponse of the downloaded file', async () => {
    // Arrange
    const world = await anAppWorld();
    const fetcher = aFetcher();
    // Act
    const response = await parseUrl(world, fetcher, aUrlRequest());
    // Assert
    expect(fetcher.fetched).toEqual([URL]);
    expect(response.document).toMatchObject({ filename: 'report.pdf', cached: false });
  });

  it('answers a second download of the same document from the result cache, and afresh with refreshCache', async () => {
    // Arrange
    const world = await aCachingWorld();
    const fetcher = aFetcher();
    await parseUrl(world, fetcher, aUrlRequest());
    // Act
    const cached = await parseUrl(world, fetcher, aUrlRequest());
    const fresh = await parseUrl(world, fetcher, aUrlRequest({ refreshCache: true }));
    // Assert
    expect(cached.document.cached).toBe(true);
    expect(fresh.document.cached).toBe(false);
  });

  it('rejects an extract request without a schema before downloading anything', async () => {
    // Arrange
    const world = await anAppWorld();
    const fetcher = aFetcher();
    const request = { ...aUrlRequest(), options: parseOptions({ operation_mode: 'extract' }) };
    // Act
    const result = parseUrl(world, fetcher, request);
    // Assert
    await expect(result).rejects.toBeInstanceOf(InvalidExtractionSchemaError);
    expect(fetcher.fetched).toEqual([]);
  });
});

describe('submitUrlParse', () => {
  it('queues the downloaded document and starts its parse', async () => {
    // Arrange
    const world = await anAppWorld();
    const fetcher = aFetcher();
    // Act
    const view = await submitUrlParse(world, fetcher, aUrlRequest());
    // Assert
    expect(view).toMatchObject({ status: 'queued', document: { filename: 'report.pdf' } });
    expect(world.workflow.inputs).toContainEqual(expect.objectContaining({ requestId: view.id }));
  });

  it('answers from the result cache, and queues a fresh parse with refreshCache', async () => {
    // Arrange
    const world = await aCachingWorld();
    const fetcher = aFetcher();
    await parseUrl(world, fetcher, aUrlRequest());
    // Act
    const cached = await submitUrlParse(world, fetcher, aUrlRequest());
    const fresh = await submitUrlParse(world, fetcher, aUrlRequest({ refreshCache: true }));
    // Assert
    expect(cached).toMatchObject({ status: 'completed', document: { cached: true } });
    expect(fresh).toMatchObject({ status: 'queued', document: { cached: false } });
  });

  it('rejects an extract request without a schema before downloading anything', async () => {
    // Arrange
    const world = await anAppWorld();
    const fetcher = aFetcher();
    const request = { ...aUrlRequest(), options: parseOptions({ operation_mode: 'extract' }) };
    // Act
    const result = submitUrlParse(world, fetcher, request);
    // Assert
    await expect(result).rejects.toBeInstanceOf(InvalidExtractionSchemaError);
    expect(fetcher.fetched).toEqual([]);
  });
});
