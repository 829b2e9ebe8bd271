import { describe, expect, it } from 'vitest';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { turnedAngle } from '../../../../functions/engines/layout/page-rotation.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { PageText, Rect, TextRun } from '../../../../functions/engines/layout/types.js';
import { page, paragraph, run } from './page-fixtures.js';

/**
 * A box of an upright page of `width` × `height` px as it lies on the image of that page turned
 * `angle` degrees counter-clockwise (90: the page's top edge runs up its left side).
 */
const onImage = (box: Rect, angle: number, width: number, height: number): Rect => {
  if (angle === 90) return { x: box.y, y: width - box.x - box.w, w: box.h, h: box.w };
  if (angle === 180)
    return { x: width - box.x - box.w, y: height - box.y - box.h, w: box.w, h: box.h };
  return { x: height - box.y - box.h, y: box.x, w: box.h, h: box.w };
};

/** The page turned `angle` degrees counter-clockwise, as a PDF with /Rotate shows it. */
const turned = (upright: PageText, angle: number): PageText => ({
  ...upright,
  width: angle === 180 ? upright.width : upright.height,
  height: angle === 180 ? upright.height : upright.width,
  runs: upright.runs.map((r): TextRun => {
    const box = onImage(r, angle, upright.width, upright.height);
    return { ...r, ...box, baseline: box.y + box.h, rotation: angle };
  }),
});

const layOut = (p: PageText) => layoutPage(p, buildLayoutProfile([p]));

/** A title, two paragraphs and a short list, upright. */
const sample = (): PageText =>
  page([
    run('Quarterly report', 72, 80, { fontSize: 18, bold: true }),
    ...paragraph(72, 120, 4, 'the revenue rose in the third quarter'),
    run('Costs fell.', 72, 168),
    ...paragraph(72, 200, 3, 'the board approved the budget for next year'),
    run('- first item of the list', 72, 250),
    run('- second item of the list', 72, 262),
  ]);

describe('pages whose text runs at a right angle', () => {
  it.each([90, 180, 270])(
    'reads text turned %i degrees as the upright page, boxes on the turned image',
    (angle) => {
      // Arrange
      const upright = sample();
      const expected = layOut(upright);
      // Act
      const laidOut = layOut(turned(upright, angle));
      // Assert
      expect(laidOut.markdown).toBe(expected.markdown);
      expect(laidOut.elements.map((e) => e.bbox)).toEqual(
        expected.elements.map((e) => {
          const b = onImage(e.bbox, angle, upright.width, upright.height);
          return expect.objectContaining({
            x: expect.closeTo(b.x, 1) as number,
            y: expect.closeTo(b.y, 1) as number,
            w: expect.closeTo(b.w, 1) as number,
            h: expect.closeTo(b.h, 1) as number,
          }) as Rect;
        }),
      );
    },
  );

  it('leaves a page with a few turned labels as it is', () => {
    // Arrange: upright text and one label up the margin.
    const p = sample();
    p.runs.push({ ...run('Draft', 20, 400), w: 10, h: 30, rotation: 90 });
    // Act
    const angle = turnedAngle(p.runs);
    // Assert
    expect(angle).toBe(0);
    expect(layOut(p).markdown).toMatch(/^# Quarterly report/);
  });
});
