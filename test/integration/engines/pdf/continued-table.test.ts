import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import {
  assembleDocumentMarkdown,
  CONTINUED_TABLE,
  type DocumentPage,
} from '../../../../functions/core/domain/continued-tables.js';
import type { DocumentRef } from '../../../../functions/core/ports/document-engine.js';
import { LocalTextProvider } from '../../../../functions/engines/pdf/local-text-provider.js';
import { PdfDocumentCache } from '../../../../functions/engines/pdf/pdf-document-cache.js';
import { PdfEngine } from '../../../../functions/engines/pdf/pdf-engine.js';
import { laidOutPages } from '../../../support/laid-out-pages.js';
import { CorpusStore } from '../../../support/corpus-store.js';

const store = new CorpusStore();
const cache = new PdfDocumentCache(store);
const engine = new PdfEngine(cache);
const provider = new LocalTextProvider(cache);

afterAll(async () => {
  await cache.close();
});

const HEADER = ['Region', 'Units sold', 'Revenue (USD)'];
const ROWS = Array.from({ length: 30 }, (_, i) => [
  `District ${String(i + 1).padStart(2, '0')}`,
  String(1200 + i * 37),
  String(48_000 + i * 1_310),
]);

/**
 * A ruled table of `rows` under {@link HEADER} (unless `header` is false), its top edge at `top`
 * (PDF points from the bottom); returns its bottom edge.
 */
function drawTable(
  page: PDFPage,
  fonts: { regular: PDFFont; bold: PDFFont },
  rows: string[][],
  top: number,
  header = true,
): number {
  const xs = [72, 252, 382, 540];
  const rowHeight = 20;
  const all = header ? [HEADER, ...rows] : rows;
  all.forEach((cells, r) => {
    const y = top - (r + 1) * rowHeight + 6;
    cells.forEach((text, c) => {
      page.drawText(text, {
        x: (xs[c] ?? 0) + 6,
        y,
        size: 10,
        font: header && r === 0 ? fonts.bold : fonts.regular,
      });
    });
  });
  const bottom = top - all.length * rowHeight;
  for (let r = 0; r <= all.length; r++) {
    const y = top - r * rowHeight;
    page.drawLine({ start: { x: 72, y }, end: { x: 540, y }, thickness: 0.8, color: rgb(0, 0, 0) });
  }
  for (const x of xs) {
    page.drawLine({
      start: { x, y: top },
      end: { x, y: bottom },
      thickness: 0.8,
      color: rgb(0, 0, 0),
    });
  }
  return bottom;
}

/**
 * Two letter pages: a table that fills the rest of page 1 and goes on at the top of page 2, with
 * its header repeated there or not; a page number at the foot of each page.
 */
async function twoPageTable(repeatHeader: boolean): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const fonts = { regular: font, bold };
  const first = doc.addPage([612, 792]);
  first.drawText('Quarterly sales', { x: 72, y: 720, size: 18, font: bold });
  first.drawText('The table below lists the units sold and the revenue of every district.', {
    x: 72,
    y: 690,
    size: 10,
    font,
  });
  drawTable(first, fonts, ROWS.slice(0, 24), 670);
  const second = doc.addPage([612, 792]);
  const bottom = drawTable(second, fonts, ROWS.slice(24), 740, repeatHeader);
  second.drawText('Revenue grew in every district over the quarter.', {
    x: 72,
    y: bottom - 30,
    size: 10,
    font,
  });
  [first, second].forEach((page, i) => {
    page.drawText(String(i + 1), { x: 302, y: 30, size: 9, font });
  });
  return doc.save();
}

/** The pages of a generated PDF as the text-layer provider answers them, with their furniture. */
async function parsedPages(name: string, bytes: Uint8Array): Promise<DocumentPage[]> {
  const key = `generated/${name}.pdf`;
  await store.put(key, bytes, 'application/pdf');
  const document: DocumentRef = { key, format: 'pdf', hash: key };
  const pages: DocumentPage[] = [];
  for await (const { pageNumber, result } of laidOutPages(engine, provider, document)) {
    pages.push({
      pageNumber,
      markdown: result.markdown,
      furniture: result.elements
        .filter((e) => e.label === 'header' || e.label === 'footer')
        .map((e) => e.text),
    });
  }
  return pages;
}

const tableLines = (markdown: string): string[] =>
  markdown.split('\n').filter((line) => line.startsWith('|'));

describe('a table continued across a page break, read from the text layer', () => {
  it('is one table in the document Markdown, its repeated header once, with a warning on page 2', async () => {
    // Arrange
    const pages = await parsedPages('repeated-header', await twoPageTable(true));
    // Act
    const { markdown, warnings } = assembleDocumentMarkdown(pages);
    // Assert: header, delimiter and all 30 rows in one run of table lines, then the paragraph.
    const lines = tableLines(markdown);
    expect(lines).toEqual([
      `| ${HEADER.join(' | ')} |`,
      '| --- | --- | --- |',
      ...ROWS.map((row) => `| ${row.join(' | ')} |`),
    ]);
    expect(markdown).toContain(`${lines.join('\n')}\n\nRevenue grew in every district`);
    expect(markdown).not.toContain(CONTINUED_TABLE);
    expect(warnings).toEqual([
      expect.objectContaining({ kind: 'duplicate_region', page_number: 2 }),
    ]);
    expect(warnings[0]?.detail).toContain('repeated header row left out');
    // Each page keeps its own part, page 2's marked as continued.
    expect(pages[1]?.markdown.startsWith(`${CONTINUED_TABLE}\n| Region |`)).toBe(true);
    expect(tableLines(pages[0]?.markdown ?? '')).toHaveLength(26);
  });

  it('keeps the first row of a continuation without a header as a data row', async () => {
    // Arrange
    const pages = await parsedPages('no-header', await twoPageTable(false));
    // Act
    const { markdown, warnings } = assembleDocumentMarkdown(pages);
    // Assert
    expect(tableLines(markdown)).toEqual([
      `| ${HEADER.join(' | ')} |`,
      '| --- | --- | --- |',
      ...ROWS.map((row) => `| ${row.join(' | ')} |`),
    ]);
    expect(warnings.map((w) => w.page_number)).toEqual([2]);
    expect(warnings[0]?.detail).not.toContain('header');
  });
});
