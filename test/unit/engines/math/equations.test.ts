import { describe, expect, it } from 'vitest';
import { findDisplayEquations } from '../../../../functions/engines/math/equations.js';
import { page } from '../layout/page-fixtures.js';
import { glyphs } from './glyphs.js';

const PROSE = 'Times-Roman';

describe('findDisplayEquations', () => {
  it('finds a display line in math fonts, with its box, and leaves the prose around it', () => {
    // Arrange
    const runs = [
      glyphs('The area of the square follows from the relation below.', 72, 100, 10, PROSE),
      glyphs('a', 280, 130),
      glyphs('2', 285, 126, 7, 'CMR7'),
      glyphs('+ 8 = 12', 292, 130, 10, 'CMR10'),
      glyphs('which closes the argument of this section.', 72, 160, 10, PROSE),
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
      glyphs('the distance', 72, 100, 10, PROSE),
      glyphs('s(t) = 2t', 140, 100, 10, 'STIXGeneral-Italic'),
      glyphs('is measured in feet', 190, 100, 10, PROSE),
    ];
    // Act
    const equations = findDisplayEquations(page(runs), []);
    // Assert
    expect(equations).toEqual([]);
  });

  it('sets an item label aside and reads an equation number as \\tag', () => {
    // Arrange: "150.  s(t) = 2t + 8 ............ (3)"
    const runs = [
      glyphs('150.', 72, 100, 10, PROSE),
      glyphs('s(t) = 2t + 8', 97, 100, 10, 'STIXGeneral-Italic'),
      glyphs('(3)', 520, 100, 10, PROSE),
    ];
    // Act
    const [equation] = findDisplayEquations(page(runs), []);
    // Assert
    expect(equation).toMatchObject({ latex: 's(t)=2t+8 \\tag{3}', x0: 97 });
  });

  it('reads a fraction set on three lines (numerator, bar, denominator) as one equation', () => {
    // Arrange: as in exercise 152 of olmocr-openstax_caculus_pg_273.pdf.
    const runs = [
      glyphs('152.', 72, 227.2, 10, PROSE),
      // Half an em a character: 's(t)=' ends before the bar, as on the page.
      glyphs('s(t)=', 97.8, 227.2, 10, 'STIXGeneral-Regular'),
      glyphs('t', 134.8, 223.5, 10, 'STIXGeneral-Italic'),
      glyphs('1 + ', 124.3, 235.8, 10, 'STIXGeneral-Regular'),
      glyphs('t', 140.6, 235.8, 10, 'STIXGeneral-Italic'),
      glyphs('2', 144.2, 231.7, 8, 'STIXGeneral-Regular'),
    ];
    const bar = { x1: 123.6, y1: 224.66, x2: 148.8, y2: 224.66 };
    // Act
    const equations = findDisplayEquations(page(runs, { rules: [bar] }), []);
    // Assert
    expect(equations.map((e) => e.latex)).toEqual(['s(t)=\\frac{t}{1+t^{2}}']);
  });

  it('leaves out runs inside excluded regions (tables, figures)', () => {
    // Arrange
    const runs = [glyphs('x = y + 1', 100, 100)];
    // Act
    const equations = findDisplayEquations(page(runs), [{ x0: 90, y0: 80, x1: 200, y1: 120 }]);
    // Assert
    expect(equations).toEqual([]);
  });

  it('does not read a lone symbol or a number in a math font as an equation', () => {
    // Arrange
    const runs = [glyphs('t', 100, 100), glyphs('5.75 s.', 100, 140, 10, 'STIXGeneral-Regular')];
    // Act
    const equations = findDisplayEquations(page(runs), []);
    // Assert
    expect(equations).toEqual([]);
  });
});
