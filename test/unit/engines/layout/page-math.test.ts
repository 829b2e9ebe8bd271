import { afterEach, describe, expect, it, vi } from 'vitest';
import { scorePage } from '../../../../functions/core/domain/page-scores.js';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import { katexParses } from '../../../../functions/engines/math/katex-check.js';
import { layOutTextLayer } from '../../../../functions/engines/pdf/local-text-provider.js';
import { pageStructure } from '../../../../functions/engines/structure/page-structure.js';
import { extracted, line, texPdf, widthOf } from '../../../support/tex-pdf.js';

/** KaTeX, or a KaTeX that refuses everything (to see what a refused formula becomes). */
const katex = vi.hoisted(() => ({ refuse: false }));
vi.mock('../../../../functions/engines/math/katex-check.js', async (original) => {
  const real = await original<typeof import('../../../../functions/engines/math/katex-check.js')>();
  return {
    katexParses: (latex: string, display?: boolean) =>
      !katex.refuse && real.katexParses(latex, display),
  };
});

afterEach(() => {
  katex.refuse = false;
});

/** A paragraph, a numbered display equation `x = a + b (3)`, and the paragraph going on. */
async function displayPage(closing = ''): Promise<Uint8Array> {
  return texPdf([
    ...(await line(72, 700, [
      ['CMR10', 'We write the relation between the three lengths of the sides as'],
    ])),
    ...(await line(270, 676, [
      ['CMMI10', 'x'],
      ['CMR10', ' = '],
      ['CMMI10', 'a'],
      ['CMR10', ' + '],
      ['CMMI10', 'b'],
      ...(closing === '' ? [] : [['CMR10', closing] as [string, string]]),
    ])),
    ['CMR10', '(3)', 525, 676, 10],
    ...(await line(72, 652, [['CMR10', 'where each of the lengths is measured along one side.']])),
  ]);
}

/** A paragraph whose second line holds the inline formula `x_t`. */
async function inlinePage(): Promise<Uint8Array> {
  return texPdf([
    ...(await line(72, 700, [
      ['CMR10', 'The model describes how the hidden state of the system moves'],
    ])),
    ...(await line(72, 688, [
      ['CMR10', 'in time: the state '],
      ['CMMI10', 'x'],
      ['CMMI7', 't', 7, -1.5],
      ['CMR10', ' follows the model at every step of the chain.'],
    ])),
  ]);
}

const markdownOf = async (bytes: Uint8Array) => {
  const page = (await extracted(bytes)).text;
  return layoutPage(page, buildLayoutProfile([page]));
};

describe('mathematics in the page Markdown', () => {
  it('writes a display equation as its own $$ block, its number after it', async () => {
    // Act
    const { markdown } = await markdownOf(await displayPage());
    // Assert
    expect(markdown).toBe(
      [
        'We write the relation between the three lengths of the sides as',
        '$$x=a+b$$ (3)',
        'where each of the lengths is measured along one side.',
      ].join('\n\n'),
    );
  });

  it('keeps the comma closing a display equation inside it, as LaTeX sources do', async () => {
    // Act
    const { markdown } = await markdownOf(await displayPage(','));
    // Assert
    expect(markdown).toContain('\n\n$$x=a+b,$$ (3)\n\n');
  });

  it('writes inline mathematics as $…$ inside its paragraph, scripts included', async () => {
    // Act
    const { markdown } = await markdownOf(await inlinePage());
    // Assert
    expect(markdown).toBe(
      'The model describes how the hidden state of the system moves in time: the state ' +
        '$x_{t}$ follows the model at every step of the chain.',
    );
  });

  it('grounds each formula with the label formula and its box', async () => {
    // Act
    const display = await markdownOf(await displayPage());
    const inline = await markdownOf(await inlinePage());
    // Assert: at 144 DPI, x = a + b sits from x = 270 pt (540 px) on the baseline at 116 pt
    // from the top (232 px); x_t from 72 + width('in time: the state ') pt.
    const equation = display.elements.filter((e) => e.label === 'formula');
    expect(equation).toHaveLength(1);
    expect(equation[0]?.text).toContain('x');
    expect(equation[0]?.bbox.x).toBeCloseTo(540, -1);
    expect(equation[0]?.bbox.y).toBeGreaterThan(205);
    expect((equation[0]?.bbox.y ?? 0) + (equation[0]?.bbox.h ?? 0)).toBeLessThan(245);
    const formulas = inline.elements.filter((e) => e.label === 'formula');
    expect(formulas.map((e) => e.text)).toEqual(['x_{t}']);
    const left = 2 * (72 + (await widthOf('in time: the state ', 10)));
    expect(formulas[0]?.bbox.x).toBeCloseTo(left, -1);
  });

  it('writes a formula KaTeX refuses as its text, and lowers the layout score', async () => {
    // Arrange
    const pages = [await extracted(await displayPage()), await extracted(await inlinePage())];
    const kept = pages.map((p) => layOutTextLayer(p, 144, null));
    katex.refuse = true;
    // Act
    const refused = pages.map((p) => layOutTextLayer(p, 144, null));
    // Assert
    expect(refused[0]?.markdown).toMatch(/x = a \+ b/);
    // As the line read before formulas were (the script's gap is under a word space).
    expect(refused[1]?.markdown).toMatch(/the state x<sub>t<\/sub> ?follows/);
    pages.forEach((page, i) => {
      const before = kept[i];
      const after = refused[i];
      if (!before || !after) throw new Error('no layout');
      expect(after.markdown).not.toContain('$');
      expect(after.elements.some((e) => e.label === 'formula')).toBe(false);
      const score = (r: typeof before) => scorePage(r, page.stats.rawText).layout_score;
      expect(score(after)).toBeLessThan(score(before) - 0.1);
    });
  });

  it('gives structured extraction the equations of the page Markdown', async () => {
    // Arrange
    const page = (await extracted(await displayPage())).text;
    // Act
    const { regions } = pageStructure(page, 'text_layer');
    const { elements } = layoutPage(page, buildLayoutProfile([page]));
    // Assert
    const equations = regions.filter((r) => r.kind === 'equation');
    expect(equations).toHaveLength(1);
    const latex = equations[0]?.kind === 'equation' ? equations[0].latex : '';
    expect(latex).toMatch(/\\tag\{3\}$/);
    const formula = elements.find((e) => e.label === 'formula');
    expect(equations[0]?.bbox[0]).toBeCloseTo(formula?.bbox.x ?? 0, 0);
  });
});

describe('katexParses', () => {
  it('accepts LaTeX KaTeX renders and refuses what it cannot parse', () => {
    expect(katexParses('x_{t}\\in\\mathcal{X}')).toBe(true);
    expect(katexParses('\\frac{a}{b}', true)).toBe(true);
    expect(katexParses('x^')).toBe(false);
    expect(katexParses('\\undefinedcommand{x}')).toBe(false);
    expect(katexParses('')).toBe(false);
  });
});
