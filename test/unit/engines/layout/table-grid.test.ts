import { describe, expect, it } from 'vitest';
import { analyzePage } from '../../../../functions/engines/layout/layout-page.js';
import { buildRows } from '../../../../functions/engines/layout/lines.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import {
  findRuleBoundedTables,
  findRuledTables,
  streamTable,
  type Table,
} from '../../../../functions/engines/layout/tables.js';
import type { PageText, Segment } from '../../../../functions/engines/layout/types.js';
import { run } from './page-fixtures.js';

const h = (y: number, x1: number, x2: number): Segment => ({ x1, y1: y, x2, y2: y });
const v = (x: number, y1: number, y2: number): Segment => ({ x1: x, y1, x2: x, y2 });

/** The cells of a table as `row,col:text(rowSpan x colSpan)`, in row then column order. */
const cellsOf = (table: Table | undefined | null): string[] =>
  (table?.cells ?? [])
    .slice()
    .sort((a, b) => a.row - b.row || a.col - b.col)
    .map((c) => `${c.row},${c.col}:${c.text}(${c.rowSpan}x${c.colSpan})`);

describe('findRuledTables (the grid with spans)', () => {
  it('reads a header cell over two columns, drawn without the rule between them, as col_span 2', () => {
    // Arrange: columns at 50 | 150 | 250 | 350; the rule at x=150 starts under the header row.
    const rules = [
      h(100, 50, 350),
      h(120, 50, 350),
      h(140, 50, 350),
      h(160, 50, 350),
      v(50, 100, 160),
      v(150, 120, 160),
      v(250, 100, 160),
      v(350, 100, 160),
    ];
    const runs = [
      run('Measurements', 70, 114),
      run('Unit', 280, 114),
      run('width', 60, 134),
      run('12', 160, 134),
      run('mm', 260, 134),
      run('height', 60, 154),
      run('30', 160, 154),
      run('cm', 260, 154),
    ];
    // Act
    const { tables } = findRuledTables(rules, runs, 1);
    // Assert
    expect(tables).toHaveLength(1);
    expect(cellsOf(tables[0])).toEqual([
      '0,0:Measurements(1x2)',
      '0,2:Unit(1x1)',
      '1,0:width(1x1)',
      '1,1:12(1x1)',
      '1,2:mm(1x1)',
      '2,0:height(1x1)',
      '2,1:30(1x1)',
      '2,2:cm(1x1)',
    ]);
  });

  it('reads a cell over two rows, drawn without the rule between them, as row_span 2', () => {
    // Arrange: the rule at y=140 stops at x=150, so the first column's cell spans two rows.
    const rules = [
      h(100, 50, 350),
      h(120, 50, 350),
      h(140, 150, 350),
      h(160, 50, 350),
      v(50, 100, 160),
      v(150, 100, 160),
      v(350, 100, 160),
    ];
    const runs = [
      run('Group', 60, 114),
      run('Value', 160, 114),
      run('Alpha', 60, 144),
      run('first', 160, 134),
      run('second', 160, 154),
    ];
    // Act
    const { tables } = findRuledTables(rules, runs, 1);
    // Assert
    expect(cellsOf(tables[0])).toEqual([
      '0,0:Group(1x1)',
      '0,1:Value(1x1)',
      '1,0:Alpha(2x1)',
      '1,1:first(1x1)',
      '2,1:second(1x1)',
    ]);
  });

  it('keeps the outer columns of a table ruled inside only (no vertical rules at its sides), in both readings', () => {
    // Arrange: vertical rules at 150 and 250 only; the horizontal rules run from 50 to 350.
    const rules = [
      h(100, 50, 350),
      h(120, 50, 350),
      h(140, 50, 350),
      v(150, 100, 140),
      v(250, 100, 140),
    ];
    const runs = [
      run('Name', 60, 114),
      run('Score', 160, 114),
      run('Time', 260, 114),
      run('ours', 60, 134),
      run('0.91', 160, 134),
      run('2.7', 260, 134),
    ];
    // Act
    const { tables } = findRuledTables(rules, runs, 1, { exact: true });
    const markdownReading = findRuledTables(rules, runs, 1);
    // Assert
    expect(markdownReading.tables).toEqual(tables);
    expect(tables[0]).toMatchObject({ x0: 50, x1: 350, colCount: 3 });
    expect(cellsOf(tables[0])).toEqual([
      '0,0:Name(1x1)',
      '0,1:Score(1x1)',
      '0,2:Time(1x1)',
      '1,0:ours(1x1)',
      '1,1:0.91(1x1)',
      '1,2:2.7(1x1)',
    ]);
  });

  it('leaves rules that reach past the outer vertical rule alone when no text is there', () => {
    // Arrange
    const rules = [h(100, 20, 380), h(120, 20, 380), h(140, 20, 380), v(50, 100, 140)];
    const more = [v(150, 100, 140), v(250, 100, 140), v(350, 100, 140)];
    const runs = [
      run('a1', 60, 114),
      run('b1', 160, 114),
      run('c1', 260, 114),
      run('a2', 60, 134),
      run('b2', 160, 134),
      run('c2', 260, 134),
    ];
    // Act
    const { tables } = findRuledTables([...rules, ...more], runs, 1, { exact: true });
    // Assert
    expect(tables[0]).toMatchObject({ x0: 50, x1: 350, colCount: 3 });
  });

  it('drops OCR words that are rules read as glyphs from the cell text by default', () => {
    // Arrange: OCR words carry a confidence; `|` and `|—` are the grid's own lines.
    const ocr = { confidence: 0.9 };
    const rules = [
      h(100, 50, 250),
      h(120, 50, 250),
      h(140, 50, 250),
      v(50, 100, 140),
      v(150, 100, 140),
      v(250, 100, 140),
    ];
    const runs = [
      run('|—', 52, 114, ocr),
      run('simple', 70, 114, ocr),
      run('|', 140, 114, ocr),
      run('all', 160, 114, ocr),
      run('0.9', 60, 134, ocr),
      run('0.8', 160, 134, ocr),
    ];
    // Act
    const { tables } = findRuledTables(rules, runs, 1, { exact: true });
    const markdownReading = findRuledTables(rules, runs, 1);
    const loose = findRuledTables(rules, runs, 1, { exact: false });
    // Assert
    expect(cellsOf(loose.tables[0])[0]).toBe('0,0:|— simple |(1x1)');
    expect(cellsOf(markdownReading.tables[0])).toEqual(cellsOf(tables[0]));
    expect(cellsOf(tables[0])).toEqual([
      '0,0:simple(1x1)',
      '0,1:all(1x1)',
      '1,0:0.9(1x1)',
      '1,1:0.8(1x1)',
    ]);
  });
});

