import { describe, expect, it } from 'vitest';
import { analyzePage, CONTINUED_TABLE } from '../../../../functions/engines/layout/layout-page.js';
import { buildRows } from '../../../../functions/engines/layout/lines.js';
import { renderTable } from '../../../../functions/engines/layout/markdown.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import { mergeStackedTables } from '../../../../functions/engines/layout/table-stack.js';
import { streamTable, type Table } from '../../../../functions/engines/layout/tables.js';
import type { PageText, Segment } from '../../../../functions/engines/layout/types.js';
import { page, run } from './page-fixtures.js';

const h = (y: number, x1: number, x2: number): Segment => ({ x1, y1: y, x2, y2: y });
const v = (x: number, y1: number, y2: number): Segment => ({ x1: x, y1, x2: x, y2 });

const analyze = (p: PageText) => analyzePage(p, buildLayoutProfile([p]));

const tableCount = (markdown: string): number =>
  (markdown.match(/<table>/g) ?? []).length + (markdown.match(/^\| ?---/gm) ?? []).length;

describe('tables whole', () => {
  it('reads a table ruled inside only as one table, its outer columns included', () => {
    // Arrange: booktabs rules from 50 to 450, vertical rules between the columns but none at
    // the sides (the first and last columns lie outside the outermost vertical rules).
    const rules = [h(100, 50, 450), h(130, 50, 450), h(190, 50, 450)];
    for (const x of [130, 230, 340]) rules.push(v(x, 100, 190));
    const runs = [
      run('# enc', 60, 118),
      run('Language', 140, 118),
      run('TEDs', 240, 118),
      run('Inference', 350, 118),
      run('6', 60, 150),
      run('OTSL', 140, 150),
      run('0.965', 240, 150),
      run('2.73', 350, 150),
      run('4', 60, 175),
      run('HTML', 140, 175),
      run('0.969', 240, 175),
      run('5.39', 350, 175),
    ];
    // Act
    const { markdown, tables } = analyze(page(runs, { rules }));
    // Assert
    expect(tables).toHaveLength(1);
    expect(tableCount(markdown)).toBe(1);
    expect(markdown).toContain('| # enc | Language | TEDs | Inference |');
    expect(markdown).toContain('| 4 | HTML | 0.969 | 5.39 |');
  });

  it('joins a header band read between rules to the ruled grid under it and its summary rows', () => {
    // Arrange: a header band between two full-width rules; under it a body grid drawn with all
    // its rules, then a summary grid; the header names sit over pairs of body columns.
    const rules: Segment[] = [h(100, 50, 450), h(140, 50, 450)];
    const body = [142, 162, 182];
    for (const y of body) rules.push(h(y, 50, 450));
    for (const x of [50, 100, 200, 250, 300, 350, 400, 450]) rules.push(v(x, 142, 182));
    rules.push(h(186, 50, 450), h(206, 50, 450));
    for (const x of [50, 200, 250, 300, 350, 400, 450]) rules.push(v(x, 186, 206));
    const runs = [
      run('ReACT', 230, 115),
      run('Hypothesizer', 330, 115),
      run('#', 60, 133),
      run('Task', 110, 133),
      run('1', 60, 156),
      run('Clustering', 105, 156),
      run('0.87', 205, 156),
      run('0.20', 255, 156),
      run('0.90', 305, 156),
      run('0.40', 355, 156),
      run('0.10', 405, 156),
      run('2', 60, 176),
      run('Regression', 105, 176),
      run('0.42', 205, 176),
      run('0.00', 255, 176),
      run('0.38', 305, 176),
      run('0.20', 355, 176),
      run('0.30', 405, 176),
      run('Average', 60, 200),
      run('0.59', 205, 200),
      run('0.38', 255, 200),
      run('0.56', 305, 200),
      run('0.28', 355, 200),
      run('0.34', 405, 200),
    ];
    // Act
    const { markdown, tables } = analyze(page(runs, { rules }));
    // Assert: one table, header rows first, the summary row last.
    expect(tables).toHaveLength(1);
    expect(tableCount(markdown)).toBe(1);
    expect(tables[0]).toMatchObject({ colCount: 7, rowCount: 5, headerRows: 2 });
    const order = ['ReACT', '#', 'Clustering', 'Regression', 'Average'].map((t) =>
      markdown.indexOf(`>${t}<`),
    );
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > (order[i - 1] ?? 0)))).toBe(true);
    expect(markdown).toMatch(/<tr><th[^>]*><\/th><th[^>]*><\/th><th colspan="2">ReACT<\/th>/);
    expect(markdown).toContain('<tr><th>#</th><th>Task</th>');
  });

  it('keeps a caption set just above its table before the table', () => {
    // Arrange: the caption's last line ends 2 px above the table's top rule.
    const rules = [h(130, 50, 350), h(150, 50, 350), h(190, 50, 350)];
    for (const x of [50, 150, 250, 350]) rules.push(v(x, 130, 190));
    const runs = [
      run('Table 4: Baseline model performance on each metric.', 50, 126),
      run('Model', 60, 144),
      run('Score', 160, 144),
      run('Time', 260, 144),
      run('ours', 60, 164),
      run('0.91', 160, 164),
      run('2.7', 260, 164),
      run('theirs', 60, 184),
      run('0.85', 160, 184),
      run('3.1', 260, 184),
    ];
    // Act
    const { markdown } = analyze(page(runs, { rules }));
    // Assert
    expect(markdown.indexOf('Table 4:')).toBeGreaterThanOrEqual(0);
    expect(markdown.indexOf('Table 4:')).toBeLessThan(markdown.indexOf('| Model |'));
  });

  it('keeps a units row in the header', () => {
    // Arrange: names, then their units, then values (an unruled table).
    const rows = buildRows([
      run('Model', 50, 100),
      run('Accuracy', 150, 100),
      run('Latency', 250, 100),
      run('(%)', 150, 114),
      run('(ms)', 250, 114),
      run('ours', 50, 128),
      run('91.2', 150, 128),
      run('12', 250, 128),
      run('theirs', 50, 142),
      run('88.0', 150, 142),
      run('30', 250, 142),
    ]);
    // Act
    const table = streamTable(rows, { minMultiRows: 3, maxWordsPerCell: 5 });
    // Assert
    expect(table).toMatchObject({ headerRows: 2, rowCount: 4 });
    expect(renderTable(table as Table)).toBe(
      [
        '| Model | Accuracy (%) | Latency (ms) |',
        '| --- | --- | --- |',
        '| ours | 91.2 | 12 |',
        '| theirs | 88.0 | 30 |',
      ].join('\n'),
    );
  });

  it('keeps a value cell that starts inside the span of a cell before it', () => {
    // Arrange: a long label in the first row crosses the gutter into the second column, where the
    // next row's value starts (a spanned table).
    const rows = buildRows([
      run('Parameter', 50, 100),
      run('Value', 200, 100),
      run('Unit', 300, 100),
      run('Grid spacing horizontal', 50, 114, { w: 165 }),
      run('30, 30, 15 (m)', 232, 114),
      run('Steps', 50, 128),
      run('1200', 200, 128),
      run('s', 300, 128),
      run('Layers', 50, 142),
      run('40', 200, 142),
      run('-', 300, 142),
    ]);
    // Act
    const table = streamTable(rows, { minMultiRows: 3, maxWordsPerCell: 5 });
    // Assert
    expect(table?.cells.map((c) => c.text)).toContain('30, 30, 15 (m)');
  });

  it('does not read a display equation as a table', () => {
    // Arrange: a fraction between rules, set in math fonts, aligned like two columns.
    const math = { fontName: 'CMMI10' };
    const rules = [h(100, 100, 400), h(160, 100, 400)];
    const runs = [
      run('k', 120, 118, math),
      run('T(r)r', 130, 118, math),
      run('d log n', 250, 118),
      run('M(r) =', 120, 132, math),
      run('+', 250, 132, { fontName: 'CMSY10' }),
      run('μ', 120, 148, math),
      run('m G', 130, 148, math),
      run('d log r', 250, 148),
    ];
    // Act
    const { markdown, tables } = analyze(page(runs, { rules }));
    // Assert
    expect(tables).toEqual([]);
    expect(markdown).not.toContain('|');
    expect(markdown).toContain('M(r)=');
  });
});

