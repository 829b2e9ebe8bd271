import { describe, expect, it } from 'vitest';
import type { Segment } from '../../../../functions/engines/layout/types.js';
import {
  equationLatex,
  isMathFont,
  lineLatex,
  mathLines,
  textLatex,
  trueBox,
} from '../../../../functions/engines/math/latex.js';
import { compactLatex } from '../../../../functions/engines/math/find-math.js';
import { glyphs } from './glyphs.js';

const bar = (y: number, x1: number, x2: number): Segment => ({ x1, y1: y, x2, y2: y });

describe('isMathFont', () => {
  it('knows the TeX math fonts, Symbol, *Math and the STIX family', () => {
    // Act
    const names = [
      'ABCDEF+CMMI10',
      'CMSY7',
      'CMEX10',
      'Symbol',
      'CambriaMath',
      'STIXGeneral-Italic',
      'ABCDEF+XITSMath-Regular',
      'MTExtra',
    ];
    // Assert
    expect(names.filter(isMathFont)).toEqual(names);
    expect(['CMR10', 'Times-Roman', 'LiberationSerif'].filter(isMathFont)).toEqual([]);
  });

  it('does not take a text font whose name merely contains a math family (FoxitSerif, xits)', () => {
    // Act
    const names = ['FoxitSerif', 'ABCDEF+FoxitSans-Bold', 'Eustix-Book'];
    // Assert
    expect(names.filter(isMathFont)).toEqual([]);
  });
});

describe('textLatex', () => {
  it('maps Greek letters, operators and relations to LaTeX commands', () => {
    // Act
    const { latex, notes } = textLatex('α ≤ 2π − ∑∞ × ∂', 'CMMI10');
    // Assert
    expect(latex.replace(/\s+/g, ' ').trim()).toBe(
      '\\alpha \\leq 2\\pi - \\sum \\infty \\times \\partial',
    );
    expect(notes).toEqual([]);
  });

  it('sets operator names upright outside italic math fonts, and escapes reserved characters', () => {
    // Act
    const roman = textLatex('sin x + log{y}%', 'Symbol');
    const italic = textLatex('sin', 'CMMI10');
    // Assert
    expect(roman.latex.replace(/\s+/g, ' ')).toBe('\\sin x + \\log \\{y\\}\\%');
    expect(italic.latex).toBe('sin');
  });

  it('sets the words of an upright text font as text, a lone letter as \\textrm', () => {
    // Act
    const { latex } = textLatex('for d', 'CMR10');
    // Assert
    expect(latex).toBe('\\text{for} \\textrm{d}');
  });

  it('reads the glyphs of TeX math fonts by their encodings when a PDF gives raw codes', () => {
    // Act: CMSY's N and prime, MSBM's R, CMMI's star and epsilon, a combining caron.
    const read = [
      textLatex('N0', 'ABCDEF+CMSY10'),
      textLatex('R', 'MSBM10'),
      textLatex('?\u000f', 'CMMI7'),
      textLatex('y\u030c', 'CMMI10'),
      textLatex('g', 'EUFM10'),
    ].map((r) => r.latex);
    // Assert
    expect(read).toEqual([
      '\\mathcal{N}\\prime ',
      '\\mathbb{R}',
      '\\star \\epsilon ',
      '\\check{y}',
      '\\mathfrak{g}',
    ]);
  });

  it('reads mathematical alphanumeric symbols by their alphabet', () => {
    // Act
    const { latex } = textLatex('𝑥𝐀𝔼𝒩𝔤', 'STIXGeneral-Italic');
    // Assert
    expect(latex).toBe('x\\mathbf{A}\\mathbb{E}\\mathcal{N}\\mathfrak{g}');
  });

  it('keeps a character it cannot map and says so, and marks a glyph without Unicode', () => {
    // Act
    const { latex, notes } = textLatex('ж\uE001', 'CMSY10');
    // Assert
    expect(latex).toBe('ж\\square ');
    expect(notes).toEqual([
      'the character "ж" (U+0436) has no LaTeX mapping and was kept as it is',
      'a glyph without a Unicode mapping was read as \\square',
    ]);
  });
});

