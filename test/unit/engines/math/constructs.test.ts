import katex from 'katex';
import { describe, expect, it } from 'vitest';
import { equationLatex } from '../../../../functions/engines/math/latex.js';
import { texPage, type Glyphs, type Rule } from '../../../support/tex-pdf.js';

/**
 * Each construct of a formula set as TeX sets it (Computer Modern names, glyphs by their codes,
 * rules drawn), read from a generated PDF through PDFium and rebuilt as LaTeX.
 * Points from the bottom left; the main size is 10 pt, scripts 7 pt, second-level scripts 5 pt.
 */

const g = (text: string, font: string, x: number, y: number, size = 10): Glyphs => ({
  text,
  font,
  size,
  x,
  y,
});

/** The LaTeX rebuilt from the page's text layer, checked to parse with KaTeX. */
const latexOf = async (glyphs: Glyphs[], rules: Rule[] = []): Promise<string> => {
  const page = await texPage(glyphs, rules);
  const { latex } = equationLatex(page.runs, page.rules);
  expect(() => katex.renderToString(latex, { throwOnError: true })).not.toThrow();
  return latex;
};

describe('equationLatex on a generated PDF', () => {
  it('reads scripts from baseline shift and size: x_t^(i), a prime, x_{t-1}', async () => {
    // Arrange: CMMI's θ is code 0x12, CMSY's prime 0x30 and minus 0x00.
    const glyphs = [
      g('x', 'CMMI10', 50, 100),
      g('t', 'CMMI7', 55.5, 97.5, 7),
      g('(', 'CMR7', 55.5, 103.6, 7),
      g('i', 'CMMI7', 58, 103.6, 7),
      g(')', 'CMR7', 60.5, 103.6, 7),
      g('=', 'CMR10', 67, 100),
      g('\u0012', 'CMMI10', 77, 100),
      g('0', 'CMSY7', 82, 103.6, 7),
      g('+', 'CMR10', 88, 100),
      g('x', 'CMMI10', 97, 100),
      g('t', 'CMMI7', 102, 97.5, 7),
      g('\u0000', 'CMSY7', 104.5, 97.5, 7),
      g('1', 'CMR7', 110, 97.5, 7),
    ];
    // Act
    const latex = await latexOf(glyphs);
    // Assert
    expect(latex).toBe('x_{t}^{(i)}=\\theta^{\\prime}+x_{t-1}');
  });

  it('reads scripts on scripts (e^{x_i^2})', async () => {
    // Act
    const latex = await latexOf([
      g('e', 'CMMI10', 50, 100),
      g('x', 'CMMI7', 55, 104, 7),
      g('i', 'CMMI5', 59, 102.8, 5),
      g('2', 'CMR5', 59, 107, 5),
    ]);
    // Assert
    expect(latex).toBe('e^{x_{i}^{2}}');
  });

  it('reads glyphs over and under a rule as a fraction, nested ones inside out', async () => {
    // Arrange: y = a / (1 + 1/x), the inner fraction in text style.
    const glyphs = [
      g('y', 'CMMI10', 40, 100),
      g('=', 'CMR10', 47, 100),
      g('a', 'CMMI10', 64, 108),
      g('1', 'CMR10', 58, 92),
      g('+', 'CMR10', 65, 92),
      g('1', 'CMR7', 77, 97),
      g('x', 'CMMI7', 76.5, 88.5),
    ];
    const rules = [
      { x1: 57, x2: 84, y: 102.5 },
      { x1: 75, x2: 82, y: 94.5 },
    ];
    // Act
    const latex = await latexOf(glyphs, rules);
    // Assert
    expect(latex).toBe('y=\\frac{a}{1+\\frac{1}{x}}');
  });

  it('reads a radical with its vinculum and its index', async () => {
    // Arrange: CMEX's radical (code 0x70) hangs below its baseline, the vinculum at its top.
    const latex = await latexOf(
      [g('p', 'CMEX10', 50, 108.4), g('3', 'CMR7', 49, 104, 7), g('x', 'CMMI10', 59, 100)],
      [{ x1: 56, x2: 66, y: 108.4 }],
    );
    // Assert
    expect(latex).toBe('\\sqrt[3]{x}');
  });

  it('reads the limits stacked over and under a big operator', async () => {
    // Arrange: CMEX's display sum (code 0x58), centred on the math axis.
    const latex = await latexOf([
      g('X', 'CMEX10', 60, 109.5),
      g('N', 'CMMI7', 65, 112, 7),
      g('i', 'CMMI7', 61, 83, 7),
      g('=1', 'CMR7', 64, 83, 7),
      g('x', 'CMMI10', 77, 100),
      g('i', 'CMMI7', 82.5, 97.5, 7),
    ]);
    // Assert
    expect(latex).toBe('\\sum_{i=1}^{N}x_{i}');
  });

  it('reads an operator name with a limit under it as \\operatorname*', async () => {
    // Act
    const latex = await latexOf([
      g('arg', 'CMR10', 40, 100),
      g('max', 'CMR10', 56, 100),
      g('\u0012', 'CMMI7', 54, 92, 7),
      g('f', 'CMMI10', 76, 100),
    ]);
    // Assert
    expect(latex).toBe('\\operatorname*{arg\\,max}_{\\theta}f');
  });

  it('reads sized CMEX delimiters by their size, and operator names upright', async () => {
    // Arrange: \Big( and \Big) (codes 0x10, 0x11), 1.8 em tall, centred on the axis.
    const latex = await latexOf([
      g('log', 'CMR10', 30, 100),
      g('\u0010', 'CMEX10', 50, 111.1),
      g('x', 'CMMI10', 58, 100),
      g('+', 'CMR10', 65, 100),
      g('y', 'CMMI10', 73, 100),
      g('\u0011', 'CMEX10', 80, 111.1),
    ]);
    // Assert
    expect(latex).toBe('\\log\\Big{(}x+y\\Big{)}');
  });

  it('reads rows inside a delimiter built from pieces as a matrix', async () => {
    // Arrange: a parenthesis of two pieces a side (codes 0x30 and 0x40, 0x31 and 0x41).
    const latex = await latexOf([
      g('A', 'CMMI10', 30, 100),
      g('=', 'CMR10', 39, 100),
      g('0', 'CMEX10', 50, 120),
      g('@', 'CMEX10', 50, 102),
      g('a', 'CMMI10', 60, 108),
      g('b', 'CMMI10', 75, 108),
      g('c', 'CMMI10', 60, 92),
      g('d', 'CMMI10', 75, 92),
      g('1', 'CMEX10', 85, 120),
      g('A', 'CMEX10', 85, 102),
    ]);
    // Assert
    expect(latex).toBe('A=\\begin{pmatrix}a&b\\\\c&d\\end{pmatrix}');
  });

  it('reads rows to the right of a lone brace as cases', async () => {
    // Arrange: a \Bigg\{ (code 0x28), 3 em tall, and two rows of two columns.
    const latex = await latexOf([
      g('f', 'CMMI10', 40, 100),
      g('=', 'CMR10', 48, 100),
      g('(', 'CMEX10', 58, 117.1),
      g('1', 'CMR10', 70, 108),
      g('if', 'CMR10', 85, 108),
      g('x', 'CMMI10', 95, 108),
      g('>', 'CMMI10', 103, 108),
      g('0', 'CMR10', 112, 108),
      g('0', 'CMR10', 70, 92),
      g('otherwise', 'CMR10', 85, 92),
    ]);
    // Assert
    expect(latex).toBe('f=\\begin{cases}1&\\text{if}~x>0\\\\0&\\text{otherwise}\\end{cases}');
  });

  it('reads accents over a base: a hat, a caron and a wide hat', async () => {
    // Arrange: CMR's circumflex (0x5E) and caron (0x14) over their letters, CMEX's wide hat
    // (0x62) over p.
    const latex = await latexOf([
      g('x', 'CMMI10', 50, 100),
      g('^', 'CMR10', 50.5, 100),
      g('+', 'CMR10', 58, 100),
      g('y', 'CMMI10', 67, 100),
      g('\u0014', 'CMR10', 67.5, 100),
      g('=', 'CMR10', 76, 100),
      g('p', 'CMMI10', 86, 100),
      g('b', 'CMEX10', 85.5, 100),
    ]);
    // Assert
    expect(latex).toBe('\\hat{x}+\\check{y}=\\widehat{p}');
  });

  it('reads blackboard bold, calligraphic and fraktur letters from their fonts', async () => {
    // Arrange: CMSY's element-of is code 0x32.
    const latex = await latexOf([
      g('x', 'CMMI10', 40, 100),
      g('2', 'CMSY10', 48, 100),
      g('R', 'MSBM10', 58, 100),
      g('p', 'CMMI7', 65.5, 104, 7),
      g(',', 'CMMI10', 70, 100),
      g('N', 'CMSY10', 76, 100),
      g(',', 'CMMI10', 85, 100),
      g('g', 'EUFM10', 90, 100),
    ]);
    // Assert
    expect(latex).toBe('x\\in\\mathbb{R}^{p},\\mathcal{N},\\mathfrak{g}');
  });

  it('measures the space after a base from its widest script (v_{200}^{2} =)', async () => {
    // Arrange: the subscript ends past the superscript, a thin space before the equals sign.
    const latex = await latexOf([
      g('v', 'CMMI10', 50, 100),
      g('2', 'CMR7', 55.5, 103.6, 7),
      g('200', 'CMR7', 55, 97.5, 7),
      g('=', 'CMR10', 68, 100),
      g('3', 'CMR10', 76, 100),
    ]);
    // Assert
    expect(latex).toBe('v_{200}^{2}=3');
  });

  it('reads upright Greek capitals of a text font by their codes (Θ is 0x02 in CMR)', async () => {
    // Act
    const latex = await latexOf([g('\u0002', 'CMR10', 50, 100), g('\u0003', 'CMR10', 58, 100)]);
    // Assert
    expect(latex).toBe('\\Theta\\Lambda');
  });
});

