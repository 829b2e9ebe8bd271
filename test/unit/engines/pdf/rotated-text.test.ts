import { degrees, PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { analyzePage } from '../../../../functions/engines/layout/layout-page.js';
import { buildRows, rowText } from '../../../../functions/engines/layout/lines.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { TextRun } from '../../../../functions/engines/layout/types.js';
import type { ExtractedPage } from '../../../../functions/engines/pdf/page-text.js';
import { extractPdfiumPage } from '../../../../functions/engines/pdf/pdfium-page-text.js';
import { loadPdfium, PdfiumDocument } from '../../../../functions/engines/pdf/pdfium.js';

const read = async (draw: (doc: PDFDocument) => Promise<void>): Promise<ExtractedPage> => {
  const doc = await PDFDocument.create();
  await draw(doc);
  const reader = PdfiumDocument.open(await loadPdfium(), await doc.save());
  try {
    return extractPdfiumPage(reader, 1, 144);
  } finally {
    reader.close();
  }
};

const runWith = (runs: readonly TextRun[], text: string): TextRun => {
  const run = runs.find((r) => r.text === text);
  if (!run) throw new Error(`no run ${text}: ${runs.map((r) => r.text).join(' | ')}`);
  return run;
};

const BODY =
  'The baseline agents are described below, with their performance on each task shown in the table.';

describe('rotated text', () => {
  it('reads text set at 45 and 90 degrees as runs in reading order with their rotation and box', async () => {
    // Arrange / Act
    const page = await read(async (doc) => {
      const font = await doc.embedFont(StandardFonts.Helvetica);
      const p = doc.addPage([612, 792]);
      p.drawText('Procedure time', { x: 200, y: 600, size: 10, font, rotate: degrees(45) });
      p.drawText('Up the margin', { x: 30, y: 300, size: 12, font, rotate: degrees(90) });
      p.drawText('Upright text', { x: 100, y: 400, size: 12, font });
    });
    // Assert
    const slanted = runWith(page.text.runs, 'Procedure time');
    expect(slanted.rotation).toBeCloseTo(45, 0);
    // Its box is axis-aligned on the page image (144 DPI): it starts at (200, 600) pt.
    expect(slanted.x).toBeGreaterThan(195 * 2 - 10);
    expect(slanted.x).toBeLessThan(200 * 2);
    expect(slanted.y + slanted.h).toBeGreaterThan((792 - 600) * 2);
    expect(slanted.w).toBeGreaterThan(50 * 2);
    expect(slanted.h).toBeGreaterThan(50 * 2);
    const vertical = runWith(page.text.runs, 'Up the margin');
    expect(vertical.rotation).toBeCloseTo(90, 0);
    expect(vertical.h).toBeGreaterThan(3 * vertical.w);
    expect(runWith(page.text.runs, 'Upright text').rotation).toBeUndefined();
  });

  it('puts each rotated header cell of a ruled table into the column under where it starts', async () => {
    // Arrange: a grid of 3 columns; the header's labels rise at 45° from their columns' bottoms
    // and reach over the next column.
    const page = await read(async (doc) => {
      const font = await doc.embedFont(StandardFonts.Helvetica);
      const p = doc.addPage([612, 792]);
      const xs = [100, 200, 260, 320];
      const ys = [600, 540, 520, 500, 480];
      for (const x of xs) p.drawLine({ start: { x, y: ys[0]! }, end: { x, y: ys[4]! } });
      for (const y of ys) p.drawLine({ start: { x: xs[0]!, y }, end: { x: xs[3]!, y } });
      p.drawText('Task', { x: 105, y: 545, size: 10, font });
      p.drawText('Procedure', { x: 205, y: 545, size: 9, font, rotate: degrees(45) });
      p.drawText('Completion', { x: 265, y: 545, size: 9, font, rotate: degrees(45) });
      const body = [
        ['Clustering', '0.87', '0.20'],
        ['Regression', '0.42', '0.00'],
        ['Translation', '0.40', '0.40'],
      ];
      body.forEach((row, r) => {
        row.forEach((text, c) => {
          p.drawText(text, { x: xs[c]! + 5, y: ys[r + 1]! - 15, size: 10, font });
        });
      });
      p.drawText(BODY, { x: 72, y: 420, size: 10, font });
    });
    // Act
    const { markdown, tables } = analyzePage(page.text, buildLayoutProfile([page.text]));
    // Assert
    expect(tables).toHaveLength(1);
    const header = tables[0]!.cells.filter((c) => c.row === 0).sort((a, b) => a.col - b.col);
    expect(header.map((c) => c.text)).toEqual(['Task', 'Procedure', 'Completion']);
    expect(markdown).toContain('| Task | Procedure | Completion |');
    expect(markdown.match(/Procedure/g)).toHaveLength(1);
  });

  it('keeps rotated text in a side margin out of the Markdown, as a header element', async () => {
    // Arrange
    const page = await read(async (doc) => {
      const font = await doc.embedFont(StandardFonts.Helvetica);
      const p = doc.addPage([612, 792]);
      p.drawText('arXiv:1506.06975v3 [stat.CO] 13 Jun 2017', {
        x: 30,
        y: 250,
        size: 14,
        font,
        rotate: degrees(90),
      });
      for (let k = 0; k < 5; k++) p.drawText(BODY, { x: 72, y: 600 - 14 * k, size: 10, font });
    });
    // Act
    const { markdown, elements } = analyzePage(page.text, buildLayoutProfile([page.text]));
    // Assert
    expect(markdown).not.toContain('arXiv');
    expect(markdown).toContain('The baseline agents');
    expect(elements).toContainEqual(
      expect.objectContaining({
        label: 'header',
        text: 'arXiv:1506.06975v3 [stat.CO] 13 Jun 2017',
      }),
    );
  });

  it('lays out rotated text outside tables and margins as text of its own, not inside upright lines', async () => {
    // Arrange: a label at 90° between two columns of upright text on the same baselines.
    const page = await read(async (doc) => {
      const font = await doc.embedFont(StandardFonts.Helvetica);
      const p = doc.addPage([612, 792]);
      for (let k = 0; k < 4; k++) {
        p.drawText('Left column line of text', { x: 72, y: 600 - 14 * k, size: 10, font });
        p.drawText('Right column line of text', { x: 330, y: 600 - 14 * k, size: 10, font });
      }
      p.drawText('Sideways', { x: 300, y: 560, size: 10, font, rotate: degrees(90) });
    });
    // Act
    const { markdown } = analyzePage(page.text, buildLayoutProfile([page.text]));
    // Assert
    expect(markdown).toContain('Sideways');
    expect(markdown).not.toMatch(/text Sideways|Sideways Right/);
  });

  it('makes rows of rotated runs apart from the upright line they end on', () => {
    // Arrange: two labels at 45° whose boxes end on the baseline of an upright row.
    const run = (text: string, x: number, y: number, w: number, h: number, rotation?: number) => ({
      text,
      x,
      y,
      w,
      h,
      baseline: y + h,
      fontSize: 20,
      fontName: 'Helvetica',
      bold: false,
      italic: false,
      monospace: false,
      ...(rotation === undefined ? {} : { rotation }),
    });
    const runs = [
      run('Task', 100, 80, 40, 20),
      run('Procedure', 160, 20, 80, 80, 45),
      run('Completion', 185, 15, 85, 85, 45),
    ];
    // Act
    const rows = buildRows(runs);
    // Assert
    expect(rows.map(rowText).sort()).toEqual(['Procedure Completion', 'Task']);
    const labels = rows.find((r) => rowText(r) === 'Procedure Completion');
    expect(labels?.fragments.map((f) => f.text)).toEqual(['Procedure', 'Completion']);
  });

  it('does not take the size of rotated text for a heading size', async () => {
    // Arrange: a large stamp up the margin beside body text.
    const page = await read(async (doc) => {
      const font = await doc.embedFont(StandardFonts.Helvetica);
      const p = doc.addPage([612, 792]);
      p.drawText('arXiv:1506.06975v3', { x: 30, y: 250, size: 20, font, rotate: degrees(90) });
      for (let k = 0; k < 5; k++) p.drawText(BODY, { x: 72, y: 600 - 14 * k, size: 10, font });
    });
    // Act
    const profile = buildLayoutProfile([page.text]);
    // Assert
    expect(profile.headingSizes).not.toContain(20);
  });
});

describe('a page turned with /Rotate', () => {
  const LINES = [
    'The payment of the outstanding',
    'balance is due within thirty',
    'days of the invoice date and',
    'late fees apply after that.',
  ];

  it.each([90, 180, 270])(
    'reads the lines of a page shown turned %i degrees in order, as one paragraph',
    async (rotate) => {
      // Arrange: four lines of one paragraph, upright on the page, the page turned for display.
      const page = await read(async (doc) => {
        const font = await doc.embedFont(StandardFonts.Helvetica);
        const p = doc.addPage([612, 792]);
        p.setRotation(degrees(rotate));
        LINES.forEach((line, i) => {
          p.drawText(line, { x: 72, y: 700 - i * 14, size: 12, font });
        });
      });
      // Act
      const { markdown, elements } = analyzePage(page.text, buildLayoutProfile([page.text]));
      // Assert: the text as written, and its boxes on the image as shown (its width the page's
      // height for a quarter turn).
      expect(markdown).toBe(LINES.join(' '));
      // The text layer's own text (the verification evidence) lists the lines in order too.
      expect(page.stats.rawText).toBe(LINES.join('\n'));
      const quarter = rotate !== 180;
      expect(page.text.width).toBe((quarter ? 792 : 612) * 2);
      for (const e of elements) {
        expect(e.bbox.x).toBeGreaterThanOrEqual(0);
        expect(e.bbox.y).toBeGreaterThanOrEqual(0);
        expect(e.bbox.x + e.bbox.w).toBeLessThanOrEqual(page.text.width);
        expect(e.bbox.y + e.bbox.h).toBeLessThanOrEqual(page.text.height);
        // Lines run down (or up) the image on a quarter turn: taller than wide.
        if (quarter) expect(e.bbox.h).toBeGreaterThan(e.bbox.w);
        else expect(e.bbox.w).toBeGreaterThan(e.bbox.h);
      }
    },
  );
});
