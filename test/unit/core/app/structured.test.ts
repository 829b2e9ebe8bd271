import { describe, expect, it } from 'vitest';
import {
  DEFAULT_STRUCTURED_MODEL,
  checkRegions,
  checkedBox,
  checkedTable,
  extractStructure,
  mapBounded,
  type StructuredRequest,
} from '../../../../functions/core/app/structured.js';
import {
  BadRequestError,
  DocumentRejectedError,
  NotFoundError,
  PayloadTooLargeError,
  PlanLimitError,
  ProviderUnavailableError,
  UnsupportedDocumentError,
  ValidationError,
} from '../../../../functions/core/domain/errors.js';
import type {
  OpenedStructureDocument,
  PageRegions,
  Region,
  RegionCell,
  StructureDocument,
  StructureExtractor,
} from '../../../../functions/core/ports/structure-extractor.js';
import {
  TENANT,
  TINY_PDF,
  anAppWorld,
  anUploadedSlot,
  type AppWorld,
} from '../../../support/builders.js';

const PNG_HEADER = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);

/** A page of `regions`, 1000 × 1400 pixels at 144 DPI, read from the text layer. */
const aPage = (pageNumber: number, regions: Region[], notes: string[] = []): PageRegions => ({
  pageNumber,
  width: 1000,
  height: 1400,
  dpi: 144,
  source: 'text_layer',
  regions,
  notes,
});

const cell = (row: number, col: number, text: string, rowSpan = 1, colSpan = 1): RegionCell => ({
  row,
  col,
  rowSpan,
  colSpan,
  text,
});

const aTable = (bbox: [number, number, number, number] = [10, 20, 300, 200]): Region => ({
  kind: 'table',
  bbox,
  cells: [cell(0, 0, 'Name'), cell(0, 1, 'Score'), cell(1, 0, 'ours'), cell(1, 1, '0.91')],
});

/**
 * An extractor answering from a script: the regions of each page, or an error to throw for a
 * page. Records what was opened, the pages read, the most pages read at once, and closes.
 */
class ScriptedExtractor implements StructureExtractor {
  readonly model = DEFAULT_STRUCTURED_MODEL;
  readonly opened: StructureDocument[] = [];
  readonly read: number[] = [];
  closed = 0;
  maxInFlight = 0;
  #inFlight = 0;
  readonly #pages: (PageRegions | Error)[];
  readonly #openError: Error | undefined;

  constructor(pages: (PageRegions | Error)[], openError?: Error) {
    this.#pages = pages;
    this.#openError = openError;
  }

