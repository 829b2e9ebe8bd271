import {
  AnalyzeDocumentCommand,
  BadDocumentException,
  DocumentTooLargeException,
  InternalServerError,
  InvalidParameterException,
  ProvisionedThroughputExceededException,
  TextractClient,
  ThrottlingException,
  UnsupportedDocumentException,
  type AnalyzeDocumentCommandOutput,
  type Block,
  type BlockType,
  type Geometry,
} from '@aws-sdk/client-textract';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProviderUnavailableError } from '../../../functions/core/domain/errors.js';
import type { PageParseRequest } from '../../../functions/core/ports/page-provider.js';
import {
  TextractProvider,
  textractClient,
  type TextractSettings,
} from '../../../functions/providers/textract.js';
import { fakeRasterizer } from '../../support/fake-api-server.js';

const SETTINGS: TextractSettings = {
  id: 'aws-textract',
  model: 'textract-analyze-document-layout',
  timeoutMs: 20_000,
  maxRetries: 3,
  defaultDpi: 200,
};
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const textract = mockClient(TextractClient);

const request = (overrides: Partial<PageParseRequest> = {}): PageParseRequest => ({
  document: { key: 'uploads/scan.png', format: 'png', hash: 'b'.repeat(64) },
  pageNumber: 1,
  dpi: null,
  profile: null,
  maintainFormat: true,
  ...overrides,
});

const provider = (rasterizer = fakeRasterizer()) =>
  new TextractProvider(SETTINGS, new TextractClient({ region: 'eu-west-1' }), rasterizer);

// Blocks in AWS's documented shape (Block: BlockType, Id, Confidence 0–100, Geometry with a
// BoundingBox in shares of the page, Relationships of type CHILD / MERGED_CELL).

/** Left, top, width, height as shares of the page. */
type Box = [left: number, top: number, width: number, height: number];

const geometry = ([Left, Top, Width, Height]: Box): Geometry => ({
  BoundingBox: { Left, Top, Width, Height },
  Polygon: [
    { X: Left, Y: Top },
    { X: Left + Width, Y: Top },
    { X: Left + Width, Y: Top + Height },
    { X: Left, Y: Top + Height },
  ],
});

const childrenOf = (ids: readonly string[]): Block['Relationships'] =>
  ids.length === 0 ? undefined : [{ Type: 'CHILD', Ids: [...ids] }];

const word = (Id: string, Text: string, Confidence: number, box: Box): Block => ({
  BlockType: 'WORD',
  Id,
  Text,
  TextType: 'PRINTED',
  Confidence,
  Geometry: geometry(box),
  Page: 1,
});

const line = (
  Id: string,
  Text: string,
  Confidence: number,
  box: Box,
  wordIds: string[],
): Block => ({
  BlockType: 'LINE',
  Id,
  Text,
  Confidence,
  Geometry: geometry(box),
  Relationships: childrenOf(wordIds),
  Page: 1,
});

const layout = (
  BlockType: BlockType,
  Id: string,
  Confidence: number,
  box: Box,
  childIds: string[],
): Block => ({
  BlockType,
  Id,
  Confidence,
  Geometry: geometry(box),
  Relationships: childrenOf(childIds),
  Page: 1,
});

const cell = (
  Id: string,
  [RowIndex, ColumnIndex]: [number, number],
  wordIds: string[],
  { rows = 1, cols = 1 }: { rows?: number; cols?: number } = {},
): Block => ({
  BlockType: 'CELL',
  Id,
  RowIndex,
  ColumnIndex,
  RowSpan: rows,
  ColumnSpan: cols,
  Confidence: 91.5,
  EntityTypes: RowIndex === 1 ? ['COLUMN_HEADER'] : undefined,
  Geometry: geometry([
    0.11 + (ColumnIndex - 1) * 0.19,
    0.51 + (RowIndex - 1) * 0.09,
    0.19 * cols,
    0.09 * rows,
  ]),
  Relationships: childrenOf(wordIds),
  Page: 1,
});

