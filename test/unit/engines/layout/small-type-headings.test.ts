import { describe, expect, it } from 'vitest';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import { page, paragraph, run } from './page-fixtures.js';

describe('a page set in much smaller type than the document', () => {
  it('reads a bold line larger than its own text as a heading', () => {
    // Arrange: the document's body is 10 px; the flyer page is set in 7 px with 9 px bold titles.
    const report = page(paragraph(72, 100, 40), { pageNumber: 1 });
    const small = { fontSize: 7 };
    const flyer = page(
      [
        run('We build confident, satisfied clients', 72, 100, { fontSize: 9, bold: true }),
        ...Array.from({ length: 4 }, (_, i) =>
          run(
            `No one else has the vast consulting experiences and skills ${i}`,
            72,
            108 + i * 9,
            small,
          ),
        ),
      ],
      { pageNumber: 2 },
    );
    const profile = buildLayoutProfile([report, flyer]);
    // Act
    const { markdown } = layoutPage(flyer, profile);
    // Assert
    expect(markdown).toMatch(/^#+ We build confident, satisfied clients$/m);
  });

  it('keeps a bold line at the size of the text of a page in body type a plain line', () => {
    // Arrange
    const report = page(paragraph(72, 100, 40), { pageNumber: 1 });
    const other = page(
      [
        run('We build confident, satisfied clients', 72, 100, { fontSize: 9, bold: true }),
        ...paragraph(72, 112, 4),
      ],
      { pageNumber: 2 },
    );
    const profile = buildLayoutProfile([report, other]);
    // Act
    const { markdown } = layoutPage(other, profile);
    // Assert
    expect(markdown).not.toMatch(/^#/m);
  });
});