  open(document: StructureDocument): Promise<OpenedStructureDocument> {
    if (this.#openError) return Promise.reject(this.#openError);
    this.opened.push(document);
    return Promise.resolve({
      pageCount: this.#pages.length,
      extractPage: async (pageNumber: number) => {
        this.read.push(pageNumber);
        this.#inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.#inFlight);
        await new Promise((resolve) => setTimeout(resolve, 1));
        this.#inFlight--;
        const page = this.#pages[pageNumber - 1];
        if (page === undefined) throw new Error(`no page ${pageNumber}`);
        if (page instanceof Error) throw page;
        return page;
      },
      close: () => {
        this.closed++;
        return Promise.resolve();
      },
    });
  }
}

async function aWorld(extractor?: StructureExtractor): Promise<AppWorld> {
  const world = await anAppWorld();
  return Object.assign(world, extractor ? { structure: extractor } : {});
}

const request = (overrides: Partial<StructuredRequest> = {}): StructuredRequest => ({
  tenant: TENANT,
  plan: 'pro',
  document: { bytes: TINY_PDF, filename: 'paper.pdf' },
  maxPages: null,
  model: DEFAULT_STRUCTURED_MODEL,
  ...overrides,
});

const today = '2025-03-04';

describe('extractStructure', () => {
  it('returns the blocks of every page, numbered in page order, with the document and page geometry', async () => {
    // Arrange
    const extractor = new ScriptedExtractor([
      aPage(1, [
        aTable(),
        { kind: 'figure', bbox: [0, 300, 500, 700], caption: ' Figure 1:\n A chart. ' },
      ]),
      aPage(2, [{ kind: 'equation', bbox: [100, 100, 400, 140], latex: 'a^{2} + 8 = 12' }]),
    ]);
    const world = await aWorld(extractor);
    // Act
    const result = await extractStructure(world, request());
    // Assert
    expect(result.blocks).toEqual([
      {
        type: 'table',
        table_id: 'table_1',
        page: 1,
        cells: [
          { row: 0, col: 0, text: 'Name', row_span: 1, col_span: 1 },
          { row: 0, col: 1, text: 'Score', row_span: 1, col_span: 1 },
          { row: 1, col: 0, text: 'ours', row_span: 1, col_span: 1 },
          { row: 1, col: 1, text: '0.91', row_span: 1, col_span: 1 },
        ],
        bbox: [10, 20, 300, 200],
      },
      {
        type: 'figure',
        figure_id: 'figure_1',
        page: 1,
        caption: 'Figure 1: A chart.',
        bbox: [0, 300, 500, 700],
      },
      {
        type: 'equation',
        equation_id: 'equation_1',
        page: 2,
        latex: 'a^{2} + 8 = 12',
        bbox: [100, 100, 400, 140],
      },
    ]);
    expect(result.document).toEqual({
      hash: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
      pages: 2,
      format: 'pdf',
      cached: false,
      filename: 'paper.pdf',
      size_bytes: TINY_PDF.byteLength,
    });
    expect(result.pages).toEqual([
      { page: 1, width: 1000, height: 1400, dpi: 144, source: 'text_layer' },
      { page: 2, width: 1000, height: 1400, dpi: 144, source: 'text_layer' },
    ]);
    expect(result.warnings).toEqual([]);
    expect(result.usage).toEqual({
      total_input_tokens: 0,
      total_output_tokens: 0,
      estimated_cost_usd: 0,
    });
    expect(result.timing).toEqual({
      total_ms: 0,
      classification_ms: 0,
      routing_ms: 0,
      vlm_processing_ms: 0,
      verification_ms: 0,
    });
    expect(extractor.opened[0]).toMatchObject({ format: 'pdf', hash: result.document.hash });
    expect(extractor.closed).toBe(1);
  });

  it('reads the pages in parallel, at most limits.pageConcurrency at a time', async () => {
    // Arrange: the world allows two pages at once.
    const extractor = new ScriptedExtractor(
      Array.from({ length: 6 }, (_, i) => aPage(i + 1, [aTable()])),
    );
    const world = await aWorld(extractor);
    // Act
    const result = await extractStructure(world, request());
    // Assert
    expect(extractor.maxInFlight).toBe(2);
    expect(result.blocks.map((b) => b.page)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('reads only the first max_pages pages, and counts them against the daily quota', async () => {
    // Arrange
    const extractor = new ScriptedExtractor([aPage(1, [aTable()]), aPage(2, []), aPage(3, [])]);
    const world = await aWorld(extractor);
    // Act
    const result = await extractStructure(world, request({ maxPages: 2 }));
    // Assert
    expect(extractor.read.sort()).toEqual([1, 2]);
    expect(result.document.pages).toBe(3);
    expect(await world.usage.pagesUsed(TENANT, today)).toBe(2);
  });

  it('reads a file sent beforehand to an upload slot, with the slot file name', async () => {
    // Arrange
    const extractor = new ScriptedExtractor([aPage(1, [aTable()])]);
    const world = await aWorld(extractor);
    const uploadId = await anUploadedSlot(world);
    // Act
    const result = await extractStructure(world, request({ document: { uploadId } }));
    // Assert
    expect(result.document.filename).toBe('big.pdf');
  });

  it('rejects an unknown upload id with 404', async () => {
    // Arrange
    const world = await aWorld(new ScriptedExtractor([aPage(1, [aTable()])]));
    // Act
    const extracting = extractStructure(world, request({ document: { uploadId: 'upl_unknown' } }));
    // Assert
    await expect(extracting).rejects.toBeInstanceOf(NotFoundError);
  });

  it('rejects an unknown model with a 422 validation error naming the field and the known model', async () => {
    // Arrange
    const world = await aWorld(new ScriptedExtractor([aPage(1, [aTable()])]));
    // Act
    const extracting = extractStructure(world, request({ model: 'gpt-vision-x' }));
    // Assert
    await expect(extracting).rejects.toBeInstanceOf(ValidationError);
    await expect(extracting).rejects.toMatchObject({
      issues: [
        {
          loc: ['body', 'model'],
          msg: 'unknown model "gpt-vision-x"; the structured extractor models of this deployment are: docparse-structured-1 (the default)',
          type: 'value_error',
        },
      ],
    });
  });

  it('fails with 503 where the function ships no extractor', async () => {
    // Arrange
    const world = await aWorld();
    // Act
    const extracting = extractStructure(world, request());
    // Assert
    await expect(extracting).rejects.toBeInstanceOf(ProviderUnavailableError);
  });

  it('rejects files above the upload limit, empty files and unsupported formats', async () => {
    // Arrange
    const world = await aWorld(new ScriptedExtractor([aPage(1, [aTable()])]));
    const big = new Uint8Array(world.limits.maxUploadBytes + 1);
    const file = (bytes: Uint8Array) => request({ document: { bytes, filename: null } });
    // Act & Assert
    await expect(extractStructure(world, file(big))).rejects.toBeInstanceOf(PayloadTooLargeError);
    await expect(extractStructure(world, file(new Uint8Array()))).rejects.toBeInstanceOf(
      BadRequestError,
    );
    await expect(
      extractStructure(world, file(new Uint8Array([0, 1, 2, 3, 255, 254, 0, 0]))),
    ).rejects.toBeInstanceOf(UnsupportedDocumentError);
  });

  it('rejects a document with no pages, or more pages than the cap without max_pages', async () => {
    // Arrange
    const empty = await aWorld(new ScriptedExtractor([]));
    const long = await aWorld(new ScriptedExtractor([aPage(1, []), aPage(2, [])]));
    long.settings = { ...long.settings, maxDocumentPages: 1 };
    // Act & Assert
    await expect(extractStructure(empty, request())).rejects.toThrow('the document has no pages');
    await expect(extractStructure(long, request())).rejects.toThrow(
      'the document has 2 pages and at most 1 are read per request; set max_pages to 1 or less to read the first pages',
    );
  });

  it('answers 422 pointing to the upload endpoint when no region is found, and gives the pages back', async () => {
    // Arrange
    const extractor = new ScriptedExtractor([aPage(1, [])]);
    const world = await aWorld(extractor);
    // Act
    const extracting = extractStructure(world, request());
    // Assert
    await expect(extracting).rejects.toBeInstanceOf(DocumentRejectedError);
    await expect(extracting).rejects.toThrow(
      'no extractable tables, equations or figures were found in the page read; for plain text documents use POST /v1/parse/upload, which returns the text as Markdown',
    );
    expect(await world.usage.pagesUsed(TENANT, today)).toBe(0);
    expect(extractor.closed).toBe(1);
  });

  it('says how many pages were read when none of them has a region', async () => {
    // Arrange
    const world = await aWorld(new ScriptedExtractor([aPage(1, []), aPage(2, [])]));
    // Act & Assert
    await expect(extractStructure(world, request())).rejects.toThrow('found in the 2 pages read');
  });

  it('skips a page that cannot be read with a warning, and fails on other errors after giving the pages back', async () => {
    // Arrange
    const unreadable = new DocumentRejectedError('page 2 cannot be read');
    const damaged = new UnsupportedDocumentError('page 3 is damaged');
    const skipping = await aWorld(
      new ScriptedExtractor([aPage(1, [aTable()]), unreadable, damaged]),
    );
    const failing = await aWorld(
      new ScriptedExtractor([aPage(1, [aTable()]), new Error('worker crashed')]),
    );
    // Act
    const result = await extractStructure(skipping, request());
    const extracting = extractStructure(failing, request());
    // Assert
    expect(result.warnings).toEqual([
      'page 2: the page could not be read and was skipped (page 2 cannot be read)',
      'page 3: the page could not be read and was skipped (page 3 is damaged)',
    ]);
    expect(result.pages.map((p) => p.page)).toEqual([1]);
    await expect(extracting).rejects.toThrow('worker crashed');
    expect(await failing.usage.pagesUsed(TENANT, today)).toBe(0);
  });

  it('fails on a retryable extractor failure (503), and on any failure of an unmetered request', async () => {
    // Arrange
    const busy = new ProviderUnavailableError('the OCR worker failed');
    const world = await aWorld(new ScriptedExtractor([busy]));
    // Act & Assert
    await expect(extractStructure(world, request())).rejects.toBe(busy);
    await expect(extractStructure(world, request({ plan: undefined }))).rejects.toBe(busy);
  });

  it('refuses pages above the plan quota with 402, and does not meter a request without a plan', async () => {
    // Arrange: the free plan allows 25 pages a day; 24 are used.
    const world = await aWorld(new ScriptedExtractor([aPage(1, [aTable()]), aPage(2, [])]));
    await world.usage.reservePages(TENANT, today, 24, null, new Date('2025-03-12T00:00:00Z'));
    // Act
    const refused = await extractStructure(world, request({ plan: 'free' })).catch(
      (error: unknown) => error,
    );
    const unmetered = await extractStructure(world, request({ plan: undefined }));
    // Assert
    expect(refused).toBeInstanceOf(PlanLimitError);
    expect(refused).toHaveProperty(
      'message',
      'the free plan allows 25 pages per day; 24 are used today and this document has 2; the count resets at 2025-03-05T00:00:00Z (UTC midnight); set max_pages to 1 or less to parse the first pages now',
    );
    expect(unmetered.blocks).toHaveLength(1);
    expect(await world.usage.pagesUsed(TENANT, today)).toBe(24);
  });

  it('counts the pages of a plan without a daily limit, and meters nothing without usage counters', async () => {
    // Arrange
    const scale = await aWorld(new ScriptedExtractor([aPage(1, [aTable()])]));
    const unmetered = await aWorld(new ScriptedExtractor([aPage(1, [])]));
    delete (unmetered as Partial<AppWorld>).usage;
    // Act
    await extractStructure(scale, request({ plan: 'scale' }));
    const failing = extractStructure(unmetered, request());
    // Assert
    expect(await scale.usage.pagesUsed(TENANT, today)).toBe(1);
    await expect(failing).rejects.toBeInstanceOf(DocumentRejectedError);
  });

  it('says "is used" when one page is used today', async () => {
    // Arrange
    const world = await aWorld(
      new ScriptedExtractor(Array.from({ length: 25 }, (_, i) => aPage(i + 1, []))),
    );
    await world.usage.reservePages(TENANT, today, 1, null, new Date('2025-03-12T00:00:00Z'));
    // Act & Assert
    await expect(extractStructure(world, request({ plan: 'free' }))).rejects.toThrow(
      '1 is used today and this document has 25',
    );
  });

  it('propagates a failure to open the document', async () => {
    // Arrange
    const world = await aWorld(
      new ScriptedExtractor([], new UnsupportedDocumentError('the PDF is damaged')),
    );
    // Act & Assert
    await expect(extractStructure(world, request())).rejects.toThrow('the PDF is damaged');
  });

  it('accepts an image document', async () => {
    // Arrange
    const extractor = new ScriptedExtractor([aPage(1, [aTable()])]);
    const world = await aWorld(extractor);
    // Act
    const result = await extractStructure(
      world,
      request({ document: { bytes: PNG_HEADER, filename: 'scan.png' } }),
    );
    // Assert
    expect(result.document.format).toBe('png');
  });
});

describe('checkRegions', () => {
  it('clips a box that reaches outside the page, with a warning', () => {
    // Act
    const { blocks, warnings } = checkRegions([aPage(1, [aTable([-5, 20, 1003.4, 200.004])])]);
    // Assert
    expect(blocks[0]?.bbox).toEqual([0, 20, 1000, 200]);
    expect(warnings).toEqual([
      'page 1: a table box reached outside the page and was clipped to it',
    ]);
  });

  it('drops regions whose box is empty, inverted, not finite or off the page', () => {
    // Arrange
    const regions: Region[] = [
      { kind: 'figure', bbox: [10, 10, 10, 50], caption: '' },
      { kind: 'figure', bbox: [50, 10, 10, 50], caption: '' },
      { kind: 'figure', bbox: [Number.NaN, 10, 20, 50], caption: '' },
      { kind: 'figure', bbox: [1200, 10, 1300, 50], caption: '' },
    ];
    // Act
    const { blocks, warnings } = checkRegions([aPage(3, regions)]);
    // Assert
    expect(blocks).toEqual([]);
    expect(warnings).toEqual(
      Array.from(
        { length: 4 },
        () => 'page 3: a figure was dropped: its box is empty or outside the page',
      ),
    );
  });

  it('drops tables without text or with a single cell, and equations without LaTeX or with unbalanced braces', () => {
    // Arrange
    const regions: Region[] = [
      { kind: 'table', bbox: [0, 0, 10, 10], cells: [cell(0, 0, ''), cell(0, 1, ' ')] },
      { kind: 'table', bbox: [0, 0, 10, 10], cells: [cell(0, 0, 'alone')] },
      { kind: 'equation', bbox: [0, 0, 10, 10], latex: '  ' },
      { kind: 'equation', bbox: [0, 0, 10, 10], latex: '\\frac{a}{b' },
      { kind: 'equation', bbox: [0, 0, 10, 10], latex: 'a}{b' },
      { kind: 'equation', bbox: [0, 0, 10, 10], latex: '\\{x\\} = \\frac{1}{2}' },
    ];
    // Act
    const { blocks, warnings } = checkRegions([aPage(1, regions)]);
    // Assert
    expect(blocks).toEqual([
      {
        type: 'equation',
        equation_id: 'equation_1',
        page: 1,
        latex: '\\{x\\} = \\frac{1}{2}',
        bbox: [0, 0, 10, 10],
      },
    ]);
    expect(warnings).toEqual([
      'page 1: a table was dropped: no cell has text',
      'page 1: a table was dropped: it has fewer than two cells',
      'page 1: an equation was dropped: no LaTeX was read for it',
      'page 1: an equation was dropped: its LaTeX has unbalanced braces',
      'page 1: an equation was dropped: its LaTeX has unbalanced braces',
    ]);
  });

  it("puts the page's notes first, then each block's notes and repairs under its id", () => {
    // Arrange
    const regions: Region[] = [
      {
        kind: 'equation',
        bbox: [0, 0, 10, 10],
        latex: 'x',
        notes: ['a radical without a visible vinculum'],
      },
      { kind: 'table', bbox: [0, 0, 10, 10], cells: [cell(0, 0, 'a'), cell(1, 1, 'b')] },
    ];
    // Act
    const { warnings } = checkRegions([aPage(2, regions, ['read by OCR'])]);
    // Assert
    expect(warnings).toEqual([
      'page 2: read by OCR',
      'page 2: equation_1: a radical without a visible vinculum',
      'page 2: table_1: 2 grid slots no cell covered were filled with empty cells',
    ]);
  });
});

describe('checkedBox', () => {
  it('keeps a box inside the page as it is, rounded to hundredths', () => {
    // Act & Assert
    expect(checkedBox([1.234, 2.345, 30.006, 40], 100, 100)).toEqual({
      box: [1.23, 2.35, 30.01, 40],
      clamped: false,
    });
  });
});

describe('checkedTable', () => {
  it('fills grid slots no cell covers with empty cells, so the grid is rectangular', () => {
    // Act
    const table = checkedTable([cell(0, 0, 'Header', 1, 2), cell(1, 0, 'a')]);
    // Assert
    expect(table).toEqual({
      cells: [cell(0, 0, 'Header', 1, 2), cell(1, 0, 'a'), cell(1, 1, '')],
      repairs: ['1 grid slots no cell covered were filled with empty cells'],
    });
  });

  it("merges a cell that starts inside another cell's span into that cell", () => {
    // Arrange: the header spans the column of "Taken"; "Tall" spans the row of "Below".
    const cells = [
      cell(0, 0, 'Wide', 1, 3),
      cell(0, 2, 'Taken'),
      cell(1, 0, 'Tall', 3, 1),
      cell(2, 0, 'Below'),
      cell(1, 1, 'x'),
      cell(1, 2, 'y'),
      cell(2, 1, 'z'),
      cell(2, 2, 'w'),
      cell(3, 1, ''),
      cell(3, 2, 'v'),
    ];
    // Act
    const table = checkedTable(cells);
    // Assert
    expect(table).toEqual({
      cells: [
        cell(0, 0, 'Wide Taken', 1, 3),
        cell(1, 0, 'Tall Below', 3, 1),
        cell(1, 1, 'x'),
        cell(1, 2, 'y'),
        cell(2, 1, 'z'),
        cell(2, 2, 'w'),
        cell(3, 1, ''),
        cell(3, 2, 'v'),
      ],
      repairs: ['2 cells overlapping another were merged into it'],
    });
  });

  it('shortens a span that runs into a cell placed before it', () => {
    // Arrange: "up" covers (0, 1) and (1, 1), where "left" would reach with its column span.
    const cells = [cell(0, 1, 'up', 2, 1), cell(1, 0, 'left', 1, 2), cell(0, 0, 'corner')];
    // Act
    const table = checkedTable(cells);
    // Assert
    expect(table).toEqual({
      cells: [cell(0, 0, 'corner'), cell(0, 1, 'up', 2, 1), cell(1, 0, 'left')],
      repairs: ['1 cell spans overlapping other cells were shortened'],
    });
  });

  it('drops cells with an impossible position or span, and merges text into an empty occupant', () => {
    // Arrange
    const cells = [
      cell(0, 0, ''),
      cell(0, 0, 'late text'),
      cell(0, 0, ' '),
      cell(-1, 0, 'negative'),
      cell(0, 1, 'ok', 0, 1),
      cell(0, 1, 'fine'),
      cell(0.5, 1, 'fraction'),
    ];
    // Act
    const table = checkedTable(cells);
    // Assert
    expect(table).toEqual({
      cells: [cell(0, 0, 'late text'), cell(0, 1, 'fine')],
      repairs: [
        '3 cells with an impossible position were dropped',
        '2 cells overlapping another were merged into it',
      ],
    });
  });
});

describe('mapBounded', () => {
  it('keeps the order of the items and starts no item after a failure', async () => {
    // Arrange
    const started: number[] = [];
    const fn = async (n: number) => {
      started.push(n);
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (n === 2) throw new Error('item 2 failed');
      return n * 10;
    };
    // Act
    const ok = await mapBounded([3, 1, 4], 2, (n) => Promise.resolve(n * 10));
    const failing = mapBounded([1, 2, 3, 4, 5], 1, fn);
    // Assert
    expect(ok).toEqual([30, 10, 40]);
    await expect(failing).rejects.toThrow('item 2 failed');
    expect(started).toEqual([1, 2]);
  });
});