const table = (Id: string, box: Box, cellIds: string[], mergedIds: string[] = []): Block => ({
  BlockType: 'TABLE',
  Id,
  Confidence: 99.1,
  EntityTypes: ['STRUCTURED_TABLE'],
  Geometry: geometry(box),
  Relationships: [
    { Type: 'CHILD', Ids: cellIds },
    ...(mergedIds.length > 0 ? [{ Type: 'MERGED_CELL' as const, Ids: mergedIds }] : []),
  ],
  Page: 1,
});

const page = (childIds: string[]): Block => ({
  BlockType: 'PAGE',
  Id: 'page',
  Geometry: geometry([0, 0, 1, 1]),
  Relationships: childrenOf(childIds),
  Page: 1,
});

/** A report page: title, section heading, paragraph, bullet list, table, figure, page number. */
function reportPage(): Block[] {
  const lines = [
    line('line-title', 'Annual Report', 98, [0.1, 0.05, 0.5, 0.1], ['w-annual', 'w-report']),
    line('line-heading', 'Regional sales', 95, [0.1, 0.17, 0.4, 0.06], ['w-regional', 'w-sales']),
    line('line-text-1', 'Growth was', 85, [0.1, 0.25, 0.6, 0.05], ['w-growth', 'w-was']),
    line('line-text-2', 'strong.', 90, [0.1, 0.3, 0.3, 0.05], ['w-strong']),
    line('line-item-1', '• Alpha', 72, [0.1, 0.36, 0.3, 0.05], ['w-bullet-1', 'w-alpha']),
    line('line-item-2', '• Beta', 71, [0.1, 0.41, 0.3, 0.05], ['w-bullet-2', 'w-beta']),
    line('line-row-1', 'Region Sales', 98, [0.11, 0.51, 0.58, 0.09], ['w-region', 'w-sales-h']),
    line('line-row-2', 'H1 H2', 90, [0.3, 0.6, 0.39, 0.09], ['w-h1', 'w-h2']),
    line(
      'line-row-3',
      'West | East 10 12',
      89,
      [0.11, 0.69, 0.58, 0.09],
      ['w-west', 'w-pipe', 'w-east', 'w-10', 'w-12'],
    ),
    line('line-figure', 'Q3', 85, [0.8, 0.3, 0.05, 0.05], ['w-q3']),
    line('line-page-number', '7', 80, [0.48, 0.92, 0.04, 0.1], ['w-7']),
  ];
  const words = [
    word('w-annual', 'Annual', 99, [0.1, 0.05, 0.22, 0.1]),
    word('w-report', 'Report', 97, [0.35, 0.05, 0.25, 0.1]),
    word('w-regional', 'Regional', 96, [0.1, 0.17, 0.25, 0.06]),
    word('w-sales', 'sales', 94, [0.37, 0.17, 0.13, 0.06]),
    word('w-growth', 'Growth', 90, [0.1, 0.25, 0.3, 0.05]),
    word('w-was', 'was', 80, [0.42, 0.25, 0.15, 0.05]),
    word('w-strong', 'strong.', 90, [0.1, 0.3, 0.3, 0.05]),
    word('w-bullet-1', '•', 50, [0.1, 0.36, 0.02, 0.05]),
    word('w-alpha', 'Alpha', 95, [0.13, 0.36, 0.15, 0.05]),
    word('w-bullet-2', '•', 50, [0.1, 0.41, 0.02, 0.05]),
    word('w-beta', 'Beta', 93, [0.13, 0.41, 0.12, 0.05]),
    word('w-region', 'Region', 98, [0.12, 0.52, 0.15, 0.07]),
    word('w-sales-h', 'Sales', 98, [0.35, 0.52, 0.12, 0.07]),
    word('w-h1', 'H1', 90, [0.35, 0.61, 0.05, 0.07]),
    word('w-h2', 'H2', 90, [0.54, 0.61, 0.05, 0.07]),
    word('w-west', 'West', 95, [0.12, 0.7, 0.06, 0.07]),
    word('w-pipe', '|', 60, [0.19, 0.7, 0.01, 0.07]),
    word('w-east', 'East', 95, [0.21, 0.7, 0.06, 0.07]),
    word('w-10', '10', 99, [0.35, 0.7, 0.04, 0.07]),
    word('w-12', '12', 99, [0.54, 0.7, 0.04, 0.07]),
    word('w-q3', 'Q3', 85, [0.8, 0.3, 0.05, 0.05]),
    word('w-7', '7', 80, [0.48, 0.92, 0.04, 0.1]),
  ];
  const cells = [
    cell('cell-1-1', [1, 1], ['w-region']),
    // The header "Sales" spans the two figure columns.
    cell('cell-1-2', [1, 2], ['w-sales-h'], { cols: 2 }),
    cell('cell-2-1', [2, 1], []),
    cell('cell-2-2', [2, 2], ['w-h1']),
    cell('cell-2-3', [2, 3], ['w-h2']),
    cell('cell-3-1', [3, 1], ['w-west', 'w-pipe', 'w-east']),
    cell('cell-3-2', [3, 2], ['w-10']),
    cell('cell-3-3', [3, 3], ['w-12']),
  ];
  const layouts = [
    layout('LAYOUT_TITLE', 'layout-title', 95, [0.1, 0.05, 0.5, 0.1], ['line-title']),
    layout('LAYOUT_SECTION_HEADER', 'layout-heading', 92, [0.1, 0.17, 0.4, 0.06], ['line-heading']),
    layout('LAYOUT_TEXT', 'layout-text', 90, [0.1, 0.25, 0.6, 0.1], ['line-text-1', 'line-text-2']),
    layout(
      'LAYOUT_LIST',
      'layout-list',
      85,
      [0.1, 0.36, 0.3, 0.1],
      ['layout-item-1', 'layout-item-2'],
    ),
    // A list's items are LAYOUT_TEXT blocks listed among the blocks too.
    layout('LAYOUT_TEXT', 'layout-item-1', 88, [0.1, 0.36, 0.3, 0.05], ['line-item-1']),
    layout('LAYOUT_TEXT', 'layout-item-2', 86, [0.1, 0.41, 0.3, 0.05], ['line-item-2']),
    layout(
      'LAYOUT_TABLE',
      'layout-table',
      80,
      [0.1, 0.5, 0.6, 0.3],
      ['line-row-1', 'line-row-2', 'line-row-3'],
    ),
    layout('LAYOUT_FIGURE', 'layout-figure', 70, [0.75, 0.25, 0.2, 0.3], ['line-figure']),
    // Runs past the bottom edge: its box is clipped to the page.
    layout(
      'LAYOUT_PAGE_NUMBER',
      'layout-page-number',
      60,
      [0.48, 0.92, 0.04, 0.1],
      ['line-page-number'],
    ),
  ];
  return [
    page([...lines.map((b) => b.Id!), 'table', ...layouts.map((b) => b.Id!)]),
    ...lines,
    ...words,
    table(
      'table',
      [0.11, 0.51, 0.58, 0.28],
      cells.map((c) => c.Id!),
    ),
    ...cells,
    ...layouts,
  ];
}

