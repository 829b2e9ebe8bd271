import { describe, expect, it } from 'vitest';
import { pageEquations } from '../../../../functions/engines/math/find-math.js';
import { texPage, type Glyphs, type Rule } from '../../../support/tex-pdf.js';

/**
 * Display equations found on generated pages in TeX fonts (glyphs by their codes, rules drawn),
 * as papers set them: which runs make one display, and its LaTeX.
 * Points from the bottom left; the main size is 10 pt, scripts 7 pt.
 */

const g = (text: string, font: string, x: number, y: number, size = 10): Glyphs => ({
  text,
  font,
  size,
  x,
  y,
});

/** The displays of a page: their LaTeX (the sentence's punctuation inside) and number. */
const displaysOf = async (glyphs: Glyphs[], rules: Rule[] = []) => {
  const page = await texPage(glyphs, rules);
  return pageEquations(page, []).equations.map((e) => ({ body: e.body, number: e.number }));
};

describe('display equations on a generated page', () => {
  it('reads units after a number and a fraction set in roman as one display', async () => {
    // Arrange: T_200 = 3.6 × 10^5 K \Big( v_200 / 100 km s^-1 \Big)^2 , (1); CMSY's × is code
    // 0x02 and its minus 0x00, CMEX's \Big( and \Big) are 0x10 and 0x11.
    const glyphs = [
      g('T', 'CMMI10', 60, 100),
      g('200', 'CMR7', 66, 98.5, 7),
      g('=', 'CMR10', 80, 100),
      g('3.6', 'CMR10', 90, 100),
      g('\u0002', 'CMSY10', 106, 100),
      g('10', 'CMR10', 115, 100),
      g('5', 'CMR7', 125, 103.6, 7),
      g('K', 'CMR10', 132.5, 100),
      g('\u0010', 'CMEX10', 139, 111.1),
      g('v', 'CMR10', 158, 106.8),
      g('200', 'CMR7', 163, 105.3, 7),
      g('100 km s', 'CMR10', 146, 93.1),
      g('\u0000', 'CMSY7', 182, 96.2, 7),
      g('1', 'CMR7', 187, 96.2, 7),
      g('\u0011', 'CMEX10', 192, 111.1),
      g('2', 'CMR7', 198, 107.9, 7),
      g(',', 'CMR10', 204, 100),
      g('(1)', 'CMR10', 330, 100),
    ];
    // Act
    const displays = await displaysOf(glyphs, [{ x1: 146, x2: 191, y: 102.5 }]);
    // Assert
    expect(displays).toEqual([
      {
        body: 'T_{200}=3.6\\times 10^{5}\\ \\mathrm{K}\\Big{(}\\frac{\\textrm{v}_{200}}{100\\ \\mathrm{km\\ s^{-1}}}\\Big{)}^{2},',
        number: '1',
      },
    ]);
  });

  it('reads a denominator with a word in its subscript and units as part of the display', async () => {
    // Arrange: M_gas = 6 × 10^10 M \Big( 0.5 / f_{O VII} \Big) \Big( R / 500 kpc \Big)^2 , (4)
    const glyphs = [
      g('M', 'CMMI10', 60, 100),
      g('gas', 'CMR7', 69, 98.5, 7),
      g('=', 'CMR10', 84, 100),
      g('6', 'CMR10', 94, 100),
      g('\u0002', 'CMSY10', 101, 100),
      g('10', 'CMR10', 110, 100),
      g('10', 'CMR7', 121.5, 103.6, 7),
      g('M', 'CMR10', 133, 100),
      g('\u0010', 'CMEX10', 143, 111.1),
      g('0.5', 'CMR10', 154, 106.8),
      g('f', 'CMR10', 150, 93.1),
      g('O VII', 'CMR7', 154, 91.6, 7),
      g('\u0011', 'CMEX10', 172, 111.1),
      g('\u0010', 'CMEX10', 178, 111.1),
      g('R', 'CMR10', 193, 106.8),
      g('500 kpc', 'CMR10', 185, 93.1),
      g('\u0011', 'CMEX10', 217, 111.1),
      g('2', 'CMR7', 223, 107.9, 7),
      g(',', 'CMR10', 229, 100),
      g('(4)', 'CMR10', 330, 100),
    ];
    const rules = [
      { x1: 150, x2: 171, y: 102.5 },
      { x1: 185, x2: 216, y: 102.5 },
    ];
    // Act
    const displays = await displaysOf(glyphs, rules);
    // Assert
    expect(displays).toEqual([
      {
        body: 'M_{\\text{gas}}=6\\times 10^{10}\\ \\mathrm{M}\\Big{(}\\frac{0.5}{\\textrm{f}_{\\text{O\\,VII}}}\\Big{)}\\Big{(}\\frac{\\textrm{R}}{500\\ \\mathrm{kpc}}\\Big{)}^{2},',
        number: '4',
      },
    ]);
  });

  it('keeps a sign set far from the rest of its line between two fractions', async () => {
    // Arrange: y_1 = abcdef/ghijkl + mnopqr/stuvwx, the plus sign over three ems from the
    // equals sign, alone on the main line between the fractions.
    const glyphs = [
      g('y', 'CMMI10', 56, 100),
      g('1', 'CMR7', 61, 98.5, 7),
      g('=', 'CMR10', 68, 100),
      g('abcdef', 'CMMI10', 78, 106.8),
      g('ghijkl', 'CMMI10', 79.5, 93.1),
      g('+', 'CMR10', 110, 100),
      g('mnopqr', 'CMMI10', 120, 106.8),
      g('stuvwx', 'CMMI10', 121, 93.1),
    ];
    const rules = [
      { x1: 78, x2: 104.7, y: 102.5 },
      { x1: 120, x2: 151.1, y: 102.5 },
    ];
    // Act
    const displays = await displaysOf(glyphs, rules);
    // Assert
    expect(displays).toEqual([
      { body: 'y_{1}=\\frac{abcdef}{ghijkl}+\\frac{mnopqr}{stuvwx}', number: null },
    ]);
  });

  it('keeps the lower limit of an integral set in roman', async () => {
    // Arrange: p = ∫_Θ f dθ, CMEX's display integral (0x5A) and CMR's Θ (0x02) under it.
    const glyphs = [
      g('p', 'CMMI10', 60, 100),
      g('=', 'CMR10', 68, 100),
      g('Z', 'CMEX10', 80, 113.6),
      g('\u0002', 'CMR7', 86, 91, 7),
      g('f', 'CMMI10', 93, 100),
    ];
    // Act
    const displays = await displaysOf(glyphs);
    // Assert
    expect(displays).toEqual([{ body: 'p=\\int_{\\Theta}f', number: null }]);
  });

  it('keeps a display whole around a big delimiter that hangs beside a lowered limit', async () => {
    // Arrange: a + b|_{i=1,...,n} \Big]^{-1}, the evaluation limit lowered below the line and
    // the \Big] (CMEX 0x69) hanging below its baseline, far over the line in a reader's box:
    // only its true box meets the limit's.
    const glyphs = [
      g('a', 'CMMI10', 60, 100),
      g('+', 'CMR10', 67, 100),
      g('b', 'CMMI10', 76, 100),
      g('i', 'CMMI7', 82, 92.5, 7),
      g('=1,...,', 'CMR7', 85, 92.5, 7),
      g('n', 'CMMI7', 106, 92.5, 7),
      g('i', 'CMEX10', 114, 111.1),
      g('\u0000', 'CMSY7', 122, 106, 7),
      g('1', 'CMR7', 127.5, 106, 7),
      g(',', 'CMR10', 135, 100),
    ];
    // Act
    const displays = await displaysOf(glyphs);
    // Assert
    expect(displays).toEqual([{ body: 'a+b_{i=1,\\ldots,n}\\Big{]}^{-1},', number: null }]);
  });

  it('reads a line opening with a relation as the next line of the display over it', async () => {
    // Arrange: a = b + c, and under it = d + e, the lines 0.6 em apart.
    const glyphs = [
      g('a', 'CMMI10', 60, 100),
      g('=', 'CMR10', 68, 100),
      g('b', 'CMMI10', 78, 100),
      g('+', 'CMR10', 86, 100),
      g('c', 'CMMI10', 96, 100),
      g('=', 'CMR10', 68, 84),
      g('d', 'CMMI10', 78, 84),
      g('+', 'CMR10', 86, 84),
      g('e', 'CMMI10', 96, 84),
    ];
    // Act
    const displays = await displaysOf(glyphs);
    // Assert
    expect(displays).toEqual([
      { body: '\\begin{aligned}a&=b+c\\\\&=d+e\\end{aligned}', number: null },
    ]);
  });

  it('does not read a formula filling the last line of a paragraph as a display', async () => {
    // Arrange: the paragraph's lines start at x = 72, 12 pt apart.
    const glyphs = [
      g('In the inner halo of the galaxies of the sample we', 'CMR10', 72, 132),
      g('We find that the temperature of the gas is around', 'CMR10', 72, 120),
      g('x', 'CMMI10', 72, 108),
      g('= 10 + 1.', 'CMR10', 80, 108),
    ];
    // Act
    const displays = await displaysOf(glyphs);
    // Assert
    expect(displays).toEqual([]);
  });

  it('reads a formula on a line of its own after a paragraph, with more lead than its lines, as a display', async () => {
    // Arrange: the paragraph's lines are 11 pt apart, the formula 13.5 pt under the last one
    // (its box still under half an em from theirs).
    const glyphs = [
      g('A ball is thrown downward from the top of a building.', 'CMR10', 72, 131),
      g('After t seconds its height above the ground is given by', 'CMR10', 72, 120),
      g('h', 'CMMI10', 73, 106.5),
      g('= 64', 'CMR10', 82, 106.5),
      g('\u0000', 'CMSY10', 108, 106.5),
      g('8', 'CMR10', 117, 106.5),
      g('t', 'CMMI10', 122, 106.5),
      g('.', 'CMR10', 126, 106.5),
    ];
    // Act
    const displays = await displaysOf(glyphs);
    // Assert
    expect(displays).toEqual([{ body: 'h=64-8t.', number: null }]);
  });

  it('reads a short name set in sans serif as part of the display (\\mathsf{AQ})', async () => {
    // Arrange: AQ(x) = 2x, AQ in CMSS10 as \\mathsf sets it.
    const glyphs = [
      g('AQ', 'CMSS10', 60, 100),
      g('(', 'CMR10', 74, 100),
      g('x', 'CMMI10', 78, 100),
      g(') = 2', 'CMR10', 84, 100),
      g('x', 'CMMI10', 108, 100),
      g(',', 'CMMI10', 114, 100),
    ];
    // Act
    const displays = await displaysOf(glyphs);
    // Assert
    expect(displays).toEqual([{ body: '\\mathsf{AQ}(x)=2x,', number: null }]);
  });

  it('reads a script set last as a script, not as the equation number (v_t^{(1)})', async () => {
    // Arrange: y = v_t^{(1)}, the subscript t set before the superscript (1).
    const glyphs = [
      g('y', 'CMMI10', 60, 100),
      g('=', 'CMR10', 68, 100),
      g('v', 'CMMI10', 78, 100),
      g('t', 'CMMI7', 83, 98.5, 7),
      g('(1)', 'CMR7', 84, 103.6, 7),
    ];
    // Act
    const displays = await displaysOf(glyphs);
    // Assert
    expect(displays).toEqual([{ body: 'y=v_{t}^{(1)}', number: null }]);
  });

  it('keeps a script opening a line of a display, which is no item label ((2) before x)', async () => {
    // Arrange: a prescript (2) set before x = 1; an item label is set at the text's size.
    const glyphs = [
      g('(2)', 'CMR7', 60, 103.6, 7),
      g('x', 'CMMI10', 71, 100),
      g('= 1', 'CMR10', 79, 100),
    ];
    // Act
    const displays = await displaysOf(glyphs);
    // Assert
    expect(displays).toEqual([{ body: '{}^{(2)}x=1', number: null }]);
  });

  it('reads an underbrace whose pieces lie far apart as one display with its label', async () => {
    // Arrange: \\underbrace{x+y}_{n}, CMEX's brace pieces (0x7C, 0x7B 0x7A, 0x7D) under the
    // line with rules between them, n under the brace.
    const glyphs = [
      g('x', 'CMMI10', 100, 100),
      g('+', 'CMR10', 108, 100),
      g('y', 'CMMI10', 117, 100),
      g('|', 'CMEX10', 60, 92),
      g('{z', 'CMEX10', 105, 92),
      g('}', 'CMEX10', 160, 92),
      g('n', 'CMMI7', 108, 80, 7),
    ];
    const rules = [
      { x1: 65, x2: 105, y: 91.4 },
      { x1: 115, x2: 160, y: 91.4 },
    ];
    // Act
    const displays = await displaysOf(glyphs, rules);
    // Assert
    expect(displays).toEqual([{ body: '\\underbrace{x+y}_{n}', number: null }]);
  });

  it('reads dots set one by one as an ellipsis', async () => {
    // Act
    const displays = await displaysOf([
      g('t', 'CMMI10', 60, 100),
      g('= 1', 'CMR10', 66, 100),
      g(',...,', 'CMMI10', 84, 100),
      g('T', 'CMMI10', 100, 100),
    ]);
    // Assert
    expect(displays).toEqual([{ body: 't=1,\\ldots,T', number: null }]);
  });

  it('reads a word joining the parts of a display as text in it (for t = 1, ..., T)', async () => {
    // Arrange: y_t = 2x_t,   for t = 1,...,T.   (17)
    const glyphs = [
      g('y', 'CMMI10', 60, 100),
      g('t', 'CMMI7', 65, 98.5, 7),
      g('= 2', 'CMR10', 71, 100),
      g('x', 'CMMI10', 89, 100),
      g('t', 'CMMI7', 94.5, 98.5, 7),
      g(',', 'CMMI10', 97.5, 100),
      g('for', 'CMR10', 118, 100),
      g('t', 'CMMI10', 134, 100),
      g('= 1', 'CMR10', 140, 100),
      g(',...,', 'CMMI10', 158, 100),
      g('T', 'CMMI10', 174, 100),
      g('.', 'CMMI10', 180, 100),
      g('(17)', 'CMR10', 330, 100),
    ];
    // Act
    const displays = await displaysOf(glyphs);
    // Assert
    expect(displays).toEqual([
      { body: 'y_{t}=2x_{t},\\qquad\\text{for}~t=1,\\ldots,T.', number: '17' },
    ]);
  });
});
