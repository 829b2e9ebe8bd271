import { describe, expect, it } from 'vitest';
import { inkRuns, isRun } from '../../../../functions/engines/ocr/ink-runs.js';

const RULE = { maxGap: 2, minLength: 5, minFill: 0.6 };

/** A row of grey levels from a pattern: `#` ink (0), `.` paper (255). */
const row = (pattern: string) => Uint8Array.from(pattern, (c) => (c === '#' ? 0 : 255));

describe('inkRuns', () => {
  it('bridges gaps up to maxGap and splits at longer ones', () => {
    // Arrange
    const pixels = row('##.##..##...######');
    // Act
    const runs = inkRuns(pixels, { first: 0, step: 1, count: pixels.length }, 10, RULE);
    // Assert
    expect(runs).toEqual([
      { from: 0, to: 8 },
      { from: 12, to: 17 },
    ]);
  });

  it('drops stretches too short or too sparse', () => {
    // Arrange: 4 long; then 7 long with 4 of 7 ink (under 0.6).
    const pixels = row('####.....#..#.#.#');
    // Act
    const runs = inkRuns(pixels, { first: 0, step: 1, count: pixels.length }, 10, RULE);
    // Assert
    expect(runs).toEqual([]);
  });

  it('reads a column with the image width as step, ink up to maxInk', () => {
    // Arrange: a 2-wide image whose second column holds levels 0..5 then 200.
    const pixels = Uint8Array.from([255, 0, 255, 1, 255, 2, 255, 3, 255, 4, 255, 5, 255, 200]);
    // Act
    const dark = inkRuns(pixels, { first: 1, step: 2, count: 7 }, 5, RULE);
    const darker = inkRuns(pixels, { first: 1, step: 2, count: 7 }, 3, { ...RULE, minLength: 4 });
    // Assert
    expect(dark).toEqual([{ from: 0, to: 5 }]);
    expect(darker).toEqual([{ from: 0, to: 3 }]);
  });
});

describe('isRun', () => {
  it('keeps a stretch at least minLength long and at least minFill ink', () => {
    // Act / Assert
    expect(isRun(0, 4, 3, RULE)).toBe(true);
    expect(isRun(0, 3, 4, RULE)).toBe(false);
    expect(isRun(0, 9, 5, RULE)).toBe(false);
  });
});
