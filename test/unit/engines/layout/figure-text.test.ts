import { describe, expect, it } from 'vitest';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type {
  PageText,
  Rect,
  Segment,
  TextRun,
} from '../../../../functions/engines/layout/types.js';
import { CHAR, SIZE, page, run } from './page-fixtures.js';

/** A label set up the page (rotated 90°) with its box's bottom at `bottom`. */
const upward = (text: string, x: number, bottom: number): TextRun => ({
  ...run(text, x, bottom),
  y: bottom - text.length * CHAR,
  w: SIZE,
  h: text.length * CHAR,
  rotation: 90,
});

/** A plot's vertical axis at x 200 from y 220 to 420, with five ticks to its left. */
const axis = (): Segment[] => [
  { x1: 200, y1: 220, x2: 200, y2: 420 },
  ...[220, 270, 320, 370, 420].map((y) => ({ x1: 196, y1: y, x2: 200, y2: y })),
];

/** A paragraph of body text above the picture, baselines 80 to 140. */
const body = (): TextRun[] =>
  Array.from({ length: 6 }, (_, i) =>
    run(
      `Line ${String(i)} of the body text runs across most of the page measure.`,
      56,
      80 + i * 12,
    ),
  );

/** A screenshot from y 200 to 500, its caption set inside its bottom edge. */
const picture: Rect = { x: 56, y: 200, w: 480, h: 300 };

const layout = (p: PageText) => layoutPage(p, buildLayoutProfile([p]));

describe('text drawn over a figure', () => {
  it('is the figure entry’s text, kept out of the Markdown', () => {
    // Arrange: two labels on the picture.
    const runs = [...body(), run('Tightened nut', 120, 260), run('Keyway', 300, 400)];
    // Act
    const { markdown, elements } = layout(page(runs, { images: [picture] }));
    // Assert
    expect(markdown).not.toMatch(/Tightened|Keyway/);
    const figure = elements.find((e) => e.label === 'figure');
    expect(figure?.text).toBe('Tightened nut\nKeyway');
  });

  it('leaves a caption set inside the figure’s bottom edge in the Markdown', () => {
    // Arrange: the caption's baseline sits 3 px above the picture's bottom edge.
    const runs = [
      ...body(),
      run('Keyway', 300, 400),
      run('Figure 3-11 Selecting the EMPLOYEES table from System i Navigator', 56, 497),
    ];
    // Act
    const { markdown, elements } = layout(page(runs, { images: [picture] }));
    // Assert
    expect(markdown).toMatch(/Figure 3-11 Selecting the EMPLOYEES table from System i Navigator/);
    expect(elements.find((e) => e.label === 'figure')?.text).toBe('Keyway');
  });

  it('takes the rotated labels of a vector plot into a figure entry', () => {
    // Arrange: an axis title and a tick value set up the side of a drawn axis, and a plain
    // rotated note far from any drawing.
    const runs = [
      ...body(),
      upward('Sample Quantiles', 170, 360),
      upward('0.5', 186, 330),
      upward('Draft note', 120, 640),
    ];
    // Act
    const { markdown, elements } = layout(page(runs, { rules: axis() }));
    // Assert
    expect(markdown).not.toMatch(/Sample Quantiles|0\.5/);
    expect(markdown).toMatch(/Draft note/);
    const figure = elements.find((e) => e.label === 'figure');
    expect(figure?.text).toBe('Sample Quantiles\n0.5');
  });
});

describe('the labels of a plot drawn as vector graphics', () => {
  /** Axes from (200, 420) up to y 220 and right to x 460, five ticks on each, pointing out. */
  const axes = (ticks: boolean): Segment[] => [
    { x1: 200, y1: 220, x2: 200, y2: 420 },
    { x1: 200, y1: 420, x2: 460, y2: 420 },
    ...(ticks
      ? [0, 1, 2, 3, 4].flatMap((k) => [
          { x1: 196, y1: 220 + 50 * k, x2: 200, y2: 220 + 50 * k },
          { x1: 200 + 65 * k, y1: 420, x2: 200 + 65 * k, y2: 424 },
        ])
      : []),
  ];
  /** Tick values left of the y axis and under the x axis, an axis title, a legend entry. */
  const labels = (): TextRun[] => [
    ...[0, 1, 2, 3, 4].map((k) => run(`0.${String(8 - 2 * k)}`, 180, 224 + 50 * k)),
    run('0 100 200 300 400', 200, 436),
    run('no. log-posterior samples', 270, 450),
    run('estimate', 380, 240),
  ];
  const caption = () =>
    run('Figure 2: The estimate as the number of samples grows, with its error band.', 56, 480);

  it('are the figure entry’s text, kept out of the Markdown with the caption left in', () => {
    // Arrange
    const runs = [...body(), ...labels(), caption()];
    // Act
    const { markdown, elements } = layout(page(runs, { rules: axes(true) }));
    // Assert
    expect(markdown).not.toMatch(/0\.8|100 200|log-posterior|estimate\n/);
    expect(markdown).toMatch(/^Figure 2: The estimate/m);
    expect(markdown).toMatch(/Line 5 of the body text/);
    const figure = elements.find((e) => e.label === 'figure');
    expect(figure?.text.split('\n')).toEqual(
      expect.arrayContaining(['0.8', '0 100 200 300 400', 'no. log-posterior samples', 'estimate']),
    );
  });

  it('stay page text when the rules carry no tick marks (not a plot)', () => {
    // Arrange
    const runs = [...body(), ...labels(), caption()];
    // Act
    const { markdown } = layout(page(runs, { rules: axes(false) }));
    // Assert
    expect(markdown).toMatch(/no\. log-posterior samples/);
  });
});
