import { describe, expect, it } from 'vitest';
import { cancelParse } from '../../../../functions/core/app/parse-control.js';
import { parseUpload, submitUpload } from '../../../../functions/core/app/parse-upload.js';
import {
  DocumentRejectedError,
  PlanLimitError,
  ProviderUnavailableError,
} from '../../../../functions/core/domain/errors.js';
import { ingest } from '../../../../functions/core/domain/pipeline/ingest.js';
import { recordFailure } from '../../../../functions/core/domain/pipeline/record-failure.js';
import type { DocumentInspection } from '../../../../functions/core/ports/document-engine.js';
import {
  FakeDocumentEngine,
  FakePageProvider,
  T0,
  TENANT,
  TINY_PDF,
  aPipeline,
  aProviderResult,
  aStoredRequest,
  anAppWorld,
  parseOptions,
  progressTo,
  scannedPageFeatures,
  type AppWorld,
} from '../../../support/builders.js';

const DAY = '2025-03-04';

/** An engine that opens every document but cannot inspect its pages (Classify fails). */
class UninspectableEngine extends FakeDocumentEngine {
  override inspect(): Promise<DocumentInspection> {
    return Promise.reject(new DocumentRejectedError('the pages cannot be read'));
  }
}

const upload = (options = parseOptions()) => ({
  tenant: TENANT,
  plan: 'free' as const,
  bytes: TINY_PDF,
  filename: 'report.pdf',
  options,
});