describe('streamTable (unruled grids)', () => {
  it('reads a fragment over the gap between two columns as a spanning cell', () => {
    // Arrange: five rows; the header "Quarterly results" covers the first two columns.
    const runs = [
      run('Quarterly results', 100, 100),
      run('Notes', 350, 100),
      ...['Q1', 'Q2', 'Q3', 'Q4'].flatMap((q, i) => [
        run(q, 100, 120 + i * 20),
        run(`${i + 1}0`, 220, 120 + i * 20),
        run('ok', 350, 120 + i * 20),
      ]),
    ];
    // Act
    const table = streamTable(buildRows(runs), { minMultiRows: 2, maxWordsPerCell: 8 });
    // Assert
    expect(table?.colCount).toBe(3);
    expect(cellsOf(table).slice(0, 5)).toEqual([
      '0,0:Quarterly results(1x2)',
      '0,2:Notes(1x1)',
      '1,0:Q1(1x1)',
      '1,1:10(1x1)',
      '1,2:ok(1x1)',
    ]);
  });
});

describe('findRuledTables on a plot', () => {
  /** A framed plot with grid lines, a value in each box, with or without tick marks. */
  const framedPlot = (ticks: boolean) => {
    const rules = [h(100, 50, 350), h(150, 50, 350), h(200, 50, 350)];
    rules.push(v(50, 100, 200), v(150, 100, 200), v(250, 100, 200), v(350, 100, 200));
    // Ticks: 3 pt stubs under the bottom axis and left of the left one, touching them at one end.
    if (ticks) {
      for (let k = 0; k < 6; k++) rules.push(v(75 + 50 * k, 200, 203), h(110 + 15 * k, 47, 50));
    }
    const runs = [0, 1].flatMap((r) =>
      [0, 1, 2].map((c) => run(`${String(r)}.${String(c)}`, 80 + 100 * c, 130 + 50 * r)),
    );
    return { rules, runs };
  };

  it("reads no table in a plot's frame and grid lines when its axes carry tick marks", () => {
    // Arrange
    const { rules, runs } = framedPlot(true);
    // Act
    const { tables, used } = findRuledTables(rules, runs, 1);
    // Assert
    expect(tables).toHaveLength(0);
    expect(used.size).toBe(0);
  });

  it('reads the same rules without tick marks as a grid table', () => {
    // Arrange
    const { rules, runs } = framedPlot(false);
    // Act
    const { tables } = findRuledTables(rules, runs, 1);
    // Assert
    expect(tables).toHaveLength(1);
    expect(cellsOf(tables[0])).toHaveLength(6);
  });
});

