import { describe, expect, it } from 'vitest';
import { analyzePage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { PageText, Segment } from '../../../../functions/engines/layout/types.js';
import { page, run } from './page-fixtures.js';

const h = (y: number, x1: number, x2: number): Segment => ({ x1, y1: y, x2, y2: y });
const v = (x: number, y1: number, y2: number): Segment => ({ x1: x, y1, x2: x, y2 });

/** A grid of filled cell boxes, each drawn as its own four sides. */
const boxes = (xs: number[], ys: number[]): Segment[] => {
  const out: Segment[] = [];
  for (let r = 0; r + 1 < ys.length; r++) {
    for (let c = 0; c + 1 < xs.length; c++) {
      const [x0, x1, y0, y1] = [xs[c] ?? 0, xs[c + 1] ?? 0, ys[r] ?? 0, ys[r + 1] ?? 0];
      out.push(h(y0, x0, x1), h(y1, x0, x1), v(x0, y0, y1), v(x1, y0, y1));
    }
  }
  return out;
};

const analyze = (p: PageText) => analyzePage(p, buildLayoutProfile([p]));

describe('header bands over ruled grids', () => {
  it('joins one header row set between two rules to the grid of cell boxes under it', () => {
    // Arrange: column names between rules at y 100 and 118; the body is drawn as cell boxes
    // starting at the lower rule.
    const xs = [50, 200, 300, 400];
    const rules = [h(100, 50, 400), h(118, 50, 400), ...boxes(xs, [118, 136, 154])];
    const runs = [
      run('Source', 60, 112, { bold: true }),
      run('Tokens', 210, 112, { bold: true }),
      run('Docs', 310, 112, { bold: true }),
      run('DCLM', 60, 130),
      run('3.71T', 210, 130),
      run('2.95B', 310, 130),
      run('arXiv', 60, 148),
      run('20.8B', 210, 148),
      run('3.95M', 310, 148),
    ];
    // Act
    const { markdown, tables } = analyze(page(runs, { rules }));
    // Assert: one table whose header row holds the names.
    expect(tables).toHaveLength(1);
    expect(tables[0]).toMatchObject({ rowCount: 3, colCount: 3 });
    expect(markdown).toContain('| Source | Tokens | Docs |');
    expect(markdown).toContain('| arXiv | 20.8B | 3.95M |');
    expect(markdown).not.toMatch(/^Source/m);
  });

  it('reads underlined header lines over the right-hand columns as header rows, a spanning underline as a spanning cell', () => {
    // Arrange: `Year Ended` with one rule under it across the three value columns (drawn in
    // pieces a stroke apart), the dates each underlined on their own, then a units line; the
    // body grid of cell boxes spans the label column too.
    const xs = [50, 250, 330, 410, 490];
    const rules = [
      h(100, 250, 329),
      h(100, 331, 409),
      h(100, 411, 490),
      h(114, 255, 325),
      h(114, 335, 405),
      h(114, 415, 485),
      ...boxes(xs, [130, 144, 158]),
    ];
    const runs = [
      run('Year Ended', 345, 97, { bold: true }),
      run('Jan 26, 2025', 260, 111, { bold: true }),
      run('Jan 28, 2024', 340, 111, { bold: true }),
      run('Jan 29, 2023', 420, 111, { bold: true }),
      run('(In millions)', 340, 125),
      run('Cost of revenue', 60, 140),
      run('178', 300, 140),
      run('141', 380, 140),
      run('138', 460, 140),
      run('Research', 60, 154),
      run('3,423', 290, 154),
      run('2,532', 370, 154),
      run('1,892', 450, 154),
    ];
    // Act
    const { markdown, tables } = analyze(page(runs, { rules }));
    // Assert: one table; three header rows over the value columns, `Year Ended` over all three.
    expect(tables).toHaveLength(1);
    expect(tables[0]).toMatchObject({ colCount: 4, rowCount: 5, headerRows: 3 });
    expect(markdown).toContain('<tr><th></th><th colspan="3">Year Ended</th></tr>');
    expect(markdown).toContain(
      '<tr><th></th><th>Jan 26, 2025</th><th>Jan 28, 2024</th><th>Jan 29, 2023</th></tr>',
    );
    expect(markdown).toContain(
      '<tr><td>Research</td><td>3,423</td><td>2,532</td><td>1,892</td></tr>',
    );
    expect(markdown).not.toMatch(/^\**Year Ended/m);
  });

  it('leaves a caption above a full-width top rule out of the header', () => {
    // Arrange: a caption line just above the band's top rule, which spans the whole grid.
    const xs = [50, 200, 300, 400];
    const rules = [h(100, 50, 400), h(118, 50, 400), ...boxes(xs, [118, 136, 154])];
    const runs = [
      run('Table 2: Sizes', 50, 97),
      run('Source', 60, 112),
      run('Tokens', 210, 112),
      run('Docs', 310, 112),
      run('DCLM', 60, 130),
      run('3.71T', 210, 130),
      run('2.95B', 310, 130),
      run('arXiv', 60, 148),
      run('20.8B', 210, 148),
      run('3.95M', 310, 148),
    ];
    // Act
    const { markdown } = analyze(page(runs, { rules }));
    // Assert
    expect(markdown).toMatch(/^Table 2: Sizes/m);
    expect(markdown).toContain('| Source | Tokens | Docs |');
  });
});
