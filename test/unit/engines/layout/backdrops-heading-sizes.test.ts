import { describe, expect, it } from 'vitest';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { PageText } from '../../../../functions/engines/layout/types.js';
import { page, paragraph, run } from './page-fixtures.js';

const layout = (p: PageText) => layoutPage(p, buildLayoutProfile([p])).markdown;

describe('text over a backdrop image', () => {
  it('keeps a section title drawn on a shaded band', () => {
    // Arrange: the band is an image two lines high behind `1 Introduction`.
    const runs = [
      run('1', 60, 100, { fontSize: 13, bold: true }),
      run('Introduction', 80, 100, { fontSize: 13, bold: true }),
      ...paragraph(50, 130, 6),
    ];
    const band = { x: 50, y: 85, w: 240, h: 28 };
    // Act
    const markdown = layout(page(runs, { images: [band] }));
    // Assert
    expect(markdown).toMatch(/^## 1 Introduction\n\nLine 0/);
  });

  it('still reads the labels of a picture as part of the figure', () => {
    // Arrange
    const runs = [run('Nut case', 420, 460), ...paragraph(50, 100, 4)];
    const picture = { x: 400, y: 400, w: 190, h: 110 };
    // Act
    const markdown = layout(page(runs, { images: [picture] }));
    // Assert
    expect(markdown).not.toContain('Nut case');
  });
});

describe('buildLayoutProfile heading sizes', () => {
  it('leaves out sizes found on one page only, except the largest', () => {
    // Arrange: a cover with display sizes, then pages with 14 pt section titles.
    const cover = page([
      run('Big Title', 50, 100, { fontSize: 40 }),
      run('Cover slogan one', 50, 160, { fontSize: 30 }),
      ...paragraph(50, 200, 3),
    ]);
    const body = (n: number) =>
      page([run('1.1 Section', 50, 100, { fontSize: 14 }), ...paragraph(50, 130, 10)], {
        pageNumber: n,
      });
    // Act
    const profile = buildLayoutProfile([cover, body(2), body(3)]);
    // Assert
    expect(profile.headingSizes).toEqual([40, 14]);
  });
});
