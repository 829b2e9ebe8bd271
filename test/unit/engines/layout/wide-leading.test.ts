import { describe, expect, it } from 'vitest';
import { markdownOf, run } from './page-fixtures.js';

/** Right edge (px) of a justified line: every full line is set to this measure. */
const MEASURE = 522;

/** Lines down the page from `baseline`, `pitch` px apart: [text, x, full (set to the measure)]. */
const stack = (lines: readonly [string, number, boolean?][], baseline: number, pitch: number) =>
  lines.map(([text, x, full = true], i) =>
    run(text, x, baseline + i * pitch, full ? { w: MEASURE - x } : {}),
  );

describe('text set with wide leading (double-spaced manuscripts)', () => {
  it('keeps a paragraph whole when a line starts with a capital or a bracket', () => {
    // Arrange: two paragraphs at 24 px pitch (2.4 em), the second opening with an indent; the
    // second line of the first starts with `[2012].`, its third with a capital.
    const runs = stack(
      [
        ['To make use of this in the filter, we rewrite the model as in Jasra et al.', 72],
        ['[2012]. The observed data is perturbed by noise drawn from a density with', 72],
        ['Gaussian tails, and the resulting filter gives estimates of the posterior', 72],
        ['that can be used in the optimisation.', 72, false],
        ['From these two steps, we can now rewrite the model in a second form', 86],
        ['which does not require the density of the observations at any point.', 72],
        ['This ends the section.', 72, false],
      ],
      100,
      24,
    );
    // Act
    const paragraphs = markdownOf(runs).split('\n\n');
    // Assert
    expect(paragraphs).toHaveLength(2);
    expect(paragraphs[0]).toMatch(/as in Jasra et al\. \[2012\]\. The observed data/);
    expect(paragraphs[0]).toMatch(/density with Gaussian tails/);
    expect(paragraphs[0]).toMatch(/in the optimisation\.$/);
    expect(paragraphs[1]).toMatch(/^From these two steps.*This ends the section\.$/);
  });

  it('takes the pitch of the text, not of a caption set tighter above it', () => {
    // Arrange: a three-line caption at 12 px leading, then a paragraph at 24 px pitch whose
    // second line starts with a capital.
    const runs = [
      ...stack(
        [
          ['Figure 7: The log-returns and the estimated values of the risk for an equally', 72],
          ['weighted portfolio of stocks using the two models with the copula. The dashed', 72],
          ['line shows the division of estimation and validation data.', 72, false],
        ],
        100,
        12,
      ),
      ...stack(
        [
          ['We offer a final numerical example to illustrate that the method scales to', 72],
          ['Kenneth French data: thirty industrial portfolios of monthly log-returns over', 72],
          ['ninety years.', 72, false],
        ],
        160,
        24,
      ),
    ];
    // Act
    const paragraphs = markdownOf(runs).split('\n\n');
    // Assert
    expect(paragraphs).toHaveLength(2);
    expect(paragraphs[1]).toMatch(/scales to Kenneth French data/);
  });

  it('keeps apart the entries of a list set tighter within an entry than between entries', () => {
    // Arrange: references 24 px apart, the lines of one entry 12 px apart; every first line is
    // as long as the longest.
    const runs = [
      ...stack(
        [
          ['Anderson, M. E., & Bregman, J. N. 2011, ApJ, 737, 22', 72],
          ['Baldi, A., Raymond, J. C., Fabbiano, G., et al. 2006, ApJS, 162, 113', 72],
          ['Benson, A. J., Bower, R. G., Frenk, C. S., & White, S. D. M. 2000', 72],
        ],
        100,
        24,
      ),
      ...stack(
        [
          ['Churazov, E., Brüggen, M., Kaiser, C. R., Böhringer, H., & Forman, W.', 72],
          ['2001, ApJ, 554, 261', 86, false],
        ],
        172,
        12,
      ),
      ...stack(
        [
          ['Cowie, L. L., & Binney, J. 1977, ApJ, 215, 723, and a long title here', 72],
          ['Crain, R. A., McCarthy, I. G., Frenk, C. S., Theuns, T., & Schaye, J.', 72],
        ],
        208,
        24,
      ),
    ];
    // Act
    const paragraphs = markdownOf(runs).split('\n\n');
    // Assert
    expect(paragraphs.map((p) => p.slice(0, 6))).toEqual([
      'Anders',
      'Baldi,',
      'Benson',
      'Churaz',
      'Cowie,',
      'Crain,',
    ]);
    expect(paragraphs[3]).toMatch(/Forman, W\.\s+2001, ApJ, 554, 261$/);
  });

  it('keeps apart lines under a short one, whatever the pitch', () => {
    // Arrange: three single-line entries at 24 px pitch, set to their own lengths.
    const runs = stack(
      [
        ['Wijers, N. A., Schaye, J., & Oppenheimer, B. D. 2020, MNRAS, 498, 574', 72, false],
        ['Yao, Y., Wang, Q. D., Penton, S. V., et al. 2010, ApJ, 716, 1514', 72, false],
        ['White, S. D. M., & Rees, M. J. 1978, MNRAS, 183, 341', 72, false],
      ],
      100,
      24,
    );
    // Act
    const paragraphs = markdownOf(runs).split('\n\n');
    // Assert
    expect(paragraphs).toHaveLength(3);
  });
});

describe('a line of a paragraph opening with an enumerator', () => {
  it('goes on with the paragraph when the line above runs on mid-sentence', () => {
    // Arrange: an equation number wrapped to the start of the second line.
    const runs = stack(
      [
        ['The aim is to construct a surrogate function of the posterior that mimics', 72],
        ['(2) in analogue with earlier work. The resulting surrogate is smooth and', 72],
        ['cheap to evaluate.', 72, false],
      ],
      100,
      12,
    );
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).not.toMatch(/^- /m);
    expect(markdown.split('\n\n')).toHaveLength(1);
    expect(markdown).toMatch(/that mimics \(2\) in analogue/);
  });

  it('opens a list item after a line that closes with a colon', () => {
    // Arrange
    const runs = stack(
      [
        ['The two observables that depend most on the feedback model are these ones:', 72],
        ['(1) the X-ray luminosity of the medium around the galaxy at all radii and', 72],
        ['(2) the X-ray gas density profile, or its entropy profile, out to the halo', 72],
      ],
      100,
      12,
    );
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown.match(/^- \(\d\)/gm)).toHaveLength(2);
  });
});
