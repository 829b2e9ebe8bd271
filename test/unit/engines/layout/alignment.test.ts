import { describe, expect, it } from 'vitest';
import { tableAlignment } from '../../../../functions/engines/layout/alignment.js';
import type { TextRun } from '../../../../functions/engines/layout/types.js';

/** A run of `text` at (x, baseline) in a 20 px font, 10 px per character. */
const run = (text: string, x: number, baseline: number): TextRun => ({
  text,
  x,
  y: baseline - 16,
  w: text.length * 10,
  h: 20,
  baseline,
  fontSize: 20,
  fontName: 'Helvetica',
  bold: false,
  italic: false,
  monospace: false,
});

/** Rows of cells at fixed column positions, 40 px apart. */
const grid = (rows: string[][], columns: number[], top = 100): TextRun[] =>
  rows.flatMap((cells, r) => cells.map((cell, c) => run(cell, columns[c] ?? 0, top + r * 40)));

describe('tableAlignment', () => {
  it('scores a whitespace table with aligned columns near 1', () => {
    // Arrange
    const runs = grid(
      [
        ['Region', 'Q1', 'Q2', 'Q3'],
        ['North', '120', '135', '150'],
        ['South', '98', '101', '110'],
        ['East', '77', '80', '95'],
      ],
      [100, 400, 600, 800],
    );
    // Act
    const score = tableAlignment(runs);
    // Assert
    expect(score).toBe(1);
  });

  it('scores prose and a two-column layout 0', () => {
    // Arrange
    const prose = [0, 1, 2, 3].map((i) =>
      run('The committee met twice and approved the budget.', 100, 100 + i * 40),
    );
    const twoColumns = [0, 1, 2, 3].flatMap((i) => [
      run('Left column text goes here', 100, 100 + i * 40),
      run('Right column text here', 700, 100 + i * 40),
    ]);
    // Act / Assert
    expect(tableAlignment(prose)).toBe(0);
    expect(tableAlignment(twoColumns)).toBe(0);
  });

  it('gives the share of the rows in the table when prose surrounds it', () => {
    // Arrange: 2 prose rows, then a 2-row table of 3 columns.
    const runs = [
      run('An introduction to the figures below.', 100, 100),
      run('They are unaudited.', 100, 140),
      ...grid(
        [
          ['Item', 'Units', 'Price'],
          ['Paper', '10', '4.50'],
        ],
        [100, 500, 800],
        180,
      ),
    ];
    // Act / Assert
    expect(tableAlignment(runs)).toBe(0.5);
  });

  it('does not count rows of scattered pieces that share no column', () => {
    // Arrange
    const runs = [
      ...grid([['a piece', 'another', 'third']], [100, 500, 900], 100),
      ...grid([['b piece', 'more', 'last']], [250, 650, 1050], 140),
    ];
    // Act / Assert
    expect(tableAlignment(runs)).toBe(0);
  });

  it('is 0 without text', () => {
    expect(tableAlignment([])).toBe(0);
  });
});
