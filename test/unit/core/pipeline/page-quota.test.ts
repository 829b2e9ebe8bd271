import { describe, expect, it } from 'vitest';
import { parseUpload, submitUpload } from '../../../../functions/core/app/parse-upload.js';
import { DocumentRejectedError, PlanLimitError } from '../../../../functions/core/domain/errors.js';
import { ingest } from '../../../../functions/core/domain/pipeline/ingest.js';
import { recordFailure } from '../../../../functions/core/domain/pipeline/record-failure.js';
import type { DocumentInspection } from '../../../../functions/core/ports/document-engine.js';
import {
  FakeDocumentEngine,
  T0,
  TENANT,
  TINY_PDF,
  aPipeline,
  aStoredRequest,
  anAppWorld,
  parseOptions,
  progressTo,
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
});
