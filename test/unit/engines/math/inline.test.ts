import { describe, expect, it } from 'vitest';
import { joinLines } from '../../../../functions/engines/layout/inline.js';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import {
  extracted,
  line,
  texPage,
  texPdf,
  widthOf,
  type Glyphs,
} from '../../../support/tex-pdf.js';

/** The Markdown of a one-page PDF of `pieces` laid out as the text-layer engine does. */
const markdownOf = async (bytes: Uint8Array): Promise<string> => {
  const page = (await extracted(bytes)).text;
  return layoutPage(page, buildLayoutProfile([page])).markdown;
};

describe('inline formulas in running text', () => {
  it('keeps the digits before a decimal point set in a math font in the formula', async () => {
    // Arrange: TeX sets `$0.5$` as CMR's 0, CMMI's period and CMR's 5.
    const bytes = await texPdf(
      await line(72, 700, [
        ['CMR10', 'The emission in the band of 0'],
        ['CMMI10', '.'],
        ['CMR10', '5 keV is faint.'],
      ]),
    );
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe('The emission in the band of $0.5$ keV is faint.');
  });

  it('reads a roman letter carrying a script in a math font as the base of a formula', async () => {
    // Arrange: TeX's `$10^{12}\\,\\rm M_\\odot$`: 10 and M in CMR, the exponent in CMR7, the
    // sun's symbol a CMSY7 subscript (code 0x0C, no ToUnicode map); then `Z_\\odot` after a word.
    // The unit after the number is one formula with it.
    const glyphs: Glyphs[] = [];
    let x = 20;
    const put = async (font: string, text: string, size = 10, shift = 0): Promise<void> => {
      glyphs.push({ text, font, size, x, y: 100 + shift });
      x += text === '\u000c' ? 5 : await widthOf(text, size);
    };
    await put('CMR10', 'The halo holds 10');
    await put('CMR7', '12', 7, 3.6);
    await put('CMR10', ' M');
    await put('CMSY7', '\u000c', 7, -1.5);
    await put('CMR10', ' of gas at solar Z');
    await put('CMSY7', '\u000c', 7, -1.5);
    await put('CMR10', '.');
    const page = await texPage(glyphs);
    // Act
    const { markdown } = layoutPage(page, buildLayoutProfile([page]));
    // Assert
    expect(markdown).toBe(
      'The halo holds $10^{12}\\ \\mathrm{M_{\\odot}}$ of gas at solar $\\textrm{Z}_{\\odot}$.',
    );
  });

  it('writes a raised script after a unit set in text as a superscript', async () => {
    // Arrange: `cm$^2$` after a word, not a number; the exponent in a math font, raised.
    const bytes = await texPdf(
      await line(72, 700, [
        ['CMR10', 'Each cell covers an area given in cm'],
        ['CMMI7', '2', 7, 3.6],
        ['CMR10', ' on the detector.'],
      ]),
    );
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe('Each cell covers an area given in cm$^{2}$ on the detector.');
  });

  it('reads a name set in sans serif with the formula it touches', async () => {
    // Arrange: `$\\mathsf{EI}(\\theta)$`, EI in CMSS as \\mathsf sets it, then the same word
    // apart from any formula.
    const bytes = await texPdf(
      await line(72, 700, [
        ['CMR10', 'We stop when '],
        ['CMSS10', 'EI'],
        ['CMR10', '('],
        ['CMMI10', 'x'],
        ['CMR10', ') is small; '],
        ['CMSS10', 'EI'],
        ['CMR10', ' is the expected improvement.'],
      ]),
    );
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe(
      'We stop when $\\mathsf{EI}(x)$ is small; EI is the expected improvement.',
    );
  });

  it('keeps the brackets after a name in sans serif that ends a formula ($v=\\mathsf{Exp}(1)$)', async () => {
    // Arrange: `(1)` in CMR10, in one run with the words after it.
    const bytes = await texPdf(
      await line(72, 700, [
        ['CMR10', 'First, we sample '],
        ['CMMI10', 'v'],
        ['CMR10', ' = '],
        ['CMSS10', 'Exp'],
        ['CMR10', '(1) and then the rest.'],
      ]),
    );
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe('First, we sample $v=\\mathsf{Exp}(1)$ and then the rest.');
  });

  it('keeps the digits set after a subscript, touching it, in the formula ($Y_5 00$)', async () => {
    // Arrange: `$Y_500$` as TeX sets it: the subscript takes the 5 only, and the 00 that
    // follows in CMR10 shares its run with the words after it.
    const bytes = await texPdf(
      await line(72, 700, [
        ['CMR10', 'The predictions for '],
        ['CMMI10', 'Y'],
        ['CMR7', '5', 7, -1.6],
        ['CMR10', '00 from both simulations are similar.'],
      ]),
    );
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe('The predictions for $Y_{5}00$ from both simulations are similar.');
  });

  it('leaves parentheses around a whole formula to the sentence, as authors write them', async () => {
    // Arrange: `($M_{\\rm gas}$)` and `$\\mathcal{O}(k^3)$`, every parenthesis in CMR10.
    const bytes = await texPdf(
      await line(72, 700, [
        ['CMR10', 'The total gas mass ('],
        ['CMMI10', 'M'],
        ['CMR7', 'gas', 7, -1.5],
        ['CMR10', ') costs '],
        ['CMSY10', 'O'],
        ['CMR10', '('],
        ['CMMI10', 'k'],
        ['CMR7', '3', 7, 3.6],
        ['CMR10', ') steps.'],
      ]),
    );
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe(
      'The total gas mass ($M_{\\text{gas}}$) costs $\\mathcal{O}(k^{3})$ steps.',
    );
  });

  it('reads a number before a binary operator set in a math font as part of its formula', async () => {
    // Arrange: `$30-100$`, the digits in CMR10 and the minus in CMSY10 (code 0x00), with the
    // space TeX sets around a binary operator.
    const text = 'The hot gas extends to 30 ';
    const x = 72 + (await widthOf(text, 10));
    const page = await texPage([
      { text, font: 'CMR10', size: 10, x: 72, y: 150 },
      { text: '\u0000', font: 'CMSY10', size: 10, x: x + 0.2, y: 150 },
      {
        text: '100 kpc from the centre of the galaxy.',
        font: 'CMR10',
        size: 10,
        x: x + 10,
        y: 150,
      },
    ]);
    // Act
    const { markdown } = layoutPage(page, buildLayoutProfile([page]));
    // Assert
    expect(markdown).toBe('The hot gas extends to $30-100$ kpc from the centre of the galaxy.');
  });

  it('reads a range of percentages as a formula before its percent sign ($5-20$%)', async () => {
    // Arrange: `$5-20$\\%`, the minus in CMSY10 (code 0x00), the rest in CMR10.
    const text = 'The mass is underestimated by 5 ';
    const x = 72 + (await widthOf(text, 10));
    const page = await texPage([
      { text, font: 'CMR10', size: 10, x: 72, y: 150 },
      { text: '\u0000', font: 'CMSY10', size: 10, x: x + 0.2, y: 150 },
      { text: '20% in these simulations.', font: 'CMR10', size: 10, x: x + 10, y: 150 },
    ]);
    // Act
    const { markdown } = layoutPage(page, buildLayoutProfile([page]));
    // Assert
    expect(markdown).toBe('The mass is underestimated by $5-20$% in these simulations.');
  });

  it('reads a percentage between two glyphs of a formula as part of it', async () => {
    // Arrange: `($\\sim 15\\%r_{200}$)`, `∼` in CMSY10 (code 0x18), `15%` in CMR10, `r` in CMMI10.
    const text = 'The field covers a small fraction of the radius (';
    const x = 72 + (await widthOf(text, 10));
    const page = await texPage([
      { text, font: 'CMR10', size: 10, x: 72, y: 150 },
      { text: '\u0018', font: 'CMSY10', size: 10, x, y: 150 },
      { text: '15%', font: 'CMR10', size: 10, x: x + 10.8, y: 150 },
      { text: 'r', font: 'CMMI10', size: 10, x: x + 24.6, y: 150 },
      { text: '200', font: 'CMR7', size: 7, x: x + 29.1, y: 148.5 },
      { text: ') only.', font: 'CMR10', size: 10, x: x + 41, y: 150 },
    ]);
    // Act
    const { markdown } = layoutPage(page, buildLayoutProfile([page]));
    // Assert
    expect(markdown).toBe(
      'The field covers a small fraction of the radius ($\\sim 15\\%r_{200}$) only.',
    );
  });

  it('measures the space after a formula from its widest script, not its last', async () => {
    // Arrange: `$M_{\\rm halo}^{2}$.`, the period touching the subscript, which ends past the
    // superscript over it.
    const text = 'The signal scales as ';
    const x = 72 + (await widthOf(text, 10));
    const sub = x + 9.5 + (await widthOf('halo', 7));
    const bytes = await texPdf([
      ['CMR10', text, 72, 700, 10],
      ['CMMI10', 'M', x, 700, 10],
      ['CMR7', '2', x + 10, 703.6, 7],
      ['CMR7', 'halo', x + 9.5, 697, 7],
      ['CMR10', '. For this reason the halos are bright.', sub + 0.3, 700, 10],
    ]);
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe(
      'The signal scales as $M_{\\text{halo}}^{2}$. For this reason the halos are bright.',
    );
  });

  it('reads an upright Greek capital set in a text font among prose as a formula', async () => {
    // Arrange: `$\\mathcal{N}(0,\\Sigma)$ with covariance $\\Sigma$.`: TeX sets Σ in CMR10
    // (code 0x06), in one run with the words after it.
    const text = 'We jitter the solution by adding noise ';
    const x = 72 + (await widthOf(text, 10));
    const page = await texPage([
      { text, font: 'CMR10', size: 10, x: 72, y: 150 },
      { text: 'N', font: 'CMSY10', size: 10, x, y: 150 },
      { text: '(0,', font: 'CMR10', size: 10, x: x + 8.2, y: 150 },
      {
        text: '\u0006) with covariance \u0006. It helps.',
        font: 'CMR10',
        size: 10,
        x: x + 8.2 + (await widthOf('(0,', 10)),
        y: 150,
      },
    ]);
    // Act
    const { markdown } = layoutPage(page, buildLayoutProfile([page]));
    // Assert
    expect(markdown).toBe(
      'We jitter the solution by adding noise $\\mathcal{N}(0,\\Sigma)$ with covariance ' +
        '$\\Sigma$. It helps.',
    );
  });

  it('reads a bold letter touching a formula as part of it (\\mathbf{I}_p)', async () => {
    // Arrange: `$\\Sigma=0.01\\mathbf{I}_{p}$`, the identity matrix in CMBX10 between the
    // digits and the subscript, and a bold word elsewhere in the line.
    const bytes = await texPdf(
      await line(72, 700, [
        ['CMR10', 'The jitter is '],
        ['CMMI10', 'x'],
        ['CMR10', ' = 0'],
        ['CMMI10', '.'],
        ['CMR10', '01'],
        ['CMBX10', 'I'],
        ['CMMI7', 'p', 7, -1.5],
        ['CMR10', ' in all runs of the '],
        ['CMBX10', 'A'],
        ['CMR10', ' model.'],
      ]),
    );
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe('The jitter is $x=0.01\\mathbf{I}_{p}$ in all runs of the A model.');
  });

  it("reads a wide accent of TeX's extension font over its base (\\widehat{p})", async () => {
    // Arrange: `$\\log\\widehat{p}^{N}(x)$`, the wide hat CMEX10's code 0x62 (`b`) set on the
    // line's baseline over the p.
    const text = 'The estimate ';
    const x = 72 + (await widthOf(text, 10));
    const bytes = await texPdf([
      ['CMR10', text, 72, 700, 10],
      ['CMR10', 'log ', x, 700, 10],
      ['CMMI10', 'p', x + 14.3, 700, 10],
      ['CMEX10', 'b', x + 15.1, 700, 10],
      ['CMMI7', 'N', x + 19.6, 703.6, 7],
      ['CMR10', '(', x + 27.1, 700, 10],
      ['CMMI10', 'x', x + 31, 700, 10],
      ['CMR10', ') is unbiased.', x + 36, 700, 10],
    ]);
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe('The estimate $\\log\\widehat{p}^{N}(x)$ is unbiased.');
  });

  it('reads formulas apart at a comma of the text font, and together at a math comma', async () => {
    // Arrange: `$a=0.001$, $c=0.3$ and $x=(0,1)$`: TeX sets the sentence's commas in CMR10 and
    // a formula's own in CMMI10, as it does the decimal points.
    const bytes = await texPdf(
      await line(72, 700, [
        ['CMR10', 'We set '],
        ['CMMI10', 'a'],
        ['CMR10', ' = 0'],
        ['CMMI10', '.'],
        ['CMR10', '001, '],
        ['CMMI10', 'c'],
        ['CMR10', ' = 0'],
        ['CMMI10', '.'],
        ['CMR10', '3 and '],
        ['CMMI10', 'x'],
        ['CMR10', ' = (0'],
        ['CMMI10', ','],
        ['CMR10', '1), as before.'],
      ]),
    );
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe('We set $a=0.001$, $c=0.3$ and $x=(0,1)$, as before.');
  });

  it('sets no space between a formula and the comma after it', async () => {
    // Arrange: `$Z_\\odot$,` where the text layer gives no ⊙: the comma in CMR10 stands 3 pt
    // after the Z.
    const text = 'The gas has a metallicity of ';
    const x = 72 + (await widthOf(text, 10));
    const bytes = await texPdf([
      ['CMR10', text, 72, 700, 10],
      ['CMMI10', 'Z', x, 700, 10],
      ['CMR10', ', as we found before.', x + 10.1, 700, 10],
    ]);
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe('The gas has a metallicity of $Z$, as we found before.');
  });

  it('reads text of operator names and brackets between formula glyphs as part of it', async () => {
    // Arrange: `$y=100[\\log(s)+\\arctan(p)]$`, the names and brackets in CMR10 runs of their
    // own.
    const bytes = await texPdf(
      await line(72, 700, [
        ['CMR10', 'The data is '],
        ['CMMI10', 'y'],
        ['CMR10', ' = 100[log('],
        ['CMMI10', 's'],
        ['CMR10', ') + arctan('],
        ['CMMI10', 'p'],
        ['CMR10', ')], where it is.'],
      ]),
    );
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe('The data is $y=100[\\log(s)+\\arctan(p)]$, where it is.');
  });

  it('leaves a closing parenthesis the formula does not open to the sentence', async () => {
    // Arrange: `($0.05r$)`, the opening parenthesis in the text run before the number.
    const bytes = await texPdf(
      await line(72, 700, [
        ['CMR10', 'The gas of the shell (0'],
        ['CMMI10', '.'],
        ['CMR10', '05'],
        ['CMMI10', 'r'],
        ['CMR10', ') is hot.'],
      ]),
    );
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe('The gas of the shell ($0.05r$) is hot.');
  });

  it('leaves an opening parenthesis the formula does not close to the sentence', async () => {
    // Arrange: `($M=(3.5)10$ units)`, the unit set in text after the formula.
    const bytes = await texPdf(
      await line(72, 700, [
        ['CMR10', 'The galaxy is massive ('],
        ['CMMI10', 'M'],
        ['CMR10', ' = (3'],
        ['CMMI10', '.'],
        ['CMR10', '5)10 units) and bright.'],
      ]),
    );
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe('The galaxy is massive ($M=(3.5)10$ units) and bright.');
  });
});

