import { describe, expect, it } from 'vitest';
import type { Segment, TextRun } from '../../../../functions/engines/layout/types.js';
import { CHAR, SIZE, markdownOf, paragraph, run } from './page-fixtures.js';

const h = (y: number, x1: number, x2: number): Segment => ({ x1, y1: y, x2, y2: y });
const v = (x: number, y1: number, y2: number): Segment => ({ x1: x, y1, x2: x, y2 });

/** A header label set up the page (rotated 90°), its box's bottom at `bottom`. */
const upward = (text: string, x: number, bottom: number): TextRun => ({
  ...run(text, x, bottom, { bold: true, fontName: 'Bold' }),
  y: bottom - text.length * CHAR,
  w: SIZE,
  h: text.length * CHAR,
  rotation: 90,
});

describe('ruled tables with rotated column headers', () => {
  it('keeps a column whose only text is its rotated header, so later columns keep their values', () => {
    // Arrange: columns Action | JOBCTL | SECADM | SQLADM; no row has a mark under SECADM.
    const rules = [
      h(100, 50, 410),
      h(180, 50, 410),
      h(200, 50, 410),
      h(220, 50, 410),
      ...[50, 290, 330, 370, 410].map((x) => v(x, 100, 220)),
    ];
    const runs = [
      ...paragraph(50, 60, 2),
      run('User action', 55, 114, { bold: true, fontName: 'Bold' }),
      upward('JOBCTL', 305, 176),
      upward('SECADM', 345, 176),
      upward('SQLADM', 385, 176),
      run('Set the degree', 55, 194),
      run('X', 308, 194),
      run('X', 388, 194),
      run('Change a job', 55, 214),
      run('X', 308, 214),
      run('X', 388, 214),
    ];
    // Act
    const markdown = markdownOf(runs, { rules });
    // Assert
    expect(markdown).toContain('| User action | JOBCTL | SECADM | SQLADM |');
    expect(markdown).toContain('| Set the degree | X |  | X |');
    expect(markdown).toContain('| Change a job | X |  | X |');
  });
});
