import { describe, expect, it } from 'vitest';
import type { PageText, Segment, TextRun } from '../../../../functions/engines/layout/types.js';
import { findDisplayEquations } from '../../../../functions/engines/math/equations.js';

/** A run at (x, baseline): `size` px font, half an em per character. */
const run = (text: string, x: number, baseline: number, fontName: string, size = 10): TextRun => ({
  text,
  x,
  y: baseline - 0.75 * size,
  w: Array.from(text).length * 0.5 * size,
  h: size,
  baseline,
  fontSize: size,
  fontName,
  bold: false,
  italic: false,
  monospace: false,
});

const page = (runs: TextRun[], rules: Segment[] = []): PageText => ({
  pageNumber: 1,
  width: 612,
  height: 792,
  dpi: 72,
  runs,
  rules,
  images: [],
});

const PROSE = 'Times-Roman';

describe('findDisplayEquations', () => {
  it('finds a display line in math fonts, with its box, and leaves the prose around it', () => {
    // Arrange
    const runs = [
      run('The area of the square follows from the relation below.', 72, 100, PROSE),
      run('a', 280, 130, 'CMMI10'),
      run('2', 285, 126, 'CMR7', 7),
      run('+ 8 = 12', 292, 130, 'CMR10'),
      run('which closes the argument of this section.', 72, 160, PROSE),
    ];
    // Act
    const equations = findDisplayEquations(page(runs), []);
    // Assert
    expect(equations).toMatchObject([
      { x0: 280, y0: 120.75, x1: 332, y1: 132.5, latex: 'a^{2}+8=12', notes: [], number: null },
    ]);
    expect(equations[0]?.runs.map((r) => r.text)).toEqual(['a', '2', '+ 8 = 12']);
  });

  it('skips a line of prose with inline mathematics', () => {
    // Arrange
    const runs = [
      run('the distance', 72, 100, PROSE),
      run('s(t) = 2t', 140, 100, 'STIXGeneral-Italic'),
      run('is measured in feet', 190, 100, PROSE),
    ];
    // Act
    const equations = findDisplayEquations(page(runs), []);
    // Assert
    expect(equations).toEqual([]);
  });

  it('sets an item label aside and reads an equation number as \\tag', () => {
    // Arrange: "150.  s(t) = 2t + 8 ............ (3)"
    const runs = [
      run('150.', 72, 100, PROSE),
      run('s(t) = 2t + 8', 97, 100, 'STIXGeneral-Italic'),
      run('(3)', 520, 100, PROSE),
    ];
    // Act
    const [equation] = findDisplayEquations(page(runs), []);
    // Assert
    expect(equation).toMatchObject({ latex: 's(t)=2t+8 \\tag{3}', x0: 97 });
  });

  it('reads a fraction set on three lines (numerator, bar, denominator) as one equation', () => {
    // Arrange: as in exercise 152 of olmocr-openstax_caculus_pg_273.pdf.
    const runs = [
      run('152.', 72, 227.2, PROSE),
      // Half an em a character: 's(t)=' ends before the bar, as on the page.
      run('s(t)=', 97.8, 227.2, 'STIXGeneral-Regular'),
      run('t', 134.8, 223.5, 'STIXGeneral-Italic'),
      run('1 + ', 124.3, 235.8, 'STIXGeneral-Regular'),
      run('t', 140.6, 235.8, 'STIXGeneral-Italic'),
      run('2', 144.2, 231.7, 'STIXGeneral-Regular', 8),
    ];
    const bar = { x1: 123.6, y1: 224.66, x2: 148.8, y2: 224.66 };
    // Act
    const equations = findDisplayEquations(page(runs, [bar]), []);
    // Assert
    expect(equations.map((e) => e.latex)).toEqual(['s(t)=\\frac{t}{1+t^{2}}']);
  });

  it('leaves out runs inside excluded regions (tables, figures)', () => {
    // Arrange
    const runs = [run('x = y + 1', 100, 100, 'CMMI10')];
    // Act
    const equations = findDisplayEquations(page(runs), [{ x0: 90, y0: 80, x1: 200, y1: 120 }]);
    // Assert
    expect(equations).toEqual([]);
  });

  it('does not read a lone symbol or a number in a math font as an equation', () => {
    // Arrange
    const runs = [run('t', 100, 100, 'CMMI10'), run('5.75 s.', 100, 140, 'STIXGeneral-Regular')];
    // Act
    const equations = findDisplayEquations(page(runs), []);
    // Assert
    expect(equations).toEqual([]);
  });
});
