import { describe, expect, it } from 'vitest';
import { ProviderUnavailableError } from '../../../../functions/core/domain/errors.js';
import { extractDocument } from '../../../../functions/core/domain/pipeline/extract.js';
import type { Page } from '../../../../functions/core/domain/schemas.js';
import type {
  StructuredExtractionRequest,
  StructuredExtractor,
} from '../../../../functions/core/ports/structured-extractor.js';
import { aPipeline, ManualClock } from '../../../support/builders.js';

const SCHEMA = { type: 'object', properties: { total: { type: 'number' } } };
const DOCUMENT = { key: 'uploads/r1/document', format: 'pdf' as const, hash: 'abc' };
const PAGES = [{ page_number: 1, content_markdown: 'Total: 12.50' } as Page];

/** An extractor answering `data`, which keeps the requests it was sent. */
function answering(id: string, data: Record<string, unknown>) {
  const requests: StructuredExtractionRequest[] = [];
  const extractor: StructuredExtractor = {
    id,
    model: `${id}-model`,
    extract: (request) => {
      requests.push(request);
      return Promise.resolve({ data, model: `${id}-model`, tokens: { input: 0, output: 0 } });
    },
  };
  return { extractor, requests };
}

describe('extractDocument', () => {
  it("ends the chain with the ports' offline extractor, sent the pages' Markdown", async () => {
    const offline = answering('offline-fake', { total: 12.5 });
    const { providers } = aPipeline();
    const ports = { providers, offlineExtractor: offline.extractor, clock: new ManualClock() };

    const outcome = await extractDocument(ports, SCHEMA, PAGES, DOCUMENT);

    expect(outcome).toMatchObject({
      extracted: { total: 12.5 },
      errors: [],
      providerId: 'offline-fake',
      model: 'offline-fake-model',
      costUsd: 0,
      failovers: [],
    });
    expect(offline.requests).toEqual([
      { schema: SCHEMA, pages: [{ pageNumber: 1, markdown: 'Total: 12.50' }], document: DOCUMENT },
    ]);
  });

  it("falls over from a remote extractor's retryable failure to the ports' offline extractor", async () => {
    const offline = answering('offline-fake', { total: 12.5 });
    const providers = {
      ...aPipeline().providers,
      extractionChain: () => ['remote'],
      extractor: (): StructuredExtractor => ({
        id: 'remote',
        model: 'remote-model',
        extract: () => Promise.reject(new ProviderUnavailableError('remote is down')),
      }),
    };
    const ports = { providers, offlineExtractor: offline.extractor, clock: new ManualClock() };

    const outcome = await extractDocument(ports, SCHEMA, PAGES, DOCUMENT);

    expect(outcome.providerId).toBe('offline-fake');
    expect(outcome.failovers).toEqual([{ providerId: 'remote', reason: 'remote is down' }]);
    expect(offline.requests).toHaveLength(1);
  });
});