const analysis = (Blocks: Block[] | undefined): AnalyzeDocumentCommandOutput => ({
  DocumentMetadata: { Pages: 1 },
  Blocks,
  AnalyzeDocumentModelVersion: '1.0',
  $metadata: {},
});

/** The provider's failure, caught. */
const failure = (sent: Promise<unknown>) => sent.catch((e: unknown) => e);

beforeEach(() => {
  textract.reset();
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('TextractProvider', () => {
  it('sends the page as PNG bytes for LAYOUT and TABLES analysis within the deadline', async () => {
    // Arrange
    textract.on(AnalyzeDocumentCommand).resolves(analysis(reportPage()));
    const rasterizer = fakeRasterizer();
    const timeout = vi.spyOn(AbortSignal, 'timeout');
    // Act
    const result = await provider(rasterizer).parsePage(request());
    // Assert
    const [call] = textract.commandCalls(AnalyzeDocumentCommand);
    const input = call!.args[0].input;
    expect([...(input.Document?.Bytes ?? []).slice(0, 8)]).toEqual(PNG_SIGNATURE);
    expect(input.Document?.S3Object).toBeUndefined();
    expect(input.FeatureTypes).toEqual(['LAYOUT', 'TABLES']);
    expect(rasterizer.calls).toEqual([{ dpi: 200 }]);
    expect(timeout).toHaveBeenCalledWith(20_000);
    const options = (call!.args as unknown[])[1] as { abortSignal?: unknown };
    expect(options.abortSignal).toBeInstanceOf(AbortSignal);
    expect(result).toMatchObject({
      dpi: 200,
      width: 200,
      height: 100,
      model: 'textract-analyze-document-layout',
      tokens: { input: 0, output: 0 },
      evidenceText: null,
    });
  });

  it('writes the layout blocks in order as Markdown: headings, paragraph, list, spanning table', async () => {
    // Arrange
    textract.on(AnalyzeDocumentCommand).resolves(analysis(reportPage()));
    // Act
    const { markdown } = await provider().parsePage(request());
    // Assert
    expect(markdown).toBe(
      [
        '# Annual Report',
        '## Regional sales',
        'Growth was strong.',
        '- Alpha\n- Beta',
        [
          '| Region | Sales |  |',
          '| --- | --- | --- |',
          '|  | H1 | H2 |',
          '| West \\| East | 10 | 12 |',
        ].join('\n'),
      ].join('\n\n'),
    );
    // The figure's text and the page number stay out of the Markdown.
    expect(markdown).not.toContain('Q3');
    expect(markdown).not.toMatch(/^7$/m);
  });

  it('gives one element per layout block (one per list item) with its box in pixels, inside the page', async () => {
    // Arrange
    textract.on(AnalyzeDocumentCommand).resolves(analysis(reportPage()));
    // Act
    const { elements, width, height } = await provider().parsePage(request());
    // Assert
    expect(elements).toEqual([
      {
        text: 'Annual Report',
        bbox: { x: 20, y: 5, w: 100, h: 10 },
        label: 'paragraph',
        elementType: 'title',
        confidence: 0.95,
      },
      {
        text: 'Regional sales',
        bbox: { x: 20, y: 17, w: 80, h: 6 },
        label: 'paragraph',
        elementType: 'heading',
        confidence: 0.92,
      },
      {
        text: 'Growth was strong.',
        bbox: { x: 20, y: 25, w: 120, h: 10 },
        label: 'paragraph',
        elementType: 'paragraph',
        confidence: 0.9,
      },
      {
        text: '• Alpha',
        bbox: { x: 20, y: 36, w: 60, h: 5 },
        label: 'list',
        elementType: 'list_item',
        confidence: 0.88,
      },
      {
        text: '• Beta',
        bbox: { x: 20, y: 41, w: 60, h: 5 },
        label: 'list',
        elementType: 'list_item',
        confidence: 0.86,
      },
      {
        text: 'Region Sales H1 H2 West | East 10 12',
        bbox: { x: 20, y: 50, w: 120, h: 30 },
        label: 'table',
        elementType: 'table',
        confidence: 0.8,
      },
      {
        text: '',
        bbox: { x: 150, y: 25, w: 40, h: 30 },
        label: 'figure',
        elementType: 'figure',
        confidence: 0.7,
      },
      {
        text: '7',
        // 0.92 + 0.10 of the height runs 2 px past the bottom: clipped.
        bbox: { x: 96, y: 92, w: 8, h: 8 },
        label: 'footer',
        elementType: 'page_number',
        confidence: 0.6,
      },
    ]);
    for (const { bbox } of elements) {
      expect(bbox.x + bbox.w).toBeLessThanOrEqual(width);
      expect(bbox.y + bbox.h).toBeLessThanOrEqual(height);
    }
  });

  it('scores OCR by character-weighted word confidence and layout by mean element confidence', async () => {
    // Arrange
    textract.on(AnalyzeDocumentCommand).resolves(analysis(reportPage()));
    // (characters, confidence) of every WORD block of the page.
    const words: [number, number][] = [
      [6, 99],
      [6, 97],
      [8, 96],
      [5, 94],
      [6, 90],
      [3, 80],
      [7, 90],
      [1, 50],
      [5, 95],
      [1, 50],
      [4, 93],
      [6, 98],
      [5, 98],
      [2, 90],
      [2, 90],
      [4, 95],
      [1, 60],
      [4, 95],
      [2, 99],
      [2, 99],
      [2, 85],
      [1, 80],
    ];
    const chars = words.reduce((sum, [n]) => sum + n, 0);
    const weighted = words.reduce((sum, [n, confidence]) => sum + n * confidence, 0);
    // Act
    const result = await provider().parsePage(request());
    // Assert
    expect(chars).toBe(83);
    expect(result.ocrScore).toBe(Math.round((weighted / chars / 100) * 1000) / 1000);
    expect(result.ocrScore).toBe(0.925);
    // (95 + 92 + 90 + 88 + 86 + 80 + 70 + 60) / 8 / 100 = 0.82625
    expect(result.layoutScore).toBe(0.826);
  });

  it('pairs each layout table with the TABLE whose box overlaps it, whatever their order', async () => {
    // Arrange
    const blocks = [
      page([]),
      word('w-low', 'Lower', 90, [0.1, 0.71, 0.2, 0.08]),
      word('w-up', 'Upper', 90, [0.1, 0.11, 0.2, 0.08]),
      line('line-low', 'Lower', 90, [0.1, 0.71, 0.2, 0.08], ['w-low']),
      line('line-up', 'Upper', 90, [0.1, 0.11, 0.2, 0.08], ['w-up']),
      // Textract lists the lower table first.
      table('table-low', [0.1, 0.7, 0.8, 0.2], ['cell-low']),
      { ...cell('cell-low', [1, 1], ['w-low']), Geometry: geometry([0.1, 0.7, 0.8, 0.2]) },
      table('table-up', [0.1, 0.1, 0.8, 0.2], ['cell-up']),
      { ...cell('cell-up', [1, 1], ['w-up']), Geometry: geometry([0.1, 0.1, 0.8, 0.2]) },
      layout('LAYOUT_TABLE', 'layout-up', 90, [0.09, 0.09, 0.82, 0.22], ['line-up']),
      layout('LAYOUT_TABLE', 'layout-low', 90, [0.09, 0.69, 0.82, 0.22], ['line-low']),
    ];
    textract.on(AnalyzeDocumentCommand).resolves(analysis(blocks));
    // Act
    const { markdown } = await provider().parsePage(request());
    // Assert
    expect(markdown).toBe('| Upper |\n| --- |\n\n| Lower |\n| --- |');
  });

  it('puts a MERGED_CELL text, joined from its cells, in its top-left cell and empties the rest', async () => {
    // Arrange
    const words = [
      word('w-name', 'Name', 99, [0.12, 0.52, 0.1, 0.07]),
      word('w-score', 'Score', 99, [0.31, 0.52, 0.1, 0.07]),
      word('w-grand', 'Grand', 99, [0.12, 0.61, 0.1, 0.07]),
      word('w-total', 'total', 99, [0.12, 0.7, 0.1, 0.07]),
      word('w-5', '5', 99, [0.31, 0.61, 0.02, 0.07]),
      word('w-6', '6', 99, [0.31, 0.7, 0.02, 0.07]),
    ];
    // Real responses: every CELL has spans of 1 and keeps its own words; the MERGED_CELL
    // names the cells it joins.
    const cells = [
      cell('c-1-1', [1, 1], ['w-name']),
      cell('c-1-2', [1, 2], ['w-score']),
      cell('c-2-1', [2, 1], ['w-grand']),
      cell('c-2-2', [2, 2], ['w-5']),
      cell('c-3-1', [3, 1], ['w-total']),
      cell('c-3-2', [3, 2], ['w-6']),
    ];
    const merged: Block = {
      BlockType: 'MERGED_CELL',
      Id: 'merged-1',
      RowIndex: 2,
      ColumnIndex: 1,
      RowSpan: 2,
      ColumnSpan: 1,
      Confidence: 90,
      Geometry: geometry([0.11, 0.6, 0.19, 0.18]),
      Relationships: [{ Type: 'CHILD', Ids: ['c-3-1', 'c-2-1'] }],
      Page: 1,
    };
    const blocks = [
      page([]),
      ...words,
      table(
        'table',
        [0.11, 0.51, 0.38, 0.27],
        cells.map((c) => c.Id!),
        ['merged-1'],
      ),
      ...cells,
      merged,
      layout('LAYOUT_TABLE', 'layout-table', 90, [0.1, 0.5, 0.4, 0.3], []),
    ];
    textract.on(AnalyzeDocumentCommand).resolves(analysis(blocks));
    // Act
    const { markdown } = await provider().parsePage(request());
    // Assert
    expect(markdown).toBe('| Name | Score |\n| --- | --- |\n| Grand total | 5 |\n|  | 6 |');
  });

  it('writes a layout table without a TABLE block as its lines', async () => {
    // Arrange
    const blocks = [
      page([]),
      line('l-1', 'Qty Price', 90, [0.1, 0.1, 0.5, 0.05], []),
      line('l-2', '2 4.50', 90, [0.1, 0.15, 0.5, 0.05], []),
      layout('LAYOUT_TABLE', 'layout-table', 75, [0.1, 0.1, 0.5, 0.1], ['l-1', 'l-2']),
    ];
    textract.on(AnalyzeDocumentCommand).resolves(analysis(blocks));
    // Act
    const { markdown, elements } = await provider().parsePage(request());
    // Assert
    expect(markdown).toBe('Qty Price\n2 4.50');
    expect(elements).toMatchObject([{ label: 'table', elementType: 'table', confidence: 0.75 }]);
  });

  it('keeps headers and footers out of the Markdown, writes key-values line by line and numbered items as ordered', async () => {
    // Arrange
    const blocks = [
      page([]),
      line('l-header', 'ACME Corp — Confidential', 90, [0.1, 0.01, 0.6, 0.04], []),
      line('l-page', 'Page 2', 90, [0.85, 0.01, 0.1, 0.04], []),
      line('l-kv-1', 'Invoice: 4711', 90, [0.1, 0.1, 0.4, 0.05], []),
      line('l-kv-2', 'Date: 2024-03-01', 90, [0.1, 0.15, 0.4, 0.05], []),
      line('l-item-1', '1. Unpack', 90, [0.1, 0.3, 0.4, 0.05], []),
      line('l-item-2', '2) Assemble *carefully*', 90, [0.1, 0.35, 0.4, 0.05], []),
      line('l-footer', 'acme.example', 90, [0.1, 0.95, 0.3, 0.04], []),
      line('l-loose', '# not a heading', 90, [0.1, 0.5, 0.4, 0.05], []),
      layout('LAYOUT_HEADER', 'lh', 90, [0.1, 0.01, 0.6, 0.04], ['l-header']),
      layout('LAYOUT_PAGE_NUMBER', 'lp', 90, [0.85, 0.01, 0.1, 0.04], ['l-page']),
      layout('LAYOUT_KEY_VALUE', 'lkv', 90, [0.1, 0.1, 0.4, 0.1], ['l-kv-1', 'l-kv-2']),
      // Items given as LINEs directly.
      layout('LAYOUT_LIST', 'll', 90, [0.1, 0.3, 0.4, 0.1], ['l-item-1', 'l-item-2']),
      layout('LAYOUT_FOOTER', 'lf', 90, [0.1, 0.95, 0.3, 0.04], ['l-footer']),
    ];
    textract.on(AnalyzeDocumentCommand).resolves(analysis(blocks));
    // Act
    const { markdown, elements } = await provider().parsePage(request());
    // Assert
    expect(markdown).toBe(
      [
        'Invoice: 4711\nDate: 2024-03-01',
        '1. Unpack\n2) Assemble \\*carefully\\*',
        // A line no layout block claims, escaped so it stays text.
        '\\# not a heading',
      ].join('\n\n'),
    );
    expect(elements.map((e) => [e.elementType, e.label, e.text])).toEqual([
      ['header', 'header', 'ACME Corp — Confidential'],
      ['page_number', 'header', 'Page 2'],
      ['key_value', 'paragraph', 'Invoice: 4711\nDate: 2024-03-01'],
      ['list_item', 'list', '1. Unpack'],
      ['list_item', 'list', '2) Assemble *carefully*'],
      ['footer', 'footer', 'acme.example'],
      ['paragraph', 'paragraph', '# not a heading'],
    ]);
  });

  it('answers an empty page with no Markdown, no elements, no OCR score and full layout score', async () => {
    // Arrange
    textract.on(AnalyzeDocumentCommand).resolves(analysis([page([])]));
    // Act
    const result = await provider().parsePage(request());
    // Assert
    expect(result).toMatchObject({ markdown: '', elements: [], ocrScore: null, layoutScore: 1 });
  });

  it('fails an answer without blocks', async () => {
    // Arrange
    textract.on(AnalyzeDocumentCommand).resolves(analysis(undefined));
    // Act
    const caught = await failure(provider().parsePage(request()));
    // Assert
    expect(caught).toBeInstanceOf(ProviderUnavailableError);
    expect((caught as ProviderUnavailableError).details).toEqual({
      provider: 'aws-textract',
      reason: 'the answer holds no blocks',
    });
  });

  it.each([
    [
      'ProvisionedThroughputExceededException',
      new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }),
    ],
    ['ThrottlingException', new ThrottlingException({ message: 'slow down', $metadata: {} })],
    ['InternalServerError', new InternalServerError({ message: 'oops', $metadata: {} })],
    [
      'InvalidParameterException',
      new InvalidParameterException({ message: 'bad request', $metadata: {} }),
    ],
    [
      'UnsupportedDocumentException',
      new UnsupportedDocumentException({ message: 'unsupported', $metadata: {} }),
    ],
    ['BadDocumentException', new BadDocumentException({ message: 'unreadable', $metadata: {} })],
    [
      'DocumentTooLargeException',
      new DocumentTooLargeException({ message: 'too large', $metadata: {} }),
    ],
  ])('maps %s to ProviderUnavailableError naming it', async (name, error) => {
    // Arrange
    textract.on(AnalyzeDocumentCommand).rejects(error);
    // Act
    const caught = await failure(provider().parsePage(request()));
    // Assert
    expect(caught).toBeInstanceOf(ProviderUnavailableError);
    expect(caught).toMatchObject({ name: 'ProviderUnavailableError', cause: error });
    const { details } = caught as ProviderUnavailableError;
    expect(details?.provider).toBe('aws-textract');
    expect(details?.reason).toContain(`(${name})`);
    expect((caught as Error).message).not.toContain(error.message);
  });

  it('says what the service error means in the reason', async () => {
    // Arrange
    textract
      .on(AnalyzeDocumentCommand)
      .rejects(new ThrottlingException({ message: 'slow down', $metadata: {} }));
    // Act
    const caught = await failure(provider().parsePage(request()));
    // Assert
    expect((caught as ProviderUnavailableError).details).toEqual({
      provider: 'aws-textract',
      reason: 'throttled (ThrottlingException)',
    });
  });

  it('reports a call aborted at the deadline as unavailable within timeoutMs', async () => {
    // Arrange
    textract
      .on(AnalyzeDocumentCommand)
      .rejects(Object.assign(new Error('Request aborted'), { name: 'AbortError' }));
    // Act
    const caught = await failure(provider().parsePage(request()));
    // Assert
    expect(caught).toBeInstanceOf(ProviderUnavailableError);
    expect((caught as ProviderUnavailableError).details).toEqual({
      provider: 'aws-textract',
      reason: 'no answer within 20000 ms (AbortError)',
    });
  });
});

describe('textractClient', () => {
  it('makes maxRetries + 1 attempts in the given region', async () => {
    // Act
    const client = textractClient({ maxRetries: 3 }, 'us-east-2');
    // Assert
    expect(await client.config.maxAttempts()).toBe(4);
    expect(await client.config.region()).toBe('us-east-2');
  });

  it('refuses a negative retry count', () => {
    // Act / Assert
    expect(() => textractClient({ maxRetries: -1 })).toThrow(/maxRetries must be/);
  });
});
