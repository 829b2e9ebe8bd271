import { describe, expect, it } from 'vitest';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { PageText, TextRun } from '../../../../functions/engines/layout/types.js';
import { CHAR, page, run } from './page-fixtures.js';

const layout = (p: PageText) => layoutPage(p, buildLayoutProfile([p]));

describe('layoutPage', () => {
  it('reads a two-column page column by column', () => {
    // Arrange
    const runs: TextRun[] = [];
    for (let i = 0; i < 6; i++) {
      runs.push(run(`left column line ${i} has several words`, 50, 100 + i * 12));
      runs.push(run(`right column line ${i} has several words`, 330, 100 + i * 12));
    }
    // Act
    const { markdown } = layout(page(runs));
    // Assert
    expect(markdown.indexOf('left column line 5')).toBeLessThan(
      markdown.indexOf('right column line 0'),
    );
  });

  it('joins hyphenated line breaks into one word', () => {
    // Arrange
    const runs = [
      run('The engine reads the exam-', 50, 100),
      run('ple text and keeps it whole.', 50, 112),
    ];
    // Act
    const { markdown } = layout(page(runs));
    // Assert
    expect(markdown).toBe('The engine reads the example text and keeps it whole.');
  });

  it('normalises bullets to dashes and keeps enumerators', () => {
    // Arrange
    const runs = [
      run('• first point of the list', 50, 100),
      run('• second point of the list', 50, 112),
      run('1. numbered step one', 50, 140),
      run('2. numbered step two', 50, 152),
    ];
    // Act
    const { markdown, elements } = layout(page(runs));
    // Assert
    expect(markdown).toContain('- first point of the list\n\n- second point of the list');
    expect(markdown).toContain('1. numbered step one');
    expect(elements.filter((e) => e.label === 'list')).toHaveLength(4);
  });

  it('emits aligned columns without rules as a GFM table', () => {
    // Arrange
    const rows = [
      ['Model', 'Score', 'Time'],
      ['alpha', '0.91', '12s'],
      ['beta', '0.87', '15s'],
      ['gamma', '0.78', '9s'],
    ];
    const runs = rows.flatMap((cells, r) =>
      cells.map((text, c) => run(text, 50 + c * 120, 200 + r * 14)),
    );
    // Act
    const { markdown, elements } = layout(page(runs));
    // Assert
    expect(markdown).toContain(
      '| Model | Score | Time |\n| --- | --- | --- |\n| alpha | 0.91 | 12s |',
    );
    expect(elements.some((e) => e.label === 'table')).toBe(true);
  });

  it('makes a larger short line a heading and ranks heading levels by size', () => {
    // Arrange
    const runs = [
      run('Document Title', 50, 80, { fontSize: 20 }),
      run('Section One', 50, 120, { fontSize: 14 }),
      ...Array.from({ length: 8 }, (_, i) =>
        run('Body text line that is long enough to be prose.', 50, 150 + i * 12),
      ),
    ];
    // Act
    const { markdown } = layout(page(runs));
    // Assert
    expect(markdown).toMatch(/^# Document Title\n\n## Section One\n\n/);
  });

  it('makes a short title-case italic line above roman text a heading, not the start of a paragraph', () => {
    // Arrange: body-size italic title, then a paragraph at normal line spacing
    const body = 'The nut is of one piece, all metal, designed to hold tight despite vibration.';
    const runs = [
      ...Array.from({ length: 4 }, (_, i) => run(body, 50, 80 + i * 12)),
      run('Boots Self-Locking Nut', 50, 140, { italic: true }),
      ...Array.from({ length: 4 }, (_, i) => run(body, 50, 152 + i * 12)),
      run('see the figure below', 50, 220, { italic: true }),
      run(body, 50, 232),
    ];
    // Act
    const { markdown } = layout(page(runs));
    // Assert
    expect(markdown).toMatch(/\n\n#{1,6} Boots Self-Locking Nut\n\nThe nut is of one piece/);
    expect(markdown).not.toMatch(/#{1,6} see the figure below/);
  });

  it('keeps a bold name centred over its affiliation as bold text, and a bold line over prose as a heading', () => {
    // Arrange: an author block (name over university, both centred on x = 300), then a bold
    // "Methods" line over a paragraph.
    const body = 'The method reads every page and keeps the text that the layout analysis finds.';
    const centred = (text: string, baseline: number, extra: Partial<TextRun> = {}) =>
      run(text, 300 - (text.length * CHAR) / 2, baseline, extra);
    const runs = [
      ...Array.from({ length: 3 }, (_, i) => run(body, 50, 60 + i * 12)),
      centred('Ada Lovelace', 120, { bold: true }),
      centred('University of London', 132),
      run('Methods', 50, 170, { bold: true }),
      ...Array.from({ length: 4 }, (_, i) => run(body, 50, 182 + i * 12)),
    ];
    // Act
    const { markdown } = layout(page(runs));
    // Assert
    expect(markdown).toContain('**Ada Lovelace**\n\nUniversity of London');
    expect(markdown).not.toMatch(/#{1,6} Ada Lovelace/);
    expect(markdown).toMatch(/\n\n#{1,6} Methods\n\nThe method reads/);
  });

  it('keeps page numbers and running headers out of the Markdown but in the elements', () => {
    // Arrange
    const pages = [1, 2, 3].map((n) =>
      page(
        [
          run('Annual Report 2024', 250, 30, { fontSize: 8 }),
          run(`Body paragraph text on page ${n} with enough words.`, 50, 200),
          run(String(n), 300, 770, { fontSize: 8 }),
        ],
        { pageNumber: n },
      ),
    );
    const profile = buildLayoutProfile(pages);
    const second = pages[1]!;
    // Act
    const { markdown, elements } = layoutPage(second, profile);
    // Assert
    expect(markdown).toBe('Body paragraph text on page 2 with enough words.');
    expect(elements.map((e) => e.label)).toEqual(expect.arrayContaining(['header', 'footer']));
  });

  it('keeps every box inside the page with a positive size', () => {
    // Arrange
    const runs = [run('text hanging off the right edge of the page', 590, 5), run('x', -20, 790)];
    // Act
    const { elements } = layout(page(runs));
    // Assert
    for (const e of elements) {
      expect(e.bbox.x).toBeGreaterThanOrEqual(0);
      expect(e.bbox.y).toBeGreaterThanOrEqual(0);
      expect(e.bbox.w).toBeGreaterThan(0);
      expect(e.bbox.h).toBeGreaterThan(0);
      expect(e.bbox.x + e.bbox.w).toBeLessThanOrEqual(612);
      expect(e.bbox.y + e.bbox.h).toBeLessThanOrEqual(792);
    }
  });
});