describe('inline formulas across a line break', () => {
  it('reads a formula broken after its relation at a line end as one formula', async () => {
    // Arrange: `$M_{500}=4\\times 10^{12}$` set across two lines of a paragraph, the relation
    // last on the first line.
    const bytes = await texPdf([
      ...(await line(72, 700, [
        ['CMR10', 'By stacking the signal of many galaxies, it was detected for masses as low as '],
        ['CMMI10', 'M'],
        ['CMR7', '500', 7, -1.5],
        ['CMR10', ' ='],
      ])),
      ...(await line(72, 688, [
        ['CMR10', '4'],
        ['CMSY10', '×'],
        ['CMR10', '10'],
        ['CMR7', '12', 7, 3.6],
        ['CMR10', ' solar masses, a mass comparable with that of massive galaxies.'],
      ])),
    ]);
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe(
      'By stacking the signal of many galaxies, it was detected for masses as low as ' +
        '$M_{500}= 4\\times 10^{12}$ solar masses, a mass comparable with that of massive galaxies.',
    );
  });

  it('joins formulas at a line break only where the break falls at a relation or an operator', () => {
    expect(joinLines(['so that $x$', '$\\sim y$ holds'])).toBe('so that $x \\sim y$ holds');
    expect(joinLines(['the values $x$', '$y$ are given'])).toBe('the values $x$ $y$ are given');
    expect(joinLines(['it costs $5 = $', '$4 more'])).toBe('it costs $5 = $ $4 more');
    expect(joinLines(['$$x=$$', '$y$ and z'])).toBe('$$x=$$ $y$ and z');
  });
});

