import { describe, expect, it } from 'vitest';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { PageText, TextRun } from '../../../../functions/engines/layout/types.js';
import { page, run } from './page-fixtures.js';

/** Ten lines of body text from x 56 to 556 (centre 306), baselines 100 to 388. */
const body = (): TextRun[] =>
  Array.from({ length: 10 }, (_, i) =>
    run(
      `Line ${String(i)} of the body text runs across the whole measure of the page.`,
      56,
      100 + i * 32,
    ),
  ).map((r) => ({ ...r, w: 500 }));

const layout = (p: PageText) => layoutPage(p, buildLayoutProfile([p]));

describe('findFurniture', () => {
  it('drops a lone page number centred under a page whose text ends halfway down', () => {
    // Arrange: the text ends at 388; the number stands at 480 (61% down the page).
    const runs = [...body(), run('62', 301, 480)];
    // Act
    const { markdown, elements } = layout(page(runs));
    // Assert
    expect(markdown).not.toMatch(/\b62\b/);
    expect(elements.find((e) => e.text === '62')?.elementType).toBe('page_number');
  });

  it('keeps a number that closes the text at the margin, or right under the last line', () => {
    // Arrange: one page ends with a number set at the left margin, the other with a centred
    // number on the next line (a total, a count).
    const atMargin = [...body(), run('62', 56, 480)];
    const close = [...body(), run('62', 301, 402)];
    // Act
    const marginMd = layout(page(atMargin)).markdown;
    const closeMd = layout(page(close)).markdown;
    // Assert
    expect(marginMd).toMatch(/\b62\b/);
    expect(closeMd).toMatch(/\b62\b/);
  });

  it('drops a short running title with its page number set apart at the foot of the page', () => {
    // Arrange: an odd-page footer whose chapter title does not repeat on most pages.
    const runs = [
      ...body(),
      run('Chapter 2. Roles and separation of duties', 320, 760),
      run('11', 546, 760),
    ];
    // Act
    const { markdown, elements } = layout(page(runs));
    // Assert
    expect(markdown).not.toMatch(/Chapter 2|\b11\b/);
    expect(elements.find((e) => e.label === 'footer')?.text).toMatch(/Chapter 2.*11/);
  });

  it('keeps a last row ending in a number when it follows the text closely', () => {
    // Arrange: a total row on the line after the body's last line, in the bottom band.
    const runs = [
      ...body().map((r) => ({ ...r, baseline: r.baseline + 340, y: r.y + 340 })),
      run('Total of the accounts', 56, 742),
      run('11', 181, 742),
    ];
    // Act
    const { markdown } = layout(page(runs));
    // Assert
    expect(markdown).toMatch(/Total of the accounts/);
    expect(markdown).toMatch(/\b11\b/);
  });
});
