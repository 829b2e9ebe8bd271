import * as XLSX from '@e965/xlsx';
import { describe, expect, it } from 'vitest';
import {
  DocumentRejectedError,
  UnsupportedDocumentError,
} from '../../../../functions/core/domain/errors.js';
import { MAX_SHEET_CELLS, sheetPage } from '../../../../functions/engines/office/sheets.js';
import { convertXls } from '../../../../functions/engines/office/xls.js';
import { convertXlsx, decodeRange } from '../../../../functions/engines/office/xlsx.js';
import { devFile, zipOf } from '../../../support/office-fixtures.js';

/** A legacy (BIFF8) workbook written by SheetJS: merged cells, number formats, a hidden sheet. */
function legacyWorkbook(): Uint8Array {
  const book = XLSX.utils.book_new();
  const sales = XLSX.utils.aoa_to_sheet([
    ['Region', 'Sales', null, 'Note'],
    ['', 'Q1', 'Q2', null],
    ['North', 1234.5, 0.25, 'a|b'],
    [],
    ['Total', 99],
  ]);
  sales['!merges'] = [
    { s: { r: 0, c: 1 }, e: { r: 0, c: 2 } },
    { s: { r: 0, c: 0 }, e: { r: 1, c: 0 } },
  ];
  (sales.B3 as XLSX.CellObject).z = '#,##0.00';
  (sales.C3 as XLSX.CellObject).z = '0%';
  XLSX.utils.book_append_sheet(book, sales, 'Sales');
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['secret']]), 'Hidden');
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['x', 'y']]), 'Other');
  book.Workbook = { Sheets: [{ Hidden: 0 }, { Hidden: 1 }, { Hidden: 0 }] };
  return new Uint8Array(XLSX.write(book, { type: 'array', bookType: 'biff8' }) as ArrayBuffer);
}

describe('convertXlsx on the dev corpus', () => {
  it('gives one page per sheet, headed by its name, with side-by-side tables apart', async () => {
    // Act
    const { pages, geometry } = await convertXlsx(devFile('docling-test-01.xlsx'));
    // Assert
    expect(geometry).toBe('file');
    expect(pages.map((p) => p.markdown.split('\n')[0])).toEqual([
      '# Sheet1',
      '# Sheet2',
      '# Sheet3',
    ]);
    expect(pages[0]?.markdown).toContain(
      '| first | second | third |\n| --- | --- | --- |\n| 1 | 5 | 9 |',
    );
    expect(pages[0]?.markdown).toContain('| 6 | 0 | -6 |');
    // Sheet2: A1:D9, G5:I9 and C14:E18 are three tables, read top to bottom, then left to right.
    const tables = (pages[1]?.markdown ?? '').split('\n\n').slice(1);
    expect(tables.map((t) => t.split('\n').length)).toEqual([10, 6, 6]);
    expect(pages[1]?.elements.map((e) => e.box)).toEqual([
      { x: 36, y: 36, w: 192, h: 144 },
      { x: 324, y: 100, w: 144, h: 80 },
      { x: 132, y: 244, w: 144, h: 80 },
    ]);
  });

  it('repeats merged cells in every cell they cover and adds the picture as a figure', async () => {
    // Act
    const { pages } = await convertXlsx(devFile('docling-test-01.xlsx'));
    // Assert
    const markdown = pages[2]?.markdown ?? '';
    expect(markdown).toContain(
      '| first | header | header |\n| --- | --- | --- |\n| first | second | third |',
    );
    expect(markdown).toContain('| 3 | 4 | 5 |\n| 3 | 6 | 7 |\n| 8 | 9 | 9 |\n| 10 | 9 | 9 |');
    expect(markdown).toContain('| first (f) | header (f) | header (f) |');
    expect(markdown.endsWith('![](#figure-1)')).toBe(true);
    expect(pages[2]?.elements.map((e) => e.label)).toEqual(['table', 'table', 'figure']);
    for (const page of pages) {
      for (const { box } of page.elements) {
        expect(box.x + box.w).toBeLessThanOrEqual(page.widthPt);
        expect(box.y + box.h).toBeLessThanOrEqual(page.heightPt);
      }
    }
  });

  it('reads formulas as their cached values, dates and numbers as formatted, and skips hidden sheets', async () => {
    // Arrange: an xlsx written by SheetJS, with a hidden sheet between two visible ones.
    const book = XLSX.utils.book_new();
    const data = XLSX.utils.aoa_to_sheet([
      ['When', 'Amount', 'Double', 'Ok'],
      [45000, 1234.5, 0, true],
    ]);
    (data.A2 as XLSX.CellObject).z = 'yyyy-mm-dd';
    (data.B2 as XLSX.CellObject).z = '#,##0.00';
    data.C2 = { t: 'n', v: 2469, f: 'B2*2' };
    XLSX.utils.book_append_sheet(book, data, 'Data');
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['secret']]), 'Hidden');
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['x']]), 'Last');
    book.Workbook = { Sheets: [{ Hidden: 0 }, { Hidden: 2 }, { Hidden: 0 }] };
    const bytes = new Uint8Array(
      XLSX.write(book, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer,
    );
    // Act
    const { pages } = await convertXlsx(bytes);
    // Assert
    expect(pages.map((p) => p.markdown)).toEqual([
      '# Data\n\n| When | Amount | Double | Ok |\n| --- | --- | --- | --- |\n| 2023-03-15 | 1,234.50 | 2469 | TRUE |',
      '# Last\n\n| x |\n| --- |',
    ]);
  });

  it('answers UnsupportedDocumentError for a package that is not a readable workbook', async () => {
    // Arrange
    const notAWorkbook = zipOf({ '[Content_Types].xml': '<Types/>', 'xl/workbook.xml': '<x' });
    // Act
    const converting = convertXlsx(notAWorkbook);
    // Assert
    await expect(converting).rejects.toBeInstanceOf(UnsupportedDocumentError);
  });
});

