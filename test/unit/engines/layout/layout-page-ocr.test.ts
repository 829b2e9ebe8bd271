import { describe, expect, it } from 'vitest';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { PageText, TextRun } from '../../../../functions/engines/layout/types.js';
import { OCR_SIZE, ocrLine, ocrWord, scanPage } from './ocr-page-fixtures.js';

/** An OCR word (it carries a confidence) at (x, baseline), 9 px per character. */
const word = (text: string, x: number, baseline: number, fontSize = OCR_SIZE): TextRun =>
  ocrWord(text, x, baseline, { fontSize });

/** The words of a line starting at x, separated by normal word gaps. */
const line = (text: string, x: number, baseline: number, fontSize = OCR_SIZE): TextRun[] =>
  ocrLine(text, x, baseline, { fontSize });

const page = scanPage;

const layout = (p: PageText) => layoutPage(p, buildLayoutProfile([p]));

const prose = (top: number, count: number): TextRun[] =>
  Array.from({ length: count }, (_, i) =>
    line('the quick brown fox jumps over the lazy dog and keeps on running', 100, top + i * 24),
  ).flat();

describe('layoutPage on OCR words', () => {
  it('makes a numbered section title at body size a heading', () => {
    // Arrange
    const runs = [
      ...prose(200, 4),
      ...line('5.1 Hyper Parameter Optimization', 100, 360),
      ...prose(400, 4),
    ];
    // Act
    const { markdown } = layout(page(runs));
    // Assert
    // The numbering gives the level: `5.1` is a subsection, level 3 under the title.
    expect(markdown).toContain('\n\n### 5.1 Hyper Parameter Optimization\n\n');
  });

  it('does not make a form field a heading, whatever its size', () => {
    // Arrange
    const runs = [...line('Ship Date: September 13, 2021', 100, 120, 30), ...prose(200, 6)];
    // Act
    const { markdown } = layout(page(runs));
    // Assert
    expect(markdown).not.toMatch(/^#/m);
    expect(markdown).toContain('Ship Date: September 13, 2021');
  });

  it('reads a word grid with wide column gaps as a GFM table', () => {
    // Arrange: cells one word gap apart inside, columns at least 23 px apart.
    const grid = [
      ['Date', 'From', 'To', 'Total'],
      ['1/1/2017', 'EAST BOTANY', 'SYDENHAM', '$11.00'],
      ['2/2/2017', 'MASCOT', 'PORT BOTANY', '$12.00'],
      ['3/3/2017', 'ALEXANDRIA', 'TEMPE', '$13.00'],
    ];
    const columns = [100, 230, 400, 560];
    const runs = [
      ...prose(100, 3),
      ...grid.flatMap((cells, r) =>
        cells.flatMap((text, c) => line(text, columns[c] ?? 0, 260 + r * 24)),
      ),
    ];
    // Act
    const { markdown, elements } = layout(page(runs));
    // Assert
    expect(markdown).toContain(
      '| Date | From | To | Total |\n| --- | --- | --- | --- |\n| 1/1/2017 | EAST BOTANY | SYDENHAM | $11.00 |',
    );
    expect(markdown).toContain('| 3/3/2017 | ALEXANDRIA | TEMPE | $13.00 |');
    expect(elements.filter((e) => e.label === 'table')).toHaveLength(1);
  });

  it('splits cells at vertical rules read as pipes and drops the pipes', () => {
    // Arrange
    const rows = ['OTSL | 0.965 | 0.934', 'HTML | 0.969 | 0.927', 'OTSL | 0.938 | 0.904'];
    const runs = [...prose(100, 3), ...rows.flatMap((text, r) => line(text, 100, 260 + r * 24))];
    // Act
    const { markdown } = layout(page(runs));
    // Assert
    expect(markdown).toContain('| OTSL | 0.965 | 0.934 |\n| --- | --- | --- |');
    expect(markdown).toContain('| HTML | 0.969 | 0.927 |');
  });

  it('splits cells at vertical rules of the page between words one word gap apart', () => {
    // Arrange: three cells per row, one word gap apart, a vertical rule in each gap.
    const rows = ['OTSL 0.965 0.934', 'HTML 0.969 0.927', 'OTSL 0.938 0.904'];
    const runs = [...prose(100, 3), ...rows.flatMap((text, r) => line(text, 100, 260 + r * 24))];
    const gaps = (runs.slice(-3) as [TextRun, TextRun, TextRun]).slice(1).map((r) => r.x - 4);
    const rules = gaps.map((x) => ({ x1: x, y1: 230, x2: x, y2: 320 }));
    // Act
    const { markdown } = layout({ ...page(runs), rules });
    // Assert
    expect(markdown).toContain('| OTSL | 0.965 | 0.934 |\n| --- | --- | --- |');
    expect(markdown).toContain('| HTML | 0.969 | 0.927 |');
  });

  /** An invoice grid: right-aligned values under headers set between rules of a shaded band. */
  const invoice = (): { runs: TextRun[]; rules: PageText['rules'] } => {
    const header = 300;
    const runs = [
      ...prose(100, 3),
      word('Date', 100, header),
      // `Cubic` and `Weight` one word gap apart, a rule between them; `Weight` is wider than
      // its values (right-aligned under it) and starts left of the middle of the gap between the
      // two value columns.
      word('Cubic', 355, header),
      word('Weight', 408, header),
      // A column whose cells are all empty.
      word('Extras', 530, header),
      word('Total', 649, header),
    ];
    ['1/1/2017', '2/2/2017', '3/3/2017', '4/4/2017'].forEach((date, r) => {
      const baseline = header + 24 * (r + 1);
      runs.push(
        word(date, 100, baseline),
        word('0.500', 355, baseline),
        word('187', 443, baseline),
        word('$11.00', 640, baseline),
      );
    });
    const rules = [190, 404, 515, 610].map((x) => ({ x1: x, y1: 282, x2: x, y2: 306 }));
    return { runs, rules };
  };

  it('gives a header wider than its values, past the middle of the column gap, its own column', () => {
    // Arrange
    const { runs, rules } = invoice();
    // Act
    const { markdown } = layout({ ...page(runs), rules });
    // Assert
    expect(markdown).toContain('| Date | Cubic | Weight |');
    expect(markdown).toContain('| 1/1/2017 | 0.500 | 187 |');
  });

  it('keeps a column whose only text is its header apart from its neighbours', () => {
    // Arrange
    const { runs, rules } = invoice();
    // Act
    const { markdown } = layout({ ...page(runs), rules });
    // Assert
    expect(markdown).toContain('| Weight | Extras | Total |');
    expect(markdown).toContain('| 187 |  | $11.00 |');
  });

  it('keeps a paragraph with normal word gaps a paragraph', () => {
    // Arrange
    const runs = prose(100, 6);
    // Act
    const { markdown } = layout(page(runs));
    // Assert
    expect(markdown).not.toContain('|');
    expect(markdown.split('\n\n')).toHaveLength(1);
  });
});
