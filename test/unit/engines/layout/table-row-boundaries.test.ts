import { describe, expect, it } from 'vitest';
import { findRuledTables, type Table } from '../../../../functions/engines/layout/tables.js';
import type { Segment } from '../../../../functions/engines/layout/types.js';
import { run } from './page-fixtures.js';

const h = (y: number, x1: number, x2: number): Segment => ({ x1, y1: y, x2, y2: y });
const v = (x: number, y1: number, y2: number): Segment => ({ x1: x, y1, x2: x, y2 });

/** The rows of a table as lists of cell texts. */
const rowsOf = (table: Table | undefined): string[][] => {
  const rows: string[][] = [];
  for (const c of (table?.cells ?? []).slice().sort((a, b) => a.row - b.row || a.col - b.col)) {
    (rows[c.row] ??= []).push(c.text);
  }
  return rows;
};

describe('findRuledTables (rows framed by the column rules alone)', () => {
  it('splits the body at the ends of the column-rule pieces, a row with a wrapped cell included', () => {
    // Arrange: rules at the top, under the header and at the bottom only; the column rules at
    // x = 50, 150, 250 are drawn one piece per row (100-120, 120-140, 140-170, 170-190), and the
    // second body row's first cell wraps onto two lines (its other cell sits between them).
    const columns = [50, 150, 250];
    const pieces: [number, number][] = [
      [100, 120],
      [120, 140],
      [140, 170],
      [170, 190],
    ];
    const rules = [
      h(100, 50, 250),
      h(120, 50, 250),
      h(190, 50, 250),
      ...columns.flatMap((x) => pieces.map(([y1, y2]) => v(x, y1, y2))),
    ];
    const runs = [
      run('Model', 60, 114),
      run('Time', 160, 114),
      run('Gemma', 60, 134),
      run('11.6s', 160, 134),
      run('Phi-3.5', 60, 152),
      run('-mini', 60, 163),
      run('23.2s', 160, 158),
      run('Llama', 60, 184),
      run('24.1s', 160, 184),
    ];

    // Act
    const { tables } = findRuledTables(rules, runs, 1);

    // Assert: one row per record, never two records in one row.
    expect(rowsOf(tables[0])).toEqual([
      ['Model', 'Time'],
      ['Gemma', '11.6s'],
      ['Phi-3.5-mini', '23.2s'],
      ['Llama', '24.1s'],
    ]);
  });

  it('keeps a row whole when only one column rule is broken inside it', () => {
    // Arrange: the rule at x = 150 has a gap-free break at y = 150 (two pieces), the others not.
    const rules = [
      h(100, 50, 250),
      h(120, 50, 250),
      h(180, 50, 250),
      v(50, 100, 180),
      v(150, 100, 150),
      v(150, 150, 180),
      v(250, 100, 180),
    ];
    const runs = [
      run('Name', 60, 114),
      run('Note', 160, 114),
      run('first', 60, 140),
      run('one', 160, 140),
      run('line', 60, 160),
      run('two', 160, 160),
      run('more', 160, 175),
    ];

    // Act
    const { tables } = findRuledTables(rules, runs, 1);

    // Assert: the body stays one row (a break of one rule is no row boundary).
    expect(rowsOf(tables[0])).toHaveLength(2);
  });
});
