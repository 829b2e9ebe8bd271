import { describe, expect, it } from 'vitest';
import { joinDropCaps } from '../../../../functions/engines/layout/drop-caps.js';
import { isBrokenWord } from '../../../../functions/engines/layout/hyphenation.js';
import { joinLines, styledText } from '../../../../functions/engines/layout/inline.js';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { TextRun } from '../../../../functions/engines/layout/types.js';
import { pdfiumMarkdownOf } from '../../../support/markdown-of.js';
import { line, texPdf } from '../../../support/tex-pdf.js';
import { CHAR, page, run } from './page-fixtures.js';

const layout = (runs: TextRun[]): string => {
  const p = page(runs);
  return layoutPage(p, buildLayoutProfile([p])).markdown;
};

/** Body lines of a paragraph at x = 50 from baseline 200, 12 px apart. */
const paragraph = (lines: string[], top = 200): TextRun[] =>
  lines.map((text, i) => run(text, 50, top + i * 12));

describe('superscripts and subscripts', () => {
  it('keeps a footnote marker raised above its line in the line, after its word', () => {
    // Arrange: the marker's baseline is 4 px (0.4 em) higher than the line's, at 6 px size;
    // read by baseline, it comes before its line.
    const before = 'adults to consume tobacco products';
    const runs = [
      ...paragraph(['Tobacco industry posturing about its responsibility for informed']),
      run(before, 50, 212),
      run('1', 50 + before.length * CHAR, 208, { fontSize: 6, w: 3 }),
      run('(translation: we will build alliances)', 58 + before.length * CHAR, 212),
      ...paragraph(['with others who want to profit from tobacco use and so on.'], 224),
    ];
    // Act
    const markdown = layout(runs);
    // Assert
    expect(markdown).toContain('tobacco products<sup>1</sup> (translation:');
    expect(markdown.split('\n\n')).toHaveLength(1);
  });

  it('writes exponents and indices as <sup> and <sub> in the line', () => {
    // Arrange
    const runs = [
      run('the cost grows as n', 50, 100),
      run('2', 145, 96, { fontSize: 7, w: 3.5 }),
      run('and x', 152, 100),
      run('t', 177, 102, { fontSize: 7, w: 3.5 }),
      run('is the state', 184, 100),
    ];
    // Act
    const text = styledText(runs, false, false);
    // Assert
    expect(text).toBe('the cost grows as n<sup>2</sup> and x<sub>t</sub> is the state');
  });

  it('writes the pieces of one index set one after the other as one <sub>', () => {
    const runs = [
      run('x', 50, 100),
      run('t', 55, 102, { fontSize: 7, w: 3.5 }),
      run('−', 58.5, 102, { fontSize: 7, w: 3.5 }),
      run('1', 62, 102, { fontSize: 7, w: 3.5 }),
      run('is the state', 70, 100),
    ];
    expect(styledText(runs, false, false)).toBe('x<sub>t−1</sub> is the state');
  });
});

describe('a superscript with a space on either side', () => {
  it('keeps the space after a footnote mark that the text layer gives with the mark', async () => {
    // Arrange: `suggested²` then ` by ...`: the reader gives the space after the CMR8 mark.
    const bytes = await texPdf([
      ...(await line(72, 700, [
        ['CMR10', 'The halo is hot as Spitzer suggested'],
        ['CMR8', '2', 8, 4],
        ['CMR10', ' by a long argument that we follow here'],
      ])),
      ...(await line(72, 686, [['CMR10', 'and a density that is low in the end.']])),
    ]);
    // Act
    const markdown = await pdfiumMarkdownOf(bytes);
    // Assert
    expect(markdown).toBe(
      'The halo is hot as Spitzer suggested<sup>2</sup> by a long argument that we follow here ' +
        'and a density that is low in the end.',
    );
  });
});

describe('drop caps', () => {
  it('joins a large initial spanning three lines to the first word of its paragraph', () => {
    // Arrange: `O` at 36 px beside three lines, whose third shares its baseline.
    const cap = run('O', 50, 124, { fontSize: 36, y: 98, h: 28, w: 26 });
    const runs = [
      run('Left column text that runs on and on here', 300, 124),
      cap,
      run('ver the past three decades pressure', 80, 100),
      run('from non-governmental organisations', 80, 112),
      run('and the United Nations has required', 80, 124),
      run('corporations to redress their impact on society.', 50, 136),
    ];
    // Act
    const joined = joinDropCaps(runs);
    const markdown = layout(runs);
    // Assert
    expect(joined).toHaveLength(runs.length - 1);
    expect(markdown).toContain('Over the past three decades');
    expect(markdown).not.toMatch(/OUnited|O and the United/);
  });

  it('leaves a large letter alone when no lines stand beside it', () => {
    const runs = [run('A', 50, 140, { fontSize: 36, y: 112, h: 28, w: 26 }), run('text', 50, 160)];
    expect(joinDropCaps(runs)).toBe(runs);
  });
});