describe('mergeStackedTables', () => {
  const grid = (y0: number, y1: number, columns: number[], texts: string[][]): Table => ({
    x0: columns[0] ?? 0,
    y0,
    x1: columns[columns.length - 1] ?? 0,
    y1,
    rowCount: texts.length,
    colCount: columns.length - 1,
    cells: texts.flatMap((row, r) =>
      row.map((text, col) => ({ row: r, col, rowSpan: 1, colSpan: 1, text })),
    ),
    ruled: true,
    columns,
  });

  it('leaves tables apart when text stands between them', () => {
    // Arrange
    const a = grid(
      100,
      140,
      [50, 150, 250],
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    );
    const b = grid(
      145,
      185,
      [50, 150, 250],
      [
        ['c', 'd'],
        ['3', '4'],
      ],
    );
    // Act
    const apart = mergeStackedTables([a, b], 15, () => true);
    const joined = mergeStackedTables([a, b], 15);
    // Assert
    expect(apart).toHaveLength(2);
    expect(joined).toHaveLength(1);
    expect(joined[0]).toMatchObject({ rowCount: 4, colCount: 2 });
  });
});

describe('a table continued on the next page', () => {
  const gridPage = (pageNumber: number, caption: boolean): PageText => {
    const rules = [h(60, 50, 350), h(80, 50, 350), h(100, 50, 350)];
    for (const x of [50, 150, 250, 350]) rules.push(v(x, 60, 100));
    const runs = [
      run('ours', 60, 74),
      run('0.91', 160, 74),
      run('2.7', 260, 74),
      run('theirs', 60, 94),
      run('0.85', 160, 94),
      run('3.1', 260, 94),
      run('The text under the table goes on for a while here.', 50, 140),
    ];
    if (caption) runs.push(run('Table 2: Results.', 50, 50));
    return { ...page(runs, { rules }), pageNumber };
  };

  it('is marked when it opens a page after the first without a caption', () => {
    // Act
    const continued = analyze(gridPage(2, false));
    const captioned = analyze(gridPage(2, true));
    const first = analyze(gridPage(1, false));
    // Assert
    expect(continued.tables[0]?.continued).toBe(true);
    expect(continued.markdown.startsWith(`${CONTINUED_TABLE}\n| ours |`)).toBe(true);
    expect(captioned.tables[0]?.continued).toBeUndefined();
    expect(captioned.markdown).not.toContain(CONTINUED_TABLE);
    expect(first.markdown).not.toContain(CONTINUED_TABLE);
  });
});
