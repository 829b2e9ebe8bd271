import { describe, expect, it } from 'vitest';
import { createHandler } from '../../../functions/api/parse-structured.handler.js';
import { type ApiHandler } from '../../../functions/api/streaming.js';
import { invokeBuffered } from '../../support/invoke-buffered.js';
import { DEFAULT_STRUCTURED_MODEL } from '../../../functions/core/app/structured.js';
import { HTTPValidationError, StructuredResult } from '../../../functions/core/domain/schemas.js';
import type {
  OpenedStructureDocument,
  PageRegions,
  StructureExtractor,
} from '../../../functions/core/ports/structure-extractor.js';
import {
  anUploadEvent,
  bodyOf,
  fakeDeps,
  lambdaContext,
  type FakeDeps,
} from '../../support/builders.js';

/** An extractor that finds one 2 × 2 table on every page of a one-page document. */
class OneTableExtractor implements StructureExtractor {
  readonly model = DEFAULT_STRUCTURED_MODEL;

  open(): Promise<OpenedStructureDocument> {
    const page: PageRegions = {
      pageNumber: 1,
      width: 1224,
      height: 1584,
      dpi: 144,
      source: 'text_layer',
      notes: [],
      regions: [
        {
          kind: 'table',
          bbox: [100, 200, 700, 400],
          cells: [
            { row: 0, col: 0, rowSpan: 1, colSpan: 2, text: 'Results' },
            { row: 1, col: 0, rowSpan: 1, colSpan: 1, text: 'ours' },
            { row: 1, col: 1, rowSpan: 1, colSpan: 1, text: '0.91' },
          ],
        },
      ],
    };
    return Promise.resolve({
      pageCount: 1,
      extractPage: () => Promise.resolve(page),
      close: () => Promise.resolve(),
    });
  }
}

async function call(
  options: Parameters<typeof anUploadEvent>[0] = {},
  extractor: StructureExtractor | null = new OneTableExtractor(),
) {
  const deps: FakeDeps = await fakeDeps();
  if (extractor) deps.structure = extractor;
  const event = { ...anUploadEvent(options), path: '/v1/parse/structured' };
  const result = await invokeBuffered(
    createHandler(() => Promise.resolve(deps)) as ApiHandler,
    event,
    lambdaContext('parse-structured'),
  );
  return { status: result.statusCode, body: bodyOf(result) };
}

describe('POST /v1/parse/structured', () => {
  it('answers 200 with the Structured result of the uploaded file', async () => {
    // Act
    const { status, body } = await call();
    // Assert
    expect(status).toBe(200);
    const result = StructuredResult.parse(body);
    expect(result.blocks).toEqual([
      {
        type: 'table',
        table_id: 'table_1',
        page: 1,
        bbox: [100, 200, 700, 400],
        cells: [
          { row: 0, col: 0, text: 'Results', row_span: 1, col_span: 2 },
          { row: 1, col: 0, text: 'ours', row_span: 1, col_span: 1 },
          { row: 1, col: 1, text: '0.91', row_span: 1, col_span: 1 },
        ],
      },
    ]);
    expect(body.pages).toEqual([
      { page: 1, width: 1224, height: 1584, dpi: 144, source: 'text_layer' },
    ]);
  });

  it('fails with 422 and the validation body for an unknown model', async () => {
    // Act
    const { status, body } = await call({ fields: { model: 'no-such-model' } });
    // Assert
    expect(status).toBe(422);
    expect(HTTPValidationError.parse(body).detail[0]?.loc).toEqual(['body', 'model']);
  });

  it('fails with 422 for max_pages that is not an integer', async () => {
    // Act
    const { status, body } = await call({ fields: { max_pages: 'two' } });
    // Assert
    expect(status).toBe(422);
    expect(HTTPValidationError.parse(body).detail[0]?.loc).toEqual(['body', 'max_pages']);
  });

  it('fails with 400 for both a file and an upload_id, or neither', async () => {
    // Act
    const both = await call({ fields: { upload_id: 'upl_abc123' } });
    const neither = await call({ file: null });
    // Assert
    expect(both.status).toBe(400);
    expect(neither.status).toBe(400);
  });

  it('fails with 401 without an API key', async () => {
    // Act
    const { status } = await call({ apiKey: null });
    // Assert
    expect(status).toBe(401);
  });

  it('fails with 503 where no extractor is deployed', async () => {
    // Act
    const { status, body } = await call({}, null);
    // Assert
    expect(status).toBe(503);
    expect(body.detail).toMatch(/structured extraction is not available/);
  });
});
