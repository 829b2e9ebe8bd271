import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../../functions/local-server.js';
import { startTestService, type TestService } from '../../support/local-service.js';
import {
  HTTPValidationError,
  StructuredResult,
  type StructuredBlock,
} from '../../../functions/core/domain/schemas.js';
import { corpusPath } from '../../support/corpus.js';

/**
 * POST /v1/parse/structured end to end on the local service, with the offline extractor on the
 * dev corpus: tables (with spans) from the PDF text layer and from OCR of a scan, equations from
 * math fonts, figures with their captions, and 422 for a plain text document.
 */

const FILES = corpusPath('dev/files');
const ALPHA = 'key-alpha-0001';

type Table = Extract<StructuredBlock, { type: 'table' }>;
type Cell = Table['cells'][number];
interface PageView {
  page: number;
  width: number;
  height: number;
  dpi: number;
  source: string;
}

let running: TestService;
let server: LocalServer;

beforeAll(async () => {
  running = await startTestService('structured', {
    API_KEYS: `${ALPHA}=alpha:pro`,
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
  });
  server = running.server;
});

afterAll(async () => {
  await running.close();
});

/** Sends a corpus file (or a slot's upload id) to POST /v1/parse/structured. */
async function structured(
  file: string | null,
  fields: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) form.append('file', new Blob([readFileSync(join(FILES, file))]), file);
  const res = await fetch(`${server.url}/v1/parse/structured`, {
    method: 'POST',
    headers: { 'x-api-key': ALPHA },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The valid Structured result of a file, with the page geometry extension. */
async function resultOf(file: string) {
  const { status, body } = await structured(file);
  expect(status, JSON.stringify(body)).toBe(200);
  const result = StructuredResult.parse(body);
  const pages = body.pages as PageView[];
  // Every box is inside its page image, with a positive size.
  for (const block of result.blocks) {
    const page = pages.find((p) => p.page === block.page);
    const [x0, y0, x1, y1] = block.bbox;
    expect(page).toBeDefined();
    expect(x0).toBeGreaterThanOrEqual(0);
    expect(y0).toBeGreaterThanOrEqual(0);
    expect(x1).toBeLessThanOrEqual(page?.width ?? 0);
    expect(y1).toBeLessThanOrEqual(page?.height ?? 0);
    expect(x1 - x0).toBeGreaterThan(0);
    expect(y1 - y0).toBeGreaterThan(0);
  }
  return { ...result, pages };
}

const tablesOf = (blocks: readonly StructuredBlock[]): Table[] =>
  blocks.filter((b): b is Table => b.type === 'table');
const cellAt = (table: Table, row: number, col: number): Cell | undefined =>
  table.cells.find((c) => c.row === row && c.col === col);
/** The cell whose text is `text`, in any table. */
const findCell = (tables: readonly Table[], text: string) => {
  for (const table of tables) {
    const cell = table.cells.find((c) => c.text === text);
    if (cell) return { table, cell };
  }
  return undefined;
};
/** Each table's grid is rectangular: every slot covered by exactly one cell. */
const expectRectangular = (table: Table): void => {
  const rows = Math.max(...table.cells.map((c) => c.row + c.row_span));
  const cols = Math.max(...table.cells.map((c) => c.col + c.col_span));
  const covered = new Map<string, number>();
  for (const c of table.cells) {
    for (let r = c.row; r < c.row + c.row_span; r++) {
      for (let k = c.col; k < c.col + c.col_span; k++) {
        covered.set(`${r},${k}`, (covered.get(`${r},${k}`) ?? 0) + 1);
      }
    }
  }
  expect(covered.size).toBe(rows * cols);
  expect([...covered.values()].every((n) => n === 1)).toBe(true);
};

describe('POST /v1/parse/structured on the dev corpus (offline extractor)', () => {
  it('reads the TEDs header of docling-2305.03393v1-pg9 as one cell spanning three columns', async () => {
    // Act
    const result = await resultOf('docling-2305.03393v1-pg9.pdf');
    // Assert: the ground truth's table, 8 columns, two header rows.
    const [table, ...others] = tablesOf(result.blocks);
    expect(others).toEqual([]);
    expect(table).toBeDefined();
    if (!table) return;
    expectRectangular(table);
    expect(cellAt(table, 0, 3)).toEqual({ row: 0, col: 3, text: 'TEDs', row_span: 1, col_span: 3 });
    expect(cellAt(table, 0, 0)).toMatchObject({ text: '# enc-layers', row_span: 2, col_span: 1 });
    expect(cellAt(table, 0, 7)).toMatchObject({ text: 'Inference time (secs)', row_span: 2 });
    expect([4, 5].map((col) => cellAt(table, 1, col)?.text)).toEqual(['complex', 'all']);
    // Each row group holds two records (an OTSL line, an HTML line): the cells on their lines
    // keep one line per record; the layers, set once for the group, are one value.
    expect([0, 1, 2, 3].map((col) => cellAt(table, 2, col)?.text)).toEqual([
      '6',
      '6',
      'OTSL\nHTML',
      '0.965\n0.969',
    ]);
    expect(result.pages).toEqual([
      { page: 1, width: 1224, height: 1584, dpi: 144, source: 'text_layer' },
    ]);
  });

  it('reads the same table from the scanned page by OCR, with the same spans', async () => {
    // Act
    const result = await resultOf('docling-2305.03393v1-pg9-img.png');
    // Assert
    const tables = tablesOf(result.blocks);
    const found = findCell(tables, 'TEDs');
    expect(found?.cell).toMatchObject({ row_span: 1, col_span: 3 });
    // The two records of each row group stay apart as on the page read from the text layer.
    const languages = tables.flatMap((t) => t.cells).filter((c) => c.text === 'OTSL\nHTML');
    expect(languages).toHaveLength(4);
    expect(result.pages[0]?.source).toBe('ocr');
    expect(result.warnings).toContain(
      'page 1: read by OCR (no usable text layer): equations are not recognised on such pages',
    );
  });

  it('reads the dense tables of olmocr-discoverworld_crazy_table4 with their neighbours', async () => {
    // Act
    const result = await resultOf('olmocr-discoverworld_crazy_table4.pdf');
    // Assert: the benchmark's table assertions that concern neighbouring cells.
    const tables = tablesOf(result.blocks);
    for (const table of tables) expectRectangular(table);
    const leftOf = (text: string) => {
      const found = findCell(tables, text);
      return found && cellAt(found.table, found.cell.row, found.cell.col - 1)?.text;
    };
    const rightOf = (text: string) => {
      const found = findCell(tables, text);
      return found && cellAt(found.table, found.cell.row, found.cell.col + 1)?.text;
    };
    expect(leftOf('Quadratic regression')).toBe('Challenge');
    expect(leftOf('Instrument Use')).toBe('Normal');
    expect(leftOf('Pick-and-place object')).toBe('27');
    expect(rightOf('Pick-and-place object')).toBe('0.90');
    expect(findCell(tables, 'Proteomics')?.cell).toMatchObject({ col_span: 2 });
  });

  it('reads the display formula of docling-code_and_formula as LaTeX, and no table', async () => {
    // Act
    const result = await resultOf('docling-code_and_formula.pdf');
    // Assert
    expect(result.blocks).toEqual([
      {
        type: 'equation',
        equation_id: 'equation_1',
        page: 2,
        latex: 'a^{2}+8=12',
        bbox: expect.any(Array) as unknown,
      },
    ]);
  });

  it('reads the exercise equations of olmocr-openstax_caculus_pg_273, fractions included', async () => {
    // Act
    const result = await resultOf('olmocr-openstax_caculus_pg_273.pdf');
    // Assert
    const latex = result.blocks.flatMap((b) => (b.type === 'equation' ? [b.latex] : []));
    expect(latex).toEqual(
      expect.arrayContaining([
        's(t)=2t^{3}-3t^{2}-12t+8',
        's(t)=2t^{3}-15t^{2}+36t-10',
        's(t)=\\frac{t}{1+t^{2}}',
        's(t)=-16t^{2}+100t+85',
        's(t)=-16t^{2}-8t+64',
      ]),
    );
    // The position graph of exercise 159 is a figure (it has no caption on the page).
    expect(result.blocks.filter((b) => b.type === 'figure')).toEqual([
      expect.objectContaining({ page: 1, caption: '' }),
    ]);
  });

  it('reads the figures of docling-picture_classification with their captions', async () => {
    // Act
    const result = await resultOf('docling-picture_classification.pdf');
    // Assert
    expect(
      result.blocks.map((b) => (b.type === 'figure' ? [b.figure_id, b.page, b.caption] : b)),
    ).toEqual([
      ['figure_1', 1, 'Figure 1: This is an example image.'],
      ['figure_2', 2, 'Figure 2: This is an example image.'],
    ]);
  });

  it('answers 422 for a plain text document, pointing to POST /v1/parse/upload', async () => {
    // Act
    const { status, body } = await structured('pypdf-minimal-document.pdf');
    // Assert
    expect(status).toBe(422);
    expect(body.detail).toMatch(/no extractable tables, equations or figures/);
    expect(body.detail).toMatch(/POST \/v1\/parse\/upload/);
  });

  it('answers 422 with the validation body for an unknown model, and accepts the default by name', async () => {
    // Act
    const unknown = await structured('docling-code_and_formula.pdf', { model: 'vision-9000' });
    const named = await structured('docling-code_and_formula.pdf', {
      model: 'docparse-structured-1',
      max_pages: '2',
    });
    // Assert
    expect(unknown.status).toBe(422);
    expect(HTTPValidationError.parse(unknown.body).detail[0]?.loc).toEqual(['body', 'model']);
    expect(named.status).toBe(200);
  });

  it('reads a file sent beforehand to an upload slot, by its upload_id', async () => {
    // Arrange
    const created = await fetch(`${server.url}/v1/uploads`, {
      method: 'POST',
      headers: { 'x-api-key': ALPHA, 'content-type': 'application/json' },
      body: JSON.stringify({ filename: 'figures.pdf' }),
    });
    const slot = (await created.json()) as {
      upload_id: string;
      url: string;
      fields: Record<string, string>;
    };
    const form = new FormData();
    for (const [name, value] of Object.entries(slot.fields)) form.append(name, value);
    const bytes = readFileSync(join(FILES, 'docling-picture_classification.pdf'));
    form.append('file', new Blob([Uint8Array.from(bytes)]), 'figures.pdf');
    const sent = await fetch(slot.url, { method: 'POST', body: form });
    expect(sent.status).toBeLessThan(300);
    // Act
    const { status, body } = await structured(null, { upload_id: slot.upload_id, max_pages: '1' });
    // Assert
    expect(status).toBe(200);
    const result = StructuredResult.parse(body);
    expect(result.document).toMatchObject({ filename: 'figures.pdf', pages: 2 });
    expect(result.blocks.map((b) => b.type)).toEqual(['figure']);
  });
});
