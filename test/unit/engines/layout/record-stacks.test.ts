import { describe, expect, it } from 'vitest';
import { renderTable } from '../../../../functions/engines/layout/markdown.js';
import type { Table } from '../../../../functions/engines/layout/tables.js';
import type { Segment, TextRun } from '../../../../functions/engines/layout/types.js';
import { markdownOf, run } from './page-fixtures.js';

const h = (y: number, x1: number, x2: number): Segment => ({ x1, y1: y, x2, y2: y });
const v = (x: number, y1: number, y2: number): Segment => ({ x1: x, y1, x2: x, y2 });

/** A grid with every column rule, a rule under the header and one under each row group. */
const grid = (columns: number[], rows: number[]): Segment[] => {
  const left = columns[0] ?? 0;
  const right = columns[columns.length - 1] ?? 0;
  const top = rows[0] ?? 0;
  const bottom = rows[rows.length - 1] ?? 0;
  return [...rows.map((y) => h(y, left, right)), ...columns.map((x) => v(x, top, bottom))];
};

const COLUMNS = [50, 110, 170, 240, 310, 380];

/**
 * A row group of Table 1 of docling's 2305.03393v1 page 9: two records (an OTSL line and an HTML
 * line) between two rules, the encoder and decoder layers set once, centred between the lines.
 */
const group = (top: number, layers: [string, string], values: string[][]): TextRun[] => [
  run(layers[0], 60, top + 18),
  run(layers[1], 120, top + 18),
  run('OTSL', 180, top + 12),
  run('HTML', 180, top + 24),
  ...values.flatMap(([first, second], k) => [
    run(first ?? '', 250 + 70 * k, top + 12),
    run(second ?? '', 250 + 70 * k, top + 24),
  ]),
];

const header: TextRun[] = [
  run('Encoder', 55, 112),
  run('Layers', 55, 124),
  run('Decoder', 115, 112),
  run('Layers', 115, 124),
  run('Language', 175, 118),
  run('TEDs', 250, 118),
  run('Inference', 315, 112),
  run('Time (s)', 315, 124),
];

