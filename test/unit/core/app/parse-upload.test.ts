import { describe, expect, it } from 'vitest';
import {
  ParseFailedError,
  failureOf,
  parseUpload,
  submitUpload,
  type UploadedDocument,
} from '../../../../functions/core/app/parse-upload.js';
import { resultView } from '../../../../functions/core/app/stored-result.js';
import { getParseResult } from '../../../../functions/core/app/parse-result-body.js';
import {
  BadRequestError,
  NotFoundError,
  PayloadTooLargeError,
  UnsupportedDocumentError,
} from '../../../../functions/core/domain/errors.js';
import { ParseResponse } from '../../../../functions/core/domain/schemas.js';
import {
  FakeDocumentEngine,
  FakePageProvider,
  OTHER_TENANT,
  TENANT,
  TINY_PDF,
  T0,
  anAppWorld,
  parseOptions,
} from '../../../support/builders.js';
import { ProviderUnavailableError } from '../../../../functions/core/domain/errors.js';

function anUpload(overrides: Partial<UploadedDocument> = {}): UploadedDocument {
  return {
    tenant: TENANT,
    bytes: TINY_PDF,
    filename: 'report.pdf',
    options: parseOptions(),
    ...overrides,
  };
}

const hallucinating = () =>
  new FakePageProvider('pdf-text', { markdown: 'Completely invented figures about dragons.' });

describe('submitUpload', () => {
  it('stores the bytes and creates a queued request record', async () => {
    // Arrange
    const world = await anAppWorld();
    // Act
    const record = await submitUpload(world, anUpload());
    // Assert
    expect(record).toMatchObject({
      id: 'req_id0001',
      tenant: TENANT,
      status: 'queued',
      createdAt: T0.toISOString(),
      document: {
        key: 'uploads/req_id0001/document',
        format: 'pdf',
        filename: 'report.pdf',
        sizeBytes: TINY_PDF.byteLength,
      },
    });
    expect(record.document.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await world.objects.get(record.document.key)).toEqual(TINY_PDF);
    expect(world.objects.contentTypeOf(record.document.key)).toBe('application/pdf');
    expect(await world.requests.get(record.id)).toEqual(record);
  });

  it('rejects a file over the maximum upload size with PayloadTooLargeError', async () => {
    // Arrange
    const world = await anAppWorld({ maxUploadBytes: 100 });
    // Act
    const result = submitUpload(world, anUpload({ bytes: new Uint8Array(101) }));
    // Assert
    await expect(result).rejects.toBeInstanceOf(PayloadTooLargeError);
    await expect(result).rejects.toThrow(
      'the file is 101 bytes; the maximum upload size is 100 bytes',
    );
    expect(world.objects.keys()).toEqual([]);
  });

  it('accepts a file of exactly the maximum upload size', async () => {
    // Arrange
    const bytes = new Uint8Array(TINY_PDF.byteLength);
    bytes.set(TINY_PDF);
    const world = await anAppWorld({ maxUploadBytes: TINY_PDF.byteLength });
    // Act
    const record = await submitUpload(world, anUpload({ bytes }));
    // Assert
    expect(record.document.sizeBytes).toBe(TINY_PDF.byteLength);
  });

  it('rejects an empty file with BadRequestError', async () => {
    // Arrange
    const world = await anAppWorld();
    // Act
    const result = submitUpload(world, anUpload({ bytes: new Uint8Array(0) }));
    // Assert
    await expect(result).rejects.toBeInstanceOf(BadRequestError);
    await expect(result).rejects.toThrow('the uploaded file is empty (0 bytes)');
  });

  it('rejects unsupported bytes with UnsupportedDocumentError naming the detected type', async () => {
    // Arrange
    const world = await anAppWorld();
    const gif = new TextEncoder().encode('GIF89a\u0001\u0000\u0001\u0000');
    // Act
    const result = submitUpload(world, anUpload({ bytes: gif, filename: 'report.pdf' }));
    // Assert
    await expect(result).rejects.toBeInstanceOf(UnsupportedDocumentError);
    await expect(result).rejects.toThrow(/unsupported file type: the content is GIF image/);
    expect(await world.requests.get('req_id0001')).toBeUndefined();
  });
});

