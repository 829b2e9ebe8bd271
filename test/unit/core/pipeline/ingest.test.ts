import { describe, expect, it } from 'vitest';
import {
  DocumentRejectedError,
  NotFoundError,
  UnsupportedDocumentError,
} from '../../../../functions/core/domain/errors.js';
import { ingest } from '../../../../functions/core/domain/pipeline/ingest.js';
import {
  FakeDocumentEngine,
  aPipeline,
  aRequestRecord,
  aStoredRequest,
  eventsOf,
  parseOptions,
  progressTo,
} from '../../../support/builders.js';

describe('ingest', () => {
  it('counts the pages, marks the request processing and emits ingest.start', async () => {
    // Arrange
    const world = aPipeline({ engine: new FakeDocumentEngine({ pageCount: 3 }) });
    const record = await aStoredRequest(world);
    // Act
    const output = await ingest(
      { requestId: record.id },
      world,
      progressTo(world.events, record.id),
    );
    // Assert
    expect(output).toEqual({ requestId: record.id, pageCount: 3 });
    const stored = await world.requests.get(record.id);
    expect(stored?.status).toBe('processing');
    expect(stored?.document.pageCount).toBe(3);
    expect(stored?.timings?.ingest_ms).toBe(0);
    expect(world.engine.opened).toEqual([
      { key: record.document.key, format: 'pdf', hash: record.document.hash },
    ]);
    expect(await eventsOf(world.events, record.id)).toEqual([
      { event: 'ingest.start', page_count: 3 },
    ]);
  });

  it('reports only the first max_pages pages for processing', async () => {
    // Arrange
    const world = aPipeline({ engine: new FakeDocumentEngine({ pageCount: 10 }) });
    const record = await aStoredRequest(world, { options: parseOptions({ max_pages: 4 }) });
    // Act
    const output = await ingest(
      { requestId: record.id },
      world,
      progressTo(world.events, record.id),
    );
    // Assert
    expect(output.pageCount).toBe(4);
    expect((await world.requests.get(record.id))?.document.pageCount).toBe(10);
    expect(await eventsOf(world.events, record.id)).toEqual([
      { event: 'ingest.start', page_count: 4 },
    ]);
  });

  it('accepts a long document when max_pages brings it under the cap', async () => {
    // Arrange
    const world = aPipeline({
      engine: new FakeDocumentEngine({ pageCount: 50 }),
      settings: { maxDocumentPages: 5 },
    });
    const record = await aStoredRequest(world, { options: parseOptions({ max_pages: 5 }) });
    // Act
    const output = await ingest(
      { requestId: record.id },
      world,
      progressTo(world.events, record.id),
    );
    // Assert
    expect(output.pageCount).toBe(5);
  });

  it('rejects a document with zero pages with DocumentRejectedError', async () => {
    // Arrange
    const world = aPipeline({ engine: new FakeDocumentEngine({ pageCount: 0 }) });
    const record = await aStoredRequest(world);
    // Act
    const result = ingest({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    await expect(result).rejects.toThrow(DocumentRejectedError);
    await expect(result).rejects.toThrow('the document has no pages');
    expect((await world.requests.get(record.id))?.status).toBe('queued');
  });

  it('rejects more pages than the cap with DocumentRejectedError saying how to fix it', async () => {
    // Arrange
    const world = aPipeline({
      engine: new FakeDocumentEngine({ pageCount: 12 }),
      settings: { maxDocumentPages: 10 },
    });
    const record = await aStoredRequest(world);
    // Act
    const result = ingest({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    await expect(result).rejects.toBeInstanceOf(DocumentRejectedError);
    await expect(result).rejects.toThrow(
      'the document has 12 pages and at most 10 are parsed per request; set max_pages to 10 or less',
    );
    expect(await eventsOf(world.events, record.id)).toEqual([]);
  });

  it('rejects a max_pages above the cap for a document longer than the cap', async () => {
    // Arrange
    const world = aPipeline({
      engine: new FakeDocumentEngine({ pageCount: 30 }),
      settings: { maxDocumentPages: 10 },
    });
    const record = await aStoredRequest(world, { options: parseOptions({ max_pages: 20 }) });
    // Act
    const result = ingest({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    await expect(result).rejects.toBeInstanceOf(DocumentRejectedError);
  });

  it('rejects a format without an engine with UnsupportedDocumentError naming the format', async () => {
    // Arrange
    const world = aPipeline({ formats: ['pdf'] });
    const base = aRequestRecord();
    const record = await aStoredRequest(world, { document: { ...base.document, format: 'docx' } });
    // Act
    const result = ingest({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    await expect(result).rejects.toBeInstanceOf(UnsupportedDocumentError);
    await expect(result).rejects.toThrow(/no engine for docx documents/);
    expect(world.engine.opened).toEqual([]);
  });

  it('throws NotFoundError for an unknown request', async () => {
    // Arrange
    const world = aPipeline();
    // Act
    const result = ingest(
      { requestId: 'req_missing' },
      world,
      progressTo(world.events, 'req_missing'),
    );
    // Assert
    await expect(result).rejects.toBeInstanceOf(NotFoundError);
  });
});
