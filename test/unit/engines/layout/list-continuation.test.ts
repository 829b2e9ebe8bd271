import { describe, expect, it } from 'vitest';
import type { TextRun } from '../../../../functions/engines/layout/types.js';
import { markdownOf } from './page-fixtures.js';

const SIZE = 10;
const CHAR = 5;

/** A run at (x, baseline) on a 72 DPI page, 10 px font; `x1` stretches it to a right edge. */
const run = (text: string, x: number, baseline: number, x1?: number): TextRun => ({
  text,
  x,
  y: baseline - 0.8 * SIZE,
  w: x1 !== undefined ? x1 - x : text.length * CHAR,
  h: SIZE,
  baseline,
  fontSize: SIZE,
  fontName: 'Body',
  bold: false,
  italic: false,
  monospace: false,
});

const layout = (runs: TextRun[]): string => markdownOf(runs);

describe('numbered items set flush', () => {
  it('keeps the lines under the number in the item when the line above runs to the edge', () => {
    // Arrange: exercises numbered at x 50 whose wrapped lines start at x 50 too (no hanging
    // indent); justified lines end at x 350, an item's last line ends short.
    const runs = [
      run('Solve the following exercises with care and show all the working.', 50, 100, 350),
      run('153. A rocket is fired vertically upward from the ground. The', 50, 114, 350),
      run('distance s in feet it travels after t seconds is given by the', 50, 128, 350),
      run('formula s(t) = 560t - 16t.', 50, 142),
      run('154. A ball is thrown downward with a speed of 8 ft/s from', 50, 156, 350),
      run('the top of a building of 64 feet.', 50, 170),
      run('This closing line is a paragraph of its own after the short line.', 50, 184, 350),
    ];
    // Act
    const blocks = layout(runs).split('\n\n');
    // Assert
    expect(blocks).toContain(
      '153. A rocket is fired vertically upward from the ground. The distance s in feet it ' +
        'travels after t seconds is given by the formula s(t) = 560t - 16t.',
    );
    expect(blocks).toContain(
      '154. A ball is thrown downward with a speed of 8 ft/s from the top of a building of 64 feet.',
    );
    expect(blocks).toContain('This closing line is a paragraph of its own after the short line.');
  });
  it('ends a flush item at a short line closing a sentence, before an indented paragraph', () => {
    // Arrange: an item in running text, wrapped flush, then a paragraph indented by 2 ems.
    const runs = [
      run('Two things are worth doing with the survey data we have gathered:', 50, 100, 350),
      run('(1) measure the luminosity of the gas around each galaxy, and', 50, 114, 350),
      run('probe the density profile of that gas.', 50, 128),
      run('Based on these considerations we compare the galaxies with the', 70, 142, 350),
      run('simulations of their formation and find a good agreement.', 50, 156),
    ];
    // Act
    const blocks = layout(runs).split('\n\n');
    // Assert
    expect(blocks.some((b) => b.includes('(1) measure') && b.includes('probe the density'))).toBe(
      true,
    );
    expect(blocks.some((b) => b.includes('probe the density') && b.includes('Based on'))).toBe(
      false,
    );
  });
});
