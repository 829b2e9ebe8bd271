import { describe, expect, it } from 'vitest';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import { extracted, line, texPdf, type Piece } from '../../../support/tex-pdf.js';

/** The Markdown of page 1 of `pieces` as the text-layer engine lays it out. */
const markdownOf = async (pieces: readonly Piece[]): Promise<string> => {
  const page = (await extracted(await texPdf(pieces))).text;
  return layoutPage(page, buildLayoutProfile([page])).markdown;
};

/**
 * A textbook exercise set in two columns: exercise 1 (left) has a formula on a line of its own
 * and two lettered parts; exercise 2 opens the right column with one part.
 */
async function exercises(): Promise<Piece[]> {
  return [
    ...(await line(72, 700, [['CMR10', '1. A ball is thrown down from the top of a building.']])),
    ...(await line(86, 688, [['CMR10', 'Its height above the ground after t seconds is']])),
    ...(await line(120, 670, [
      ['CMMI10', 's'],
      ['CMR10', '('],
      ['CMMI10', 't'],
      ['CMR10', ') = 64 + 8'],
      ['CMMI10', 't'],
      ['CMR10', ' + 16'],
      ['CMMI10', 't'],
      ['CMR7', '2', 7, 4],
      ['CMR10', '.'],
    ])),
    ...(await line(86, 652, [['CMR10', 'a. Find when the ball hits the ground.']])),
    ...(await line(86, 640, [['CMR10', 'b. Find its speed when it hits the ground.']])),
    ...(await line(330, 700, [['CMR10', '2. A stone is dropped into a deep well.']])),
    ...(await line(344, 688, [['CMR10', 'a. Find the depth of the well.']])),
  ];
}

describe('list items holding mathematics', () => {
  it('keeps the parts of an exercise nested under it past a formula set on its own line', async () => {
    // Act
    const markdown = await markdownOf(await exercises());
    // Assert: the centred equation is a paragraph of exercise 1, its parts nested after it.
    expect(markdown.split('\n\n')).toEqual([
      '1. A ball is thrown down from the top of a building. Its height above the ground after t seconds is',
      '   $$s(t)=64+8t+16t^{2}.$$',
      '   - a. Find when the ball hits the ground.',
      '   - b. Find its speed when it hits the ground.',
      '2. A stone is dropped into a deep well.',
      '   - a. Find the depth of the well.',
    ]);
  });

  it('keeps a wrapped line of an item in a slightly larger math font in the item', async () => {
    // Arrange: the item's second line hangs under its text and holds a formula at 10.6 pt.
    const pieces = [
      ...(await line(72, 720, [
        ['CMR10', 'For the following exercises, find the velocity and the speed.'],
      ])),
      ...(await line(72, 700, [['CMR10', '1. Find the velocity of the potato after 0.5 s and']])),
      ...(await line(86, 687, [
        ['CMMI10', '5.75', 10.6],
        ['CMMI10', 's', 10.6],
        ['CMR10', '.'],
      ])),
      ...(await line(72, 674, [['CMR10', '2. Find the speed of the potato at 0.5 s.']])),
    ];
    // Act
    const markdown = await markdownOf(pieces);
    // Assert
    expect(markdown.split('\n\n')).toEqual([
      'For the following exercises, find the velocity and the speed.',
      '1. Find the velocity of the potato after 0.5 s and $5.75s$.',
      '2. Find the speed of the potato at 0.5 s.',
    ]);
  });
});