describe('findRuleBoundedTables', () => {
  it('gives a table the box between the rules around its own rows', () => {
    // Arrange: a chain of four rules; only the rows between the first two are left to read.
    const rules = [h(100, 50, 400), h(140, 50, 400), h(300, 50, 400), h(340, 50, 400)];
    const rows = buildRows([
      run('Model', 60, 115),
      run('Score', 200, 115),
      run('Time', 320, 115),
      run('ours', 60, 132),
      run('0.91', 200, 132),
      run('2.7', 320, 132),
    ]);
    // Act
    const { tables } = findRuleBoundedTables(rules, rows, 612, 792, 1);
    // Assert
    expect(tables).toHaveLength(1);
    expect(tables[0]).toMatchObject({ y0: 100, y1: 140 });
  });

  /** Values in three columns between two long rules, with or without a plot's tick marks. */
  const plot = (ticks: boolean) => {
    const rules = [h(100, 50, 400), h(200, 50, 400)];
    // Ticks: 4 pt stubs standing on the bottom rule, touching it at one end.
    if (ticks) for (let k = 0; k < 8; k++) rules.push(v(70 + 45 * k, 196, 200));
    const rows = buildRows(
      [0, 1, 2].flatMap((r) => [
        run(`1${String(r)}`, 60, 120 + 25 * r),
        run(`2${String(r)}`, 200, 120 + 25 * r),
        run(`3${String(r)}`, 330, 120 + 25 * r),
      ]),
    );
    return { rules, rows };
  };

  it('leaves the labels of a plot, whose axes carry tick marks, out of tables', () => {
    // Arrange
    const { rules, rows } = plot(true);
    // Act
    const { tables, used } = findRuleBoundedTables(rules, rows, 612, 792, 1);
    // Assert
    expect(tables).toHaveLength(0);
    expect(used.size).toBe(0);
  });

  it('still reads the same rules and labels without tick marks as a table', () => {
    // Arrange
    const { rules, rows } = plot(false);
    // Act
    const { tables } = findRuleBoundedTables(rules, rows, 612, 792, 1);
    // Assert
    expect(tables).toHaveLength(1);
  });
});

describe('analyzePage', () => {
  it('returns the cell grids, captions and figures behind the Markdown', () => {
    // Arrange
    const page: PageText = {
      pageNumber: 1,
      width: 612,
      height: 792,
      dpi: 72,
      runs: [
        run('Figure 1: A chart of the results.', 100, 330),
        run('Name', 60, 414),
        run('Score', 160, 414),
        run('ours', 60, 434),
        run('0.91', 160, 434),
      ],
      rules: [
        h(400, 50, 250),
        h(420, 50, 250),
        h(440, 50, 250),
        v(50, 400, 440),
        v(150, 400, 440),
        v(250, 400, 440),
      ],
      images: [{ x: 100, y: 100, w: 300, h: 200 }],
    };
    // Act
    const analysis = analyzePage(page, buildLayoutProfile([page]));
    // Assert
    expect(analysis.tables.map(cellsOf)).toEqual([
      ['0,0:Name(1x1)', '0,1:Score(1x1)', '1,0:ours(1x1)', '1,1:0.91(1x1)'],
    ]);
    expect(analysis.captions).toEqual([
      expect.objectContaining({ text: 'Figure 1: A chart of the results.', y0: 322 }),
    ]);
    expect(analysis.figures).toEqual([{ x: 100, y: 100, w: 300, h: 200 }]);
    expect(analysis.markdown).toContain('| Name | Score |');
  });
});