describe('lineLatex', () => {
  it('writes a space between a command word and a digit after it (\\sim 0.4, \\times 10)', () => {
    // Arrange: `∼ 0.4 × 10^5` in CMSY10 and CMR10.
    const runs = [
      glyphs('\u223c', 100, 200, 10, 'CMSY10'),
      glyphs('0.4', 110, 200, 10, 'CMR10'),
      glyphs('\u00d7', 128, 200, 10, 'CMSY10'),
      glyphs('10', 137, 200, 10, 'CMR10'),
      glyphs('5', 147, 196, 7, 'CMR7'),
    ];
    // Act
    const { latex } = lineLatex(runs);
    // Assert
    expect(latex).toBe('\\sim 0.4\\times 10^{5}');
  });

  it('writes units after a number as one \\mathrm, the exponent on its last word', () => {
    // Arrange: `100 km s^{-1}` in CMR10, the exponent in CMSY7 and CMR7, raised.
    const runs = [
      glyphs('100 km s', 100, 200, 10, 'CMR10'),
      glyphs('\u2212', 140, 196, 7, 'CMSY7'),
      glyphs('1', 144, 196, 7, 'CMR7'),
    ];
    // Act
    const { latex } = lineLatex(runs);
    // Assert
    expect(latex).toBe('100\\ \\mathrm{km\\ s^{-1}}');
  });

  it('reads the increment sign a reader gives for an upright Delta as \\Delta', () => {
    // Arrange: TeX's upright Delta of CMR10, read through its glyph name as U+2206.
    const runs = [glyphs('\u2206', 100, 200, 10, 'CMR10'), glyphs('x', 107, 200)];
    // Act
    const { latex } = lineLatex(runs);
    // Assert
    expect(latex).toBe('\\Delta x');
  });

  it('reads a smaller raised run as a superscript (a² + 8 = 12)', () => {
    // Arrange: as in docling-code_and_formula.pdf, CMMI a, CMR7 2, CMR10 "+ 8 = 12".
    const runs = [
      glyphs('a', 280.6, 371.8),
      glyphs('2', 285.8, 367.7, 7, 'CMR7'),
      glyphs('+ 8 = 12', 292.5, 371.8, 10, 'CMR10'),
    ];
    // Act
    const { latex } = lineLatex(runs);
    // Assert
    expect(latex).toBe('a^{2}+8=12');
  });

  it('reads a smaller lowered run as a subscript, and a script on a script', () => {
    // Arrange: x_i = e^{t^2}
    const runs = [
      glyphs('x', 100, 200),
      glyphs('i', 105, 202.5, 7),
      glyphs('=', 112, 200, 10, 'CMR10'),
      glyphs('e', 122, 200),
      glyphs('t', 127, 196, 7),
      glyphs('2', 131, 193.5, 5, 'CMR5'),
    ];
    // Act
    const { latex } = lineLatex(runs);
    // Assert
    expect(latex).toBe('x_{i}=e^{t^{2}}');
  });

  it('gives a script with nothing before it an empty base', () => {
    // Act
    const { latex } = lineLatex([glyphs('14', 100, 196, 7, 'CMR7'), glyphs('C', 108, 200)]);
    // Assert
    expect(latex).toBe('{}^{14}C');
  });
});

describe('mathLines', () => {
  it('puts a superscript read before its base on the base line', () => {
    // Arrange: the raised 2 has the smallest baseline, so it sorts first.
    const runs = [glyphs('2', 106, 196, 7, 'CMR7'), glyphs('a', 100, 200), glyphs('b', 100, 215)];
    // Act
    const lines = mathLines(runs);
    // Assert
    expect(lines.map((line) => line.map((r) => r.text).join(''))).toEqual(['a2', 'b']);
  });
});