describe('TeX math glyphs whose codes read as white space', () => {
  it('reads CMSY 0x0C as ⊙ and CMMI 0x0B, 0x0C as α, β, in the text layer and the LaTeX', async () => {
    // Arrange: M⊙ as pdfTeX sets it (the sun's symbol a CMSY7 subscript), then α + β in CMMI10.
    const glyphs = [
      g('M', 'CMMI10', 50, 100),
      g('\u000c', 'CMSY7', 59.5, 97.5, 7),
      g('\u000b', 'CMMI10', 65, 100),
      g('+', 'CMR10', 73, 100),
      g('\u000c', 'CMMI10', 82, 100),
    ];
    // Act
    const page = await texPage(glyphs);
    const latex = await latexOf(glyphs);
    // Assert
    expect(page.runs.map((r) => r.text.trim()).join('')).toBe('M⊙α+β');
    expect(latex).toBe('M_{\\odot}\\alpha+\\beta');
  });

  it('reads CMEX 0x20, the largest (, as its glyph, not as a space', async () => {
    // Arrange: \Bigg( and \Bigg) (codes 0x20, 0x21), 3 em tall, hanging from the axis.
    const glyphs = [
      g('N', 'CMSY10', 38, 100),
      g(' ', 'CMEX10', 50, 117.1),
      g('x', 'CMMI10', 58, 100),
      g('+', 'CMR10', 65, 100),
      g('y', 'CMMI10', 73, 100),
      g('!', 'CMEX10', 80, 117.1),
    ];
    // Act
    const page = await texPage(glyphs);
    const latex = await latexOf(glyphs);
    // Assert
    expect(page.runs.filter((r) => r.fontName.endsWith('CMEX10'))).toHaveLength(2);
    expect(latex).toBe('\\mathcal{N}\\Bigg{(}x+y\\Bigg{)}');
  });
});
