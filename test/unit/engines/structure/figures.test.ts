import { describe, expect, it } from 'vitest';
import type { TextBlock } from '../../../../functions/engines/layout/layout-page.js';
import { groupFigures, matchCaptions } from '../../../../functions/engines/structure/figures.js';

const figure = (x: number, y: number, w: number, h: number) => ({ x, y, w, h });
const caption = (text: string, x0: number, y0: number, x1 = x0 + 200, y1 = y0 + 12): TextBlock => ({
  text,
  x0,
  y0,
  x1,
  y1,
});

describe('matchCaptions', () => {
  it('gives a figure the "Figure" caption right below it', () => {
    // Act
    const captions = matchCaptions(
      [figure(100, 100, 300, 200)],
      [caption('Figure 1: This is an example image.', 150, 310)],
      792,
    );
    // Assert
    expect(captions).toEqual(['Figure 1: This is an example image.']);
  });

  it('takes a caption set above the figure, and "Fig." captions', () => {
    // Act
    const captions = matchCaptions(
      [figure(100, 300, 300, 200)],
      [caption('Fig. 3. Set above its figure.', 120, 280)],
      792,
    );
    // Assert
    expect(captions).toEqual(['Fig. 3. Set above its figure.']);
  });

  it('pairs the closest caption with each figure, each caption serving one figure', () => {
    // Arrange: two figures one above the other, each caption right under its own.
    const figures = [figure(100, 100, 300, 150), figure(100, 400, 300, 150)];
    const captions = [caption('Figure 2: lower', 100, 560), caption('Figure 1: upper', 100, 260)];
    // Act
    const matched = matchCaptions(figures, captions, 792);
    // Assert
    expect(matched).toEqual(['Figure 1: upper', 'Figure 2: lower']);
  });

  it('prefers a "Figure" caption over a "Table" caption at a similar distance', () => {
    // Arrange: a table caption just above, the figure caption a little farther below (4 px against 6 px).
    const captions = [
      caption('Table 2. Results of the next table.', 100, 84),
      caption('Figure 4: The chart.', 100, 306),
    ];
    // Act
    const matched = matchCaptions([figure(100, 100, 300, 200)], captions, 792);
    // Assert
    expect(matched).toEqual(['Figure 4: The chart.']);
  });

  it('leaves a figure without a caption when none is near, beside it or named so', () => {
    // Arrange
    const captions = [
      caption('Figure 9: far below', 100, 700),
      caption('Figure 8: in the other column', 420, 310),
      caption('This paragraph is not a caption.', 100, 305),
    ];
    // Act
    const matched = matchCaptions([figure(100, 100, 300, 100)], captions, 792);
    // Assert
    expect(matched).toEqual(['']);
  });
});

describe('groupFigures', () => {
  it('joins images drawn as touching strips or overlapping parts, and keeps others apart', () => {
    // Arrange: three strips of one picture, an overlapping inset, and a separate image.
    const images = [
      figure(85, 57, 109, 31),
      figure(85, 88, 109, 31),
      figure(85, 119, 109, 31),
      figure(150, 140, 60, 40),
      figure(300, 400, 100, 100),
    ];
    // Act
    const figures = groupFigures(images, 2);
    // Assert
    expect(figures).toEqual([figure(85, 57, 125, 123), figure(300, 400, 100, 100)]);
  });
});