describe('convertXls', () => {
  it('reads a legacy workbook: visible sheets, merged cells, number formats, escaped pipes', () => {
    // Act
    const { pages } = convertXls(legacyWorkbook());
    // Assert
    expect(pages.map((p) => p.markdown)).toEqual([
      [
        '# Sales',
        '| Region | Sales | Sales | Note |\n| --- | --- | --- | --- |\n| Region | Q1 | Q2 |  |\n| North | 1,234.50 | 25% | a\\|b |',
        '| Total | 99 |\n| --- | --- |',
      ].join('\n\n'),
      '# Other\n\n| x | y |\n| --- | --- |',
    ]);
    expect(pages[0]?.sourceText).toBe(
      'Sales Region Sales Sales Note Region Q1 Q2 North 1,234.50 25% a|b Total 99',
    );
  });

  it('answers UnsupportedDocumentError for bytes SheetJS cannot read', () => {
    // Arrange
    const garbage = new Uint8Array(1024).fill(0x41);
    garbage.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    // Act
    const converting = () => convertXls(garbage);
    // Assert
    expect(converting).toThrow(UnsupportedDocumentError);
  });
});

describe('sheetPage', () => {
  const sheet = (cells: { r: number; c: number; text: string }[]) => ({
    name: 'Big',
    cells,
    merges: [],
    figures: [],
    columnWidthPt: () => 48,
    rowHeightPt: () => 15,
  });

  it('refuses a sheet whose tables exceed the cell cap', () => {
    // Arrange: a header row ten cells wide over a long first column: one table of rows × 10.
    const rows = Math.ceil(MAX_SHEET_CELLS / 10) + 1;
    const cells = Array.from({ length: rows }, (_, r) => ({ r, c: 0, text: 'v' }));
    for (let c = 1; c < 10; c++) cells.push({ r: 0, c, text: 'h' });
    // Act
    const rendering = () => sheetPage(sheet(cells), { count: 0 });
    // Assert
    expect(rendering).toThrow(DocumentRejectedError);
    expect(rendering).toThrow(/has tables of \d+ cells; at most 500000 cells are parsed per sheet/);
  });

  it('renders a full table of 200,000 cells, under the cap, without overflowing the stack', () => {
    // Arrange: 20,000 rows × 10 columns, every cell filled.
    const cells: { r: number; c: number; text: string }[] = [];
    for (let r = 0; r < 20_000; r++) for (let c = 0; c < 10; c++) cells.push({ r, c, text: 'v' });
    // Act
    const page = sheetPage(sheet(cells), { count: 0 });
    // Assert
    expect(page.markdown.split('\n')).toHaveLength(2 + 20_001);
  });

  it('keeps the text of a cell merged over a large range in its first cell only', () => {
    // Arrange: 100 characters merged over 700 × 700 cells (490,000 cells), and a small merge.
    const text = 'x'.repeat(100);
    const page = sheetPage(
      {
        ...sheet([
          { r: 0, c: 0, text },
          { r: 700, c: 0, text: 'small' },
        ]),
        merges: [
          { r0: 0, c0: 0, r1: 699, c1: 699 },
          { r0: 700, c0: 0, r1: 700, c1: 7 },
        ],
      },
      { count: 0 },
    );
    // Act
    const copies = page.markdown.split(text).length - 1;
    // Assert: once in the Markdown, and in the evidence; the 8-cell merge still repeated.
    expect(copies).toBe(1);
    expect((page.sourceText ?? '').split(text).length - 1).toBe(1);
    expect(page.markdown).toContain(
      '| small | small | small | small | small | small | small | small |',
    );
    expect(page.markdown.length).toBeLessThan(5_000_000);
  });

  it('keeps far-apart cells as separate small tables', () => {
    // Arrange
    const cells = [
      { r: 0, c: 0, text: 'A1' },
      { r: 999_999, c: 16_000, text: 'far' },
    ];
    // Act
    const page = sheetPage(sheet(cells), { count: 0 });
    // Assert
    expect(page.markdown).toBe('# Big\n\n| A1 |\n| --- |\n\n| far |\n| --- |');
    expect(page.heightPt).toBe(1_000_000 * 15 + 72);
  });

  it.each([
    ['B2:D5', { r0: 1, c0: 1, r1: 4, c1: 3 }],
    ['$A$1', { r0: 0, c0: 0, r1: 0, c1: 0 }],
    ['AA10:A1', { r0: 0, c0: 0, r1: 9, c1: 26 }],
    ['nonsense', undefined],
  ])('decodes the range %s', (range, expected) => {
    // Act
    const decoded = decodeRange(range);
    // Assert
    expect(decoded).toEqual(expected);
  });
});
