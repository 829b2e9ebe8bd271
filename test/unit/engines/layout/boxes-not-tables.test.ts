import { describe, expect, it } from 'vitest';
import { findRuledTables } from '../../../../functions/engines/layout/tables.js';
import type { Segment } from '../../../../functions/engines/layout/types.js';
import { markdownOf, paragraph, run } from './page-fixtures.js';

const h = (y: number, x1: number, x2: number): Segment => ({ x1, y1: y, x2, y2: y });
const v = (x: number, y1: number, y2: number): Segment => ({ x1: x, y1, x2: x, y2 });
/** The four edges of a box, as a filled or stroked rectangle gives them. */
const box = (x0: number, y0: number, x1: number, y1: number): Segment[] => [
  h(y0, x0, x1),
  h(y1, x0, x1),
  v(x0, y0, y1),
  v(x1, y0, y1),
];

describe('ruled boxes that are not a table', () => {
  it('reads highlight boxes behind the lines of a quoted passage as text, not as a grid', () => {
    // Arrange: each line (or part of one) is highlighted by a box of its own, touching the next.
    const rules = [
      ...box(50, 100, 300, 120),
      ...box(50, 120, 110, 140),
      ...box(110, 120, 280, 140),
      ...box(50, 140, 230, 160),
    ];
    const runs = [
      run('Observation: I found the following', 52, 114),
      run('answer "', 52, 134),
      run('Howard Van Doren Shaw', 112, 134),
      run('which 1917 community?', 52, 154),
    ];
    // Act
    const { tables } = findRuledTables(rules, runs, 1);
    // Assert
    expect(tables).toEqual([]);
  });

  it('reads callout boxes laid across the rule of a framed listing as text, not as a grid', () => {
    // Arrange: a frame split by a rule at x=200; the callouts' text runs across that rule.
    const rules = [...box(50, 100, 400, 190), v(200, 100, 190), h(130, 50, 400), h(160, 50, 400)];
    const runs = [
      run('FOR ROWS', 60, 114),
      run('Specifies that a row permission', 150, 124),
      run('WHERE', 60, 144),
      run('Specifies a condition that holds', 150, 154),
      run('ENABLE', 60, 174),
    ];
    // Act
    const { tables } = findRuledTables(rules, runs, 1);
    // Assert
    expect(tables).toEqual([]);
  });

  it('still reads a grid whose column rules run through every row', () => {
    // Arrange
    const rules = [...box(50, 100, 350, 160), v(150, 100, 160), h(120, 50, 350), h(140, 50, 350)];
    const runs = [
      run('Name', 60, 114),
      run('Value', 160, 114),
      run('width', 60, 134),
      run('12 mm', 160, 134),
      run('height', 60, 154),
      run('30 cm', 160, 154),
    ];
    // Act
    const { tables } = findRuledTables(rules, runs, 1);
    // Assert
    expect(tables).toHaveLength(1);
    expect(tables[0]?.cells.map((c) => c.text)).toEqual([
      'Name',
      'Value',
      'width',
      '12 mm',
      'height',
      '30 cm',
    ]);
  });
});

describe('framed figures', () => {
  it('takes the text inside a frame captioned as a figure out of the body text', () => {
    // Arrange: a diagram of labelled statements in a frame, its caption just below.
    const runs = [
      ...paragraph(72, 80, 3),
      run('CREATE PERMISSION', 90, 230, { fontSize: 13, bold: true, fontName: 'Bold' }),
      run('Names the row permission', 300, 215),
      run('ON table name', 90, 270, { fontSize: 13, bold: true, fontName: 'Bold' }),
      run('Identifies the table', 300, 255),
      run('Figure 3-1 CREATE PERMISSION statement', 72, 345, { italic: true }),
      ...paragraph(72, 380, 2),
    ];
    const rules = box(72, 190, 520, 330);
    // Act
    const markdown = markdownOf(runs, { rules });
    // Assert
    expect(markdown).toContain('Figure 3-1 CREATE PERMISSION statement');
    expect(markdown).not.toContain('Names the row permission');
    expect(markdown).not.toContain('ON table name');
    expect(markdown).not.toMatch(/^#/m);
    expect(markdown).toContain('Line 1 of the body text');
  });

  it('keeps the text of a frame without a figure caption (a boxed note) in the body', () => {
    // Arrange
    const runs = [
      ...paragraph(72, 80, 3),
      run('Note: the statement is run once per table.', 90, 230),
      ...paragraph(72, 380, 2),
    ];
    const rules = box(72, 190, 520, 330);
    // Act
    const markdown = markdownOf(runs, { rules });
    // Assert
    expect(markdown).toContain('Note: the statement is run once per table.');
  });
});