describe('big delimiters in running text', () => {
  it('reads a sized CMEX delimiter hanging from above a line of text with its formula', async () => {
    // Arrange: `$\\mathcal{O}\\big((K)^{1/2}\\big)$` in a line of a paragraph, as pdfTeX sets it:
    // \\big( and \\big) (CMEX codes 0x00, 0x01) hang from 0.81 em over the line's baseline, the
    // exponent 1/2, in pieces, sits 3.6 pt up (its slash in CMR, whose codes are ASCII).
    const glyphs: Glyphs[] = [];
    const words = async (text: string, x: number, y: number): Promise<number> => {
      glyphs.push({ text, font: 'CMR10', size: 10, x, y });
      return x + (await widthOf(text, 10));
    };
    const g = (text: string, font: string, x: number, y: number, size = 10): void => {
      glyphs.push({ text, font, size, x, y });
    };
    await words('There are few results on how fast the method converges to the mode.', 20, 150);
    await words('Some theoretical results say that it achieves an optimal rate of', 20, 138);
    let x = await words('order ', 20, 126);
    g('O', 'CMSY10', x, 126);
    g('\u0000', 'CMEX10', x + 7.9, 134.1);
    g('(', 'CMR10', x + 12.5, 126);
    g('K', 'CMMI10', x + 16.4, 126);
    g(')', 'CMR10', x + 25.3, 126);
    g('1', 'CMR7', x + 29.2, 129.6, 7);
    g('/', 'CMR7', x + 33.2, 129.6, 7);
    g('2', 'CMR7', x + 37.3, 129.6, 7);
    g('\u0001', 'CMEX10', x + 41.8, 134.1);
    x = await words(' for a smooth log-posterior and a', x + 46.4, 126);
    await words('covariance function of the right kind, as it is shown in the appendix.', 20, 114);
    const page = await texPage(glyphs);
    // Act
    const { markdown } = layoutPage(page, buildLayoutProfile([page]));
    // Assert
    expect(markdown).toContain(
      'optimal rate of order $\\mathcal{O}\\big{(}(K)^{1/2}\\big{)}$ for a smooth',
    );
    expect(markdown).not.toMatch(/^\$\(/m);
  });
});

describe('a roman glyph touching the formula after it', () => {
  it('takes an upright Delta read as the increment sign into the formula it starts', async () => {
    // Arrange: TeX's `$\\Delta T_{\\rm AGN}$`: the Delta in CMR10 (code 0x01), which its
    // ToUnicode map gives as U+2206, in one run with the words before it; T in CMMI10.
    const text = 'each event leads to a change of ';
    const x = 20 + (await widthOf(text, 10));
    const page = await texPage(
      [
        { text: `${text}\u0001`, font: 'CMR10', size: 10, x: 20, y: 100 },
        { text: 'T', font: 'CMMI10', size: 10, x: x + 8.3, y: 100 },
        { text: 'AGN', font: 'CMR7', size: 7, x: x + 14.1, y: 98.5 },
        { text: ' in the gas.', font: 'CMR10', size: 10, x: x + 28, y: 100 },
      ],
      [],
      { CMR10: { 1: '\u2206' } },
    );
    // Act
    const { markdown } = layoutPage(page, buildLayoutProfile([page]));
    // Assert
    expect(markdown).toBe('each event leads to a change of $\\Delta T_{\\text{AGN}}$ in the gas.');
  });

  it('reads an upright Delta, a name in sans serif and a relation as one formula', async () => {
    // Arrange: TeX's `$\\Delta\\mathsf{EI}>0$`: the Delta in CMR10 (U+2206 by its ToUnicode
    // map) ending a run of words, EI in CMSS10 with the word space the reader finds after it
    // before the relation in CMMI10 (code 0x3E), and 0 in CMR10 with the words after it.
    const text = 'until the value is smaller than some ';
    const x = 20 + (await widthOf(text, 10));
    const page = await texPage(
      [
        { text: `${text}\u0001`, font: 'CMR10', size: 10, x: 20, y: 100 },
        { text: 'EI', font: 'CMSS10', size: 10, x: x + 8.3, y: 100 },
        { text: '>', font: 'CMMI10', size: 10, x: x + 23, y: 100 },
        { text: '0, i.e. never.', font: 'CMR10', size: 10, x: x + 34, y: 100 },
      ],
      [],
      { CMR10: { 1: '\u2206' } },
    );
    // Act
    const { markdown } = layoutPage(page, buildLayoutProfile([page]));
    // Assert
    expect(markdown).toBe(
      'until the value is smaller than some $\\Delta\\mathsf{EI}>0$, i.e. never.',
    );
  });

  it('takes a number touching a letter in math italic into its formula (`$1\\sigma$`)', async () => {
    // Arrange: `the $1\\sigma$ interval` typed as `the 1$\\sigma$ interval` or set so: the 1
    // in CMR10 ends the run of words before it, touching the sigma in CMMI10.
    const bytes = await texPdf(
      await line(72, 700, [
        ['CMR10', 'The shaded band is the 1'],
        ['CMMI10', 's'],
        ['CMR10', ' confidence interval of the fit.'],
      ]),
    );
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe('The shaded band is the $1s$ confidence interval of the fit.');
  });
});

describe('formulas one after the other', () => {
  it('reads two formulas a word space apart as two formulas ($L_X-M_{200}$ $L_X-SFR$)', async () => {
    // Arrange: TeX's `$L_{\\rm X}-M_{200}$ $L_{\\rm X}-SFR$`: letters in CMMI10, the subscripts
    // in CMR7, the minus signs in CMSY10 (code 0x00) with the medium space around them, and a
    // word space (4 pt) between the 200 and the second L.
    const text = 'The scatter in the ';
    const glyphs: Glyphs[] = [{ text, font: 'CMR10', size: 10, x: 20, y: 100 }];
    let x = 20 + (await widthOf(text, 10));
    const put = async (font: string, t: string, after: number, size = 10, y = 100) => {
      glyphs.push({ text: t, font, size, x, y });
      x += (font === 'CMSY10' ? 7.8 : await widthOf(t, size)) + after;
    };
    for (const [i, last] of [
      ['M', '200'],
      ['SFR', ''],
    ] as const) {
      await put('CMMI10', 'L', 0);
      await put('CMR7', 'X', 2.2, 7, 98.5);
      await put('CMSY10', '\u0000', 2.2);
      await put('CMMI10', i, 0);
      if (last !== '') await put('CMR7', last, 4, 7, 98.5);
    }
    glyphs.push({ text: ' was small.', font: 'CMR10', size: 10, x, y: 100 });
    const page = await texPage(glyphs);
    // Act
    const { markdown } = layoutPage(page, buildLayoutProfile([page]));
    // Assert
    expect(markdown).toBe(
      'The scatter in the $L_{\\textrm{X}}-M_{200}$ $L_{\\textrm{X}}-SFR$ was small.',
    );
  });
});

describe('powers of ten', () => {
  it('reads a power of ten set in roman fonts as a formula ($10^6$)', async () => {
    // Arrange: TeX's `$10^6$ K`: 10 in CMR10 at the end of a run of words, 6 in CMR8 raised
    // 4 pt, touching it; no glyph on its line is a math font's (the next line's `n` is). Then
    // a footnote mark in CMR8 after a word, which stays a superscript of the text.
    const bytes = await texPdf([
      ...(await line(72, 700, [
        ['CMR10', 'The halo would have a temperature of 10'],
        ['CMR8', '6', 8, 4],
        ['CMR10', ' K, as Spitzer suggested'],
        ['CMR8', '2', 8, 4],
        ['CMR10', ', and'],
      ])),
      ...(await line(72, 686, [
        ['CMR10', 'a density '],
        ['CMMI10', 'n'],
        ['CMR10', ' that is low.'],
      ])),
    ]);
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe(
      'The halo would have a temperature of $10^{6}$ K, as Spitzer suggested<sup>2</sup>, and ' +
        'a density $n$ that is low.',
    );
  });
});

describe('units after a quantity', () => {
  /**
   * The Markdown of one line of glyphs set one after the other from x = 20 on baseline 100 (a
   * raise of `shift` points); a character code of CMSY (no ToUnicode map) is 6 points wide.
   */
  const markdownOfLine = async (
    pieces: readonly [font: string, text: string, size?: number, shift?: number][],
  ): Promise<string> => {
    const glyphs: Glyphs[] = [];
    let x = 20;
    for (const [font, text, size = 10, shift = 0] of pieces) {
      glyphs.push({ text, font, size, x, y: 100 + shift });
      x += font.startsWith('CMSY') ? 6 * (size / 10) : await widthOf(text, size);
    }
    const page = await texPage(glyphs);
    return layoutPage(page, buildLayoutProfile([page])).markdown;
  };

  it('takes a unit with an exponent into the formula of the quantity before it', async () => {
    // Arrange: TeX's `$5\\times10^{-4}$ cm$^{-3}$`: the minus signs in CMSY7 (code 0), raised.
    const pieces: [string, string, number?, number?][] = [
      ['CMR10', 'The density is 5 '],
      ['CMSY10', '\u0002'],
      ['CMR10', ' 10'],
      ['CMSY7', '\u0000', 7, 3.6],
      ['CMR7', '4', 7, 3.6],
      ['CMR10', ' cm'],
      ['CMSY7', '\u0000', 7, 3.6],
      ['CMR7', '3', 7, 3.6],
      ['CMR10', '. The gas is hot.'],
    ];
    // Act
    const markdown = await markdownOfLine(pieces);
    // Assert
    expect(markdown).toBe('The density is $5\\times 10^{-4}\\ \\mathrm{cm^{-3}}$. The gas is hot.');
  });

  it('takes units of two words, the last carrying the exponent, into the formula', async () => {
    // Arrange: `$\\sim6\\times10^{40}$ erg s$^{-1}$`, `erg s` in one run of CMR10.
    const pieces: [string, string, number?, number?][] = [
      ['CMR10', 'It has a luminosity of '],
      ['CMSY10', '\u0018'],
      ['CMR10', ' 6 '],
      ['CMSY10', '\u0002'],
      ['CMR10', ' 10'],
      ['CMR7', '40', 7, 3.6],
      ['CMR10', ' erg s'],
      ['CMSY7', '\u0000', 7, 3.6],
      ['CMR7', '1', 7, 3.6],
      ['CMR10', ' beyond the disk.'],
    ];
    // Act
    const markdown = await markdownOfLine(pieces);
    // Assert
    expect(markdown).toBe(
      'It has a luminosity of $\\sim 6\\times 10^{40}\\ \\mathrm{erg\\ s^{-1}}$ beyond the disk.',
    );
  });

  it('reads a number set in text and the units after it as one formula', async () => {
    // Arrange: `100-1000 M$_\\odot$ yr$^{-1}$`: the number in the run of the words before it.
    const pieces: [string, string, number?, number?][] = [
      ['CMR10', 'The cooling rate is 100-1000 M'],
      ['CMSY7', '\u000c', 7, -1.5],
      ['CMR10', ' yr'],
      ['CMSY7', '\u0000', 7, 3.6],
      ['CMR7', '1', 7, 3.6],
      ['CMR10', '. This is high.'],
    ];
    // Act
    const markdown = await markdownOfLine(pieces);
    // Assert
    expect(markdown).toBe(
      'The cooling rate is $100-1000\\ \\mathrm{M_{\\odot}\\ yr^{-1}}$. This is high.',
    );
  });

  it('leaves a footnote mark in a math font after a number and a word to the text', async () => {
    // Arrange: `$\\sim 2$ yr$^{*}$`, the footnote mark TeX's asterisk of CMSY7 (code 3), raised.
    const pieces: [string, string, number?, number?][] = [
      ['CMR10', 'The flare lasts '],
      ['CMSY10', '\u0018'],
      ['CMR10', ' 2 yr'],
      ['CMSY7', '\u0003', 7, 3.6],
      ['CMR10', ' in total.'],
    ];
    // Act
    const markdown = await markdownOfLine(pieces);
    // Assert
    expect(markdown).toBe('The flare lasts $\\sim 2$ yr$^{\\ast}$ in total.');
  });

  it('leaves words of prose after a formula, and units without a script, as text', async () => {
    // Arrange: `$\\sim60$ kpc and the density in cm$^{-3}$`: `kpc` carries no script, and the
    // words before `cm` are prose.
    const pieces: [string, string, number?, number?][] = [
      ['CMR10', 'The gas reaches '],
      ['CMSY10', '\u0018'],
      ['CMR10', ' 60 kpc and the density in cm'],
      ['CMSY7', '\u0000', 7, 3.6],
      ['CMR7', '3', 7, 3.6],
      ['CMR10', ' is low.'],
    ];
    // Act
    const markdown = await markdownOfLine(pieces);
    // Assert
    expect(markdown).toBe('The gas reaches $\\sim 60$ kpc and the density in cm$^{-3}$ is low.');
  });
});