describe('hyphenation at line ends', () => {
  it('joins a word broken by hyphenation and keeps the hyphen of compounds', () => {
    expect(joinLines(['an exam-', 'ple of it'])).toBe('an example of it');
    expect(joinLines(['the algo-', 'rithm works'])).toBe('the algorithm works');
    expect(joinLines(['the out-of-', 'lab tests'])).toBe('the out-of-lab tests');
    expect(joinLines(['a low-', 'power chip'])).toBe('a low-power chip');
    expect(joinLines(['a state-of-the-', 'art model'])).toBe('a state-of-the-art model');
    expect(joinLines(['the GPU-', 'based method'])).toBe('the GPU-based method');
    expect(joinLines(['a non-', 'English text'])).toBe('a non-English text');
  });

  it("follows the document's own spelling of a compound", () => {
    expect(isBrokenWord('non', 'linear')).toBe(true);
    expect(isBrokenWord('non', 'linear', new Set(['non-linear']))).toBe(false);
    expect(joinLines(['a non-linear model; the non-', 'linear part'])).toBe(
      'a non-linear model; the non-linear part',
    );
  });

  it('joins a capitalised word broken at its hyphen when the document spells it whole', () => {
    expect(joinLines(['We call it ReAct. The Re-', 'Act agent stops.'])).toBe(
      'We call it ReAct. The ReAct agent stops.',
    );
    expect(joinLines(['Jean-', 'Paul wrote it.'])).toBe('Jean-Paul wrote it.');
  });
});

describe('emphasis across line breaks', () => {
  it('keeps one bold stretch across lines and a hyphenated word whole inside it', () => {
    // Arrange: an italic bold label, then bold text broken by hyphenation.
    const line1 = [
      run('Abstract', 50, 100, { bold: true, italic: true }),
      run('— This article describes an algo-', 90, 100, { bold: true }),
    ];
    const line2 = [run('rithm for tables', 50, 112, { bold: true }), run('and more.', 135, 112)];
    // Act
    const markdown = joinLines([styledText(line1, false, false), styledText(line2, false, false)]);
    // Assert
    expect(markdown).toBe(
      '***Abstract*** **— This article describes an algorithm for tables** and more.',
    );
  });
});

describe('URLs', () => {
  it('joins a URL broken at a line end without a space', () => {
    expect(
      joinLines(['see http://www.theage.com.au/articles/2004/', '1084646069771.html now']),
    ).toBe('see http://www.theage.com.au/articles/2004/1084646069771.html now');
    expect(joinLines(['at http://www.bat.com/204pp.', '2 Wroe D. Tobacco'])).toBe(
      'at http://www.bat.com/204pp. 2 Wroe D. Tobacco',
    );
  });

  it('does not set a URL line in a typewriter font as code', () => {
    // Arrange
    const mono = { monospace: true, fontName: 'CMTT10' };
    const runs = [
      ...paragraph(['The source code and data are available for download at']),
      run('https://github.com/compops/gpo-smc-abc/', 50, 212, mono),
      run('jane.doe@example.org', 50, 240, mono),
    ];
    // Act
    const markdown = layout(runs);
    // Assert
    expect(markdown).not.toContain('```');
    expect(markdown).toContain('https://github.com/compops/gpo-smc-abc/');
  });
});

describe('page numbers in running headers', () => {
  it('keeps a page number set apart from a running title out of the first paragraph', () => {
    // Arrange: the running header sits just below the top band.
    const runs = [
      run('Optimized Table Tokenization for Tables', 150, 100, { fontSize: 9 }),
      run('9', 500, 100, { fontSize: 9, w: 4.5 }),
      ...paragraph(
        ['order to compute the TED score. Inference timing results', 'were obtained.'],
        125,
      ),
    ];
    // Act
    const markdown = layout(runs);
    // Assert
    expect(markdown.startsWith('order to compute')).toBe(true);
  });

  it('takes a download stamp above a running header out of the body', () => {
    const runs = [
      run('Downloaded from http://example.org/ on July 12, 2017', 150, 20),
      run('Advocacy in Action', 50, 40),
      run('447', 540, 40, { w: 15 }),
      ...paragraph(['stakeholders has occurred in other nations, with groups', 'and more.'], 80),
    ];
    const markdown = layout(runs);
    expect(markdown.startsWith('stakeholders has occurred')).toBe(true);
    expect(markdown).not.toContain('Downloaded');
  });
});