describe('equationLatex', () => {
  it('reads a minus joined to an arrow as a long arrow, and a label over it with \\stackrel', () => {
    // Arrange: X −→ Y with d over the arrow; CMSY sets −→ as one run, its N as \\mathcal{N}.
    const runs = [
      glyphs('X', 100, 200),
      glyphs('\u2212\u2192N', 110, 200, 10, 'CMSY10'),
      glyphs('d', 115, 195, 7),
    ];
    // Act
    const { latex } = equationLatex(runs, []);
    // Assert
    expect(latex).toBe('X\\stackrel{d}{\\longrightarrow}\\mathcal{N}');
  });

  it('reads a fraction in scriptscript size after a \\Bigg delimiter as its exponent', () => {
    // Arrange: \\Bigg[ x \\Bigg]^{1/2}, the fraction's bar at the delimiter's top; CMEX's
    // \\Bigg[ and \\Bigg] are codes 0x22 and 0x23, their origin at their top.
    const runs = [
      glyphs('"', 100, 182.8, 10, 'CMEX10'),
      glyphs('x', 108, 200),
      glyphs('#', 114, 182.8, 10, 'CMEX10'),
      glyphs('1', 121, 182, 5, 'CMR5'),
      glyphs('2', 121, 187.5, 5, 'CMR5'),
    ];
    // Act
    const { latex } = equationLatex(runs, [bar(184, 120.5, 124)]);
    // Assert
    expect(latex).toBe('\\Bigg{[}x\\Bigg{]}^{\\frac{1}{2}}');
  });

  it('reads an underbrace and the label under it, and its rules as no fraction bars', () => {
    // Arrange: \\underbrace{x+y}_{n}: CMEX's pieces \\bracelu, \\bracerd \\braceld and
    // \\braceru (0x7C, 0x7B 0x7A, 0x7D) under x + y with rules between them, n under the brace.
    const runs = [
      glyphs('x', 120, 200),
      glyphs('+', 127, 200, 10, 'CMR10'),
      glyphs('y', 134, 200),
      glyphs('|', 100, 203, 10, 'CMEX10'),
      glyphs('{z', 130, 203, 10, 'CMEX10'),
      glyphs('}', 165, 203, 10, 'CMEX10'),
      glyphs('n', 120, 212, 7),
    ];
    // Act
    const { latex } = equationLatex(runs, [bar(203.6, 105, 130), bar(203.6, 140, 165)]);
    // Assert
    expect(latex).toBe('\\underbrace{x+y}_{n}');
  });

  it('keeps the superscript of the base before a relation on its base', () => {
    // Arrange: x² = y, the exponent ending just before the equals sign.
    const runs = [
      glyphs('x', 100, 200),
      glyphs('2', 105, 196, 7, 'CMR7'),
      glyphs('=', 110, 200, 10, 'CMR10'),
      glyphs('y', 118, 200),
    ];
    // Act
    const { latex } = equationLatex(runs, []);
    // Assert
    expect(latex).toBe('x^{2}=y');
  });

  it('reads runs over and under a bar as a fraction (s(t) = t / (1 + t²))', () => {
    // Arrange: as in olmocr-openstax_caculus_pg_273.pdf, exercise 152.
    const runs = [
      // Half an em a character: 's(t)=' ends before the bar, as on the page.
      glyphs('s(t)=', 97.8, 227.2, 10, 'STIXGeneral-Regular'),
      glyphs('t', 134.8, 223.5),
      glyphs('1 + ', 124.3, 235.8, 10, 'STIXGeneral-Regular'),
      glyphs('t', 140.6, 235.8),
      glyphs('2', 144.2, 231.7, 8, 'STIXGeneral-Regular'),
    ];
    // Act
    const { latex, notes } = equationLatex(runs, [bar(224.66, 123.6, 148.8)]);
    // Assert
    expect(latex).toBe('s(t)=\\frac{t}{1+t^{2}}');
    expect(notes).toEqual([]);
  });

  it('reads nested fractions inside out', () => {
    // Arrange: 1 / (1 + 1/x) with the inner bar shorter than the outer one.
    const runs = [
      glyphs('1', 120, 90),
      glyphs('1 +', 100, 112),
      glyphs('1', 122, 106, 7),
      glyphs('x', 122, 118, 7),
    ];
    // Act
    const { latex } = equationLatex(runs, [bar(95, 98, 135), bar(109, 120, 128)]);
    // Assert
    expect(latex).toBe('\\frac{1}{1+\\frac{1}{x}}');
  });

  it('reads the runs under a vinculum as the radicand', () => {
    // Arrange: √(x + 1) = 2, the vinculum starting at the radical sign's right edge.
    const runs = [
      glyphs('√', 100, 200, 10, 'Symbol'),
      glyphs('x + 1', 106, 200),
      glyphs('= 2', 135, 200, 10, 'CMR10'),
    ];
    // Act
    const { latex, notes } = equationLatex(runs, [bar(191, 105, 131)]);
    // Assert
    expect(latex).toBe('\\sqrt{x+1}=2');
    expect(notes).toEqual([]);
  });

  it('says when a radical has no vinculum to read its extent from', () => {
    // Act
    const { latex, notes } = equationLatex([glyphs('√2 = r', 100, 200)], []);
    // Assert
    expect(latex).toBe('\\sqrt 2=r');
    expect(notes).toEqual([
      'a radical without a visible vinculum: its extent is a guess (\\sqrt applies to the next symbol)',
    ]);
  });

  it('reads what is stacked over and under a big operator as its limits', () => {
    // Arrange: ∑_{i=1}^{n} x_i, the larger sigma centred on the math axis, limits centred on it.
    const runs = [
      glyphs('∑', 100, 201, 14, 'CMEX10'),
      glyphs('n', 103, 189, 7),
      glyphs('i=1', 100, 215, 7),
      glyphs('x', 112, 200),
      glyphs('i', 117, 202.5, 7),
    ];
    // Act
    const { latex } = equationLatex(runs, []);
    // Assert
    expect(latex).toBe('\\sum_{i=1}^{n}x_{i}');
  });

  it('aligns the lines of a multi-line display on their relations', () => {
    // Act: x = 1 over y = 2, the equals signs one under the other.
    const { latex, notes } = equationLatex(
      [glyphs('x = 1,', 100, 200), glyphs('y = 2.', 100, 220)],
      [],
    );
    // Assert
    expect(latex).toBe('\\begin{aligned}x&=1,\\\\y&=2\\end{aligned}');
    expect(notes).toEqual([]);
  });

  it('joins lines that do not align and says their alignment is not recovered', () => {
    // Act
    const { latex, notes } = equationLatex(
      [glyphs('x = 1,', 100, 200), glyphs('y + z = 2.', 140, 220)],
      [],
    );
    // Assert
    expect(latex).toBe('x=1,\\\\y+z=2');
    expect(notes).toEqual([
      'an equation set on 2 lines was read line by line (joined with \\\\); its alignment is not recovered',
    ]);
  });

  it('notes a rule with text on one side only (an overline) and leaves it out', () => {
    // Act
    const { latex, notes } = equationLatex([glyphs('x = y', 100, 200)], [bar(190, 100, 125)]);
    // Assert
    expect(latex).toBe('x=y');
    expect(notes).toEqual([
      'a horizontal rule in an equation (an overline or underline?) was not read',
    ]);
  });
});

describe('trueBox', () => {
  it('gives a CMEX delimiter the box under its baseline, and leaves other runs alone', () => {
    // Arrange: a \Big( (code 0x10) at 10 px, its reader's box above the baseline.
    const paren = glyphs('\u0010', 100, 200, 10, 'CMEX10');
    const letter = glyphs('x', 110, 200);
    // Act
    const [box, same] = [trueBox(paren), trueBox(letter)];
    // Assert
    expect(box.y).toBeCloseTo(199.6);
    expect(box.h).toBeCloseTo(18);
    expect(same).toBe(letter);
  });
});

describe('compactLatex', () => {
  it('keeps control spaces and the space after a command word, and drops the others', () => {
    // Act
    const latex = compactLatex('\\sim 6 \\times 10 ^{40}\\ \\mathrm{erg\\ s^{-1}} \\\\ x');
    // Assert
    expect(latex).toBe('\\sim 6\\times 10^{40}\\ \\mathrm{erg\\ s^{-1}}\\\\x');
  });
});