describe('parseUpload', () => {
  it('runs the workflow and returns a ParseResponse that passes the specification schema', async () => {
    // Arrange
    const world = await anAppWorld({ engine: new FakeDocumentEngine({ pageCount: 2 }) });
    // Act
    const response = await parseUpload(world, anUpload());
    // Assert
    expect(ParseResponse.parse(response)).toMatchObject({
      id: 'req_id0001',
      status: 'completed',
      document: { pages: 2, format: 'pdf', filename: 'report.pdf' },
      usage: { pages_by_tier: { fast: 2, pro: 0, premium: 0 }, estimated_cost_usd: 0.002 },
    });
    expect(world.workflow.ran).toEqual([
      'Ingest',
      'Classify',
      'Route',
      'ParsePage',
      'ParsePage',
      'Verify',
      'Deliver',
    ]);
  });

  it('starts the execution with the request id and page concurrency and records the execution id', async () => {
    // Arrange
    const world = await anAppWorld();
    // Act
    await parseUpload(world, anUpload());
    // Assert
    expect(world.workflow.inputs).toEqual([
      { requestId: 'req_id0001', settings: { pageConcurrency: 2 } },
    ]);
    expect((await world.requests.get('req_id0001'))?.executionId).toBe(
      world.workflow.executionIdFor('req_id0001'),
    );
  });

  it('omits page warnings unless include_warnings is set', async () => {
    // Arrange
    const world = await anAppWorld({ textProvider: hallucinating() });
    // Act
    const response = await parseUpload(world, anUpload());
    // Assert
    expect(response.pages[0]).not.toHaveProperty('warnings');
  });

  it('includes page warnings when include_warnings is set', async () => {
    // Arrange
    const world = await anAppWorld({ textProvider: hallucinating() });
    // Act
    const response = await parseUpload(
      world,
      anUpload({ options: parseOptions({ include_warnings: true }) }),
    );
    // Assert
    expect(response.pages[0]?.warnings?.map((w) => w.kind)).toEqual(['potential_hallucination']);
  });

  it('rejects with ParseFailedError of kind unprocessable when the pipeline rejects the document', async () => {
    // Arrange
    const world = await anAppWorld({ engine: new FakeDocumentEngine({ pageCount: 0 }) });
    // Act
    const result = parseUpload(world, anUpload());
    // Assert
    await expect(result).rejects.toMatchObject({
      name: 'ParseFailedError',
      kind: 'unprocessable',
      message: 'the document has no pages',
    });
    expect(world.workflow.ran).toEqual(['Ingest', 'RecordFailure']);
  });

  it('rejects with ParseFailedError of kind invalid for a recognised format without an engine', async () => {
    // Arrange
    const world = await anAppWorld({ formats: ['png'] });
    // Act
    const result = parseUpload(world, anUpload());
    // Assert
    await expect(result).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('rejects with ParseFailedError of kind unavailable when no provider can take a page', async () => {
    // Arrange
    const failing = new FakePageProvider('pdf-text', () => {
      throw new ProviderUnavailableError('all models busy');
    });
    const failingOcr = new FakePageProvider('ocr', () => {
      throw new ProviderUnavailableError('ocr busy');
    });
    const world = await anAppWorld({ textProvider: failing, ocrProvider: failingOcr });
    // Act
    const result = parseUpload(world, anUpload());
    // Assert
    await expect(result).rejects.toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('every provider of the fast tier failed') as string,
    });
  });

  it('rejects with a plain error naming the failure when a stage fails unexpectedly', async () => {
    // Arrange
    const broken = new FakePageProvider('pdf-text', () => {
      throw new TypeError('cannot read properties of undefined');
    });
    const world = await anAppWorld({ textProvider: broken });
    // Act
    const result = parseUpload(world, anUpload());
    // Assert
    await expect(result).rejects.not.toBeInstanceOf(ParseFailedError);
    await expect(result).rejects.toThrow('TypeError: cannot read properties of undefined');
  });

  it('rejects when the execution ends without a completed or failed record', async () => {
    // Arrange
    const world = await anAppWorld();
    world.workflow.start = () => Promise.resolve({ executionId: 'in-process:none' });
    world.workflow.wait = () => Promise.resolve({ status: 'ABORTED' });
    // Act
    const result = parseUpload(world, anUpload());
    // Assert
    await expect(result).rejects.toThrow('parse req_id0001 ended in status queued');
  });
});