describe('table rows holding several records', () => {
  it('keeps each record on its own line in the cells set on the record baselines', () => {
    // Arrange: a header row, then two row groups of two records each.
    const runs = [
      run('Results of the runs are in the table below.', 50, 80),
      ...header,
      ...group(
        130,
        ['6', '6'],
        [
          ['0.965', '0.969'],
          ['2.73', '5.39'],
        ],
      ),
      ...group(
        160,
        ['4', '2'],
        [
          ['0.938', '0.952'],
          ['1.97', '3.77'],
        ],
      ),
    ];
    // Act
    const markdown = markdownOf(runs, { rules: grid(COLUMNS, [100, 130, 160, 190]) });
    // Assert: the records' values stay apart; the values set once stay one cell; the header's
    // two-line labels are labels.
    expect(markdown).toContain('| 6 | 6 | OTSL<br>HTML | 0.965<br>0.969 | 2.73<br>5.39 |');
    expect(markdown).toContain('| 4 | 2 | OTSL<br>HTML | 0.938<br>0.952 | 1.97<br>3.77 |');
    expect(markdown).toContain(
      '| Encoder Layers | Decoder Layers | Language | TEDs | Inference Time (s) |',
    );
  });

  it('keeps records of one word apart whatever their case', () => {
    // Arrange: two variants of one model, each a record of one word per column.
    const runs = [
      run('Variants of the models are in the table below.', 50, 80),
      run('Model', 55, 118),
      run('Variant', 115, 118),
      run('Tuned', 245, 118),
      run('Alpha', 55, 148),
      run('base', 115, 142),
      run('large', 115, 154),
      run('yes', 245, 142),
      run('no', 245, 154),
    ];
    // Act
    const markdown = markdownOf(runs, { rules: grid([50, 110, 240, 370], [100, 130, 160]) });
    // Assert
    expect(markdown).toContain('| Alpha | base<br>large | yes<br>no |');
  });

  it('joins the lines of cells that wrap one phrase, even when two of them share baselines', () => {
    // Arrange: the notes and remarks of a row both wrap onto a second line.
    const runs = [
      run('Notes on the models are in the table below.', 50, 80),
      run('Model', 55, 118),
      run('Notes', 115, 118),
      run('Remarks', 245, 118),
      run('Alpha', 55, 148),
      run('first half of a', 115, 142),
      run('long note', 115, 154),
      run('a remark that', 245, 142),
      run('goes on here', 245, 154),
      run('Beta', 55, 178),
      run('short note', 115, 178),
      run('none', 245, 178),
    ];
    // Act
    const markdown = markdownOf(runs, { rules: grid([50, 110, 240, 380], [100, 130, 160, 190]) });
    // Assert
    expect(markdown).toContain(
      '| Alpha | first half of a long note | a remark that goes on here |',
    );
    expect(markdown).not.toContain('<br>');
  });

  it('joins the lines of cells whose phrase fills the cell before it wraps', () => {
    // Arrange: two cells of a row wrap at the cell's edge onto a line in upper case (as a
    // script without case would).
    const runs = [
      run('Rules before and after the change are in the table below.', 50, 80),
      run('Item', 55, 118),
      run('Before', 115, 118),
      run('After', 245, 118),
      run('Scope', 55, 148),
      run('Water And Food Borne', 113, 142),
      run('Diseases', 113, 154),
      run('Terror Or High Fatality', 243, 142),
      run('Diseases', 243, 154),
      run('Count', 55, 178),
      run('6', 115, 178),
      run('17', 245, 178),
    ];
    // Act
    const markdown = markdownOf(runs, { rules: grid([50, 110, 240, 370], [100, 130, 160, 190]) });
    // Assert
    expect(markdown).toContain(
      '| Scope | Water And Food Borne Diseases | Terror Or High Fatality Diseases |',
    );
  });

  it('keeps one cell with the lines of one record when no other cell of its row has them', () => {
    // Arrange: a single two-line cell in a row whose other cells have one line.
    const runs = [
      run('Scores of the models are in the table below.', 50, 80),
      run('Model', 55, 118),
      run('Score', 115, 118),
      run('Alpha', 55, 148),
      run('0.91', 115, 142),
      run('0.93', 115, 154),
      run('Beta', 55, 178),
      run('0.88', 115, 178),
    ];
    // Act
    const markdown = markdownOf(runs, { rules: grid([50, 110, 240], [100, 130, 160, 190]) });
    // Assert
    expect(markdown).toContain('| Alpha | 0.91 0.93 |');
  });
});

describe('renderTable with cells of several lines', () => {
  const cells = (texts: string[][]) =>
    texts.flatMap((row, r) =>
      row.map((text, c) => ({ row: r, col: c, rowSpan: 1, colSpan: 1, text })),
    );

  it('writes the lines of a cell apart with <br> in a pipe table', () => {
    // Arrange
    const table: Table = {
      x0: 0,
      y0: 0,
      x1: 100,
      y1: 100,
      rowCount: 2,
      colCount: 2,
      ruled: true,
      cells: cells([
        ['Language', 'Score'],
        ['OTSL\nHTML', '0.965\n0|969'],
      ]),
    };
    // Act
    const markdown = renderTable(table);
    // Assert
    expect(markdown.split('\n')).toEqual([
      '| Language | Score |',
      '| --- | --- |',
      '| OTSL<br>HTML | 0.965<br>0\\|969 |',
    ]);
  });

  it('writes the lines of a cell apart with <br> in an HTML table', () => {
    // Arrange
    const table: Table = {
      x0: 0,
      y0: 0,
      x1: 100,
      y1: 100,
      rowCount: 2,
      colCount: 2,
      ruled: true,
      cells: [
        { row: 0, col: 0, rowSpan: 1, colSpan: 2, text: 'Results' },
        ...cells([[], ['A<B\nHTML', '0.965\n0.969']]),
      ],
    };
    // Act
    const markdown = renderTable(table);
    // Assert
    expect(markdown).toContain('<tr><td>A&lt;B<br>HTML</td><td>0.965<br>0.969</td></tr>');
  });
});
