import { describe, expect, it } from 'vitest';
import { joinLines } from '../../../../functions/engines/layout/inline.js';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import { extracted, line, texPdf } from '../../../support/tex-pdf.js';

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

  it('writes a raised script after a unit set in text as a superscript', async () => {
    // Arrange: `3 cm$^2$`, the exponent in a math font, raised.
    const bytes = await texPdf(
      await line(72, 700, [
        ['CMR10', 'Each cell covers an area of 3 cm'],
        ['CMMI7', '2', 7, 3.6],
        ['CMR10', ' on the detector.'],
      ]),
    );
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toBe('Each cell covers an area of 3 cm$^{2}$ on the detector.');
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
});

describe('inline formulas across a line break', () => {
  it('reads a formula broken after its relation at a line end as one formula', async () => {
    // Arrange: `$M_{500}=4\\times10^{12}$` set across two lines of a paragraph, the relation
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
        '$M_{500}= 4\\times10^{12}$ solar masses, a mass comparable with that of massive galaxies.',
    );
  });

  it('joins formulas at a line break only where the break falls at a relation or an operator', () => {
    expect(joinLines(['so that $x$', '$\\sim y$ holds'])).toBe('so that $x \\sim y$ holds');
    expect(joinLines(['the values $x$', '$y$ are given'])).toBe('the values $x$ $y$ are given');
    expect(joinLines(['it costs $5 = $', '$4 more'])).toBe('it costs $5 = $ $4 more');
  });
});