describe('failureOf', () => {
  it.each(['invalid', 'unprocessable', 'too_large', 'unavailable'])(
    'keeps the kind %s for the API',
    (kind) => {
      // Act
      const error = failureOf({ name: 'X', kind, message: 'm' });
      // Assert
      expect(error).toBeInstanceOf(ParseFailedError);
      expect(error).toMatchObject({ kind, message: 'm' });
    },
  );

  it.each(['internal', 'not_found', 'conflict'])('turns kind %s into a server error', (kind) => {
    // Act
    const error = failureOf({ name: 'NotFoundError', kind, message: 'page 2 was not routed' });
    // Assert
    expect(error).not.toBeInstanceOf(ParseFailedError);
    expect(error.message).toBe('NotFoundError: page 2 was not routed');
  });
});

describe('getParseResult', () => {
  it('returns the stored ParseResponse of a completed request', async () => {
    // Arrange
    const world = await anAppWorld();
    const parsed = await parseUpload(world, anUpload());
    // Act
    const result = await getParseResult(world, TENANT, parsed.id, false);
    // Assert
    expect(result).toEqual(parsed);
  });

  it('returns the status and document of a request still in progress', async () => {
    // Arrange
    const world = await anAppWorld();
    const record = await submitUpload(world, anUpload());
    // Act
    const result = await getParseResult(world, TENANT, record.id, false);
    // Assert
    expect(result).toEqual({
      id: record.id,
      status: 'queued',
      document: {
        hash: record.document.hash,
        pages: 0,
        format: 'pdf',
        cached: false,
        filename: 'report.pdf',
        size_bytes: TINY_PDF.byteLength,
      },
      pages: [],
      extracted: null,
      document_type: null,
      created_at: T0.toISOString(),
      errors: [],
    });
  });

  it('returns the failure message of a failed request', async () => {
    // Arrange
    const world = await anAppWorld({ engine: new FakeDocumentEngine({ pageCount: 0 }) });
    await parseUpload(world, anUpload()).catch(() => undefined);
    // Act
    const result = await getParseResult(world, TENANT, 'req_id0001', false);
    // Assert
    expect(result).toMatchObject({ status: 'failed', detail: 'the document has no pages' });
  });

  it('rejects another tenant with the same NotFoundError as an unknown id', async () => {
    // Arrange
    const world = await anAppWorld();
    const parsed = await parseUpload(world, anUpload());
    // Act
    const foreign = await getParseResult(world, OTHER_TENANT, parsed.id, false).catch(
      (e: unknown) => e,
    );
    const unknown = await getParseResult(world, TENANT, 'req_id0009', false).catch(
      (e: unknown) => e,
    );
    // Assert
    expect(foreign).toBeInstanceOf(NotFoundError);
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect((foreign as Error).message).toBe(`parse request ${parsed.id} not found`);
    expect((unknown as Error).message).toBe('parse request req_id0009 not found');
  });
});

describe('resultView', () => {
  it('drops warnings without include_warnings and adds an empty list with it', async () => {
    // Arrange
    const world = await anAppWorld();
    const response = await parseUpload(world, anUpload());
    const withoutWarnings = { ...response, pages: response.pages.map((p) => ({ ...p })) };
    // Act
    const hidden = resultView(withoutWarnings, false);
    const shown = resultView(withoutWarnings, true);
    // Assert
    expect(hidden.pages[0]).not.toHaveProperty('warnings');
    expect(shown.pages[0]?.warnings).toEqual([]);
  });
});