describe('daily pages in the pipeline', () => {
  it('reserves the pages to be processed (after max_pages) when Ingest counts them', async () => {
    // Arrange
    const world = aPipeline({ engine: new FakeDocumentEngine({ pageCount: 30 }) });
    const record = await aStoredRequest(world, {
      plan: 'free',
      options: parseOptions({ max_pages: 4 }),
    });
    // Act
    await ingest({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    const stored = await world.requests.get(record.id);
    expect(stored?.status).toBe('processing');
    expect(stored?.reservedPages).toEqual({ day: DAY, pages: 4, reservedAt: T0.toISOString() });
    expect(await world.usage.pagesUsed(TENANT, DAY)).toBe(4);
  });

  it('does not count a retried Ingest twice', async () => {
    // Arrange
    const world = aPipeline({ engine: new FakeDocumentEngine({ pageCount: 3 }) });
    const record = await aStoredRequest(world, { plan: 'free' });
    await ingest({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Act
    await ingest({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    expect(await world.usage.pagesUsed(TENANT, DAY)).toBe(3);
  });

  it('fails Ingest with PlanLimitError before the request is marked processing', async () => {
    // Arrange
    const world = aPipeline({ engine: new FakeDocumentEngine({ pageCount: 26 }) });
    const record = await aStoredRequest(world, { plan: 'free' });
    // Act
    const result = ingest({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    await expect(result).rejects.toBeInstanceOf(PlanLimitError);
    expect((await world.requests.get(record.id))?.status).toBe('queued');
    expect(await world.usage.pagesUsed(TENANT, DAY)).toBe(0);
  });

  it('gives the pages back when RecordFailure records a failure', async () => {
    // Arrange
    const world = aPipeline({ engine: new FakeDocumentEngine({ pageCount: 5 }) });
    const record = await aStoredRequest(world, { plan: 'free' });
    await ingest({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Act
    await recordFailure(
      { requestId: record.id, failure: { Error: 'ProviderUnavailableError', Cause: 'down' } },
      world,
    );
    // Assert
    expect(await world.usage.pagesUsed(TENANT, DAY)).toBe(0);
    const stored = await world.requests.get(record.id);
    expect(stored?.status).toBe('failed');
    expect(stored?.reservedPages).toBeUndefined();
  });

  it('records the plan of the submitting key, and none without one', async () => {
    // Arrange
    const world = await anAppWorld();
    // Act
    const metered = await submitUpload(world, upload());
    const unmetered = await submitUpload(world, { ...upload(), plan: undefined });
    // Assert
    expect(metered.plan).toBe('free');
    expect((await world.requests.get(unmetered.id))?.plan).toBeUndefined();
  });

  it('answers the 26th free page of a day with a plan_limit failure carrying the detail', async () => {
    // Arrange
    const world = await anAppWorld({ engine: new FakeDocumentEngine({ pageCount: 20 }) });
    await parseUpload(world, upload());
    // Act
    const result = parseUpload(world, upload(parseOptions({ max_pages: 6 })));
    // Assert
    await expect(result).rejects.toMatchObject({
      name: 'ParseFailedError',
      kind: 'plan_limit',
      message:
        'the free plan allows 25 pages per day; 20 are used today and this request parses 6 (max_pages); the count resets at 2025-03-05T00:00:00Z (UTC midnight); set max_pages to 5 or less to parse the first pages now',
    });
    expect(await world.usage.pagesUsed(TENANT, DAY)).toBe(20);
  });

  it('gives the pages of a failed parse back, so they can be used again', async () => {
    // Arrange
    const world = await anAppWorld({ engine: new UninspectableEngine({ pageCount: 25 }) });
    // Act
    const failed = parseUpload(world, upload());
    // Assert
    await expect(failed).rejects.toMatchObject({ kind: 'unprocessable' });
    expect(world.workflow.ran).toEqual(['Ingest', 'Classify', 'RecordFailure']);
    expect(await world.usage.pagesUsed(TENANT, DAY)).toBe(0);
  });

  /**
   * An app world over a 6-page scan whose OCR provider runs `onPage` before answering each page
   * (the state machine's Map runs one page at a time here, so the pages before it are known).
   */
  async function sixPageScan(onPage: (world: AppWorld, page: number) => Promise<void>) {
    const holder: { world?: AppWorld } = {};
    const ocr = new FakePageProvider('ocr', async (request) => {
      if (holder.world) await onPage(holder.world, request.pageNumber);
      return aProviderResult({ markdown: `page ${request.pageNumber}` });
    });
    const world = await anAppWorld({
      engine: new FakeDocumentEngine({ pageCount: 6, features: scannedPageFeatures }),
      ocrProvider: ocr,
      pageConcurrency: 1,
    });
    holder.world = world;
    return { world, ocr };
  }

  const noVerification = () => upload(parseOptions({ enable_verification: false }));

  it('keeps the pages parsed before a cancel counted, the one in flight included', async () => {
    // Arrange: the parse is cancelled while page 3 of 6 is with the provider.
    const { world, ocr } = await sixPageScan(async (w, page) => {
      if (page === 3) await cancelParse(w, TENANT, 'req_id0001');
    });
    // Act
    const cancelled = await parseUpload(world, noVerification()).catch((e: unknown) => e);
    // Assert
    expect(cancelled).toMatchObject({ name: 'ParseCancelledError' });
    expect(ocr.calls.map((c) => c.pageNumber)).toEqual([1, 2, 3]);
    expect(await world.usage.pagesUsed(TENANT, DAY)).toBe(3);
    const record = await world.requests.get('req_id0001');
    expect(record?.status).toBe('cancelled');
    expect(record?.chargedPages).toEqual([1, 2, 3]);
    expect(record?.reservedPages).toBeUndefined();
  });

  it('cannot be gamed by submit and cancel: each loop keeps its parsed pages counted', async () => {
    // Arrange: every parse is cancelled while its second page is with the provider.
    let current = 0;
    const { world } = await sixPageScan(async (w, page) => {
      if (page === 2) await cancelParse(w, TENANT, `req_id${String(current).padStart(4, '0')}`);
    });
    // Act: 12 loops of a 6-page document for a free plan of 25 pages a day.
    const outcomes: string[] = [];
    for (let loop = 0; loop < 12; loop++) {
      current = loop + 1;
      const result = await parseUpload(world, noVerification()).catch((e: unknown) => e);
      const { name, kind } = result as { name: string; kind: string };
      outcomes.push(name === 'ParseCancelledError' ? 'cancelled' : kind);
    }
    // Assert: 2 pages per loop stay counted, so the 11th loop's 6 pages no longer fit in 25.
    expect(outcomes).toEqual([...Array<string>(10).fill('cancelled'), 'plan_limit', 'plan_limit']);
    expect(await world.usage.pagesUsed(TENANT, DAY)).toBe(20);
  });

  it('keeps the pages parsed before a failure counted and gives back the rest', async () => {
    // Arrange: the provider fails page 4 of 6 (after retries, the parse fails).
    const { world } = await sixPageScan((_, page) =>
      page === 4
        ? Promise.reject(new ProviderUnavailableError('the model server went away'))
        : Promise.resolve(),
    );
    // Act
    const failed = await parseUpload(world, noVerification()).catch((e: unknown) => e);
    // Assert
    expect(failed).toMatchObject({ kind: 'unavailable' });
    expect(await world.usage.pagesUsed(TENANT, DAY)).toBe(3);
    const record = await world.requests.get('req_id0001');
    expect(record?.status).toBe('failed');
    expect(record?.chargedPages).toEqual([1, 2, 3]);
  });

  it('keeps every page counted when Deliver fails after all pages were parsed', async () => {
    // Arrange
    const { world } = await sixPageScan(() => Promise.resolve());
    const deliver = world.objects.put.bind(world.objects);
    world.objects.put = (key, body, type) =>
      key.startsWith('results/')
        ? Promise.reject(new Error('S3 is unavailable'))
        : deliver(key, body, type);
    // Act
    const failed = await parseUpload(world, noVerification()).catch((e: unknown) => e);
    // Assert
    expect(failed).toBeInstanceOf(Error);
    expect(world.workflow.ran).toContain('Deliver');
    expect(world.workflow.ran.at(-1)).toBe('RecordFailure');
    expect(await world.usage.pagesUsed(TENANT, DAY)).toBe(6);
  });

  it('counts a page once when it falls over from one provider to the next', async () => {
    // Arrange: the text-layer provider fails page 2, which the OCR provider then parses.
    const text = new FakePageProvider('pdf-text', (request) => {
      if (request.pageNumber === 2) throw new ProviderUnavailableError('text layer unreadable');
      return aProviderResult({ markdown: `page ${request.pageNumber}` });
    });
    const world = await anAppWorld({
      engine: new FakeDocumentEngine({ pageCount: 3 }),
      textProvider: text,
    });
    // Act
    const response = await parseUpload(world, noVerification());
    // Assert
    expect(response.pages.map((p) => p.provider)).toEqual(['pdf-text', 'ocr', 'pdf-text']);
    expect((await world.requests.get(response.id))?.chargedPages).toEqual([1, 2, 3]);
    expect(await world.usage.pagesUsed(TENANT, DAY)).toBe(3);
  });
});
