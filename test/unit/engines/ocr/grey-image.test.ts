import { describe, expect, it } from 'vitest';
import {
  cellGrid,
  cellGroups,
  inkPerCell,
  medianLevel,
  paddedCrop,
} from '../../../../functions/engines/ocr/grey-image.js';

describe('cellGrid', () => {
  it('lays cells of the rounded size over the image, the last ones cut', () => {
    // Act
    const grid = cellGrid(100, 45, 19.6);
    // Assert
    expect(grid).toEqual({ cell: 20, cols: 5, rows: 3 });
  });

  it('gives no grid for an empty image', () => {
    // Act / Assert
    expect(cellGrid(0, 45, 20)).toBeNull();
    expect(cellGrid(100, 0, 20)).toBeNull();
  });
});

describe('inkPerCell', () => {
  it('counts the pixels darker than the level in each cell, only where the mask is 1', () => {
    // Arrange: a 4 × 2 image in 2-pixel cells; the mask hides the last column.
    const pixels = Uint8Array.from([0, 0, 0, 200, 10, 128, 127, 0]);
    const mask = Uint8Array.from([1, 1, 1, 0, 1, 1, 1, 0]);
    const grid = { cell: 2, cols: 2, rows: 1 };
    // Act
    const all = inkPerCell(pixels, 4, 2, grid, 128);
    const masked = inkPerCell(pixels, 4, 2, grid, 128, mask);
    // Assert
    expect([...all]).toEqual([3, 3]);
    expect([...masked]).toEqual([3, 2]);
  });
});

describe('cellGroups', () => {
  // Members (x) of a 4 × 3 grid:  x . . x
  //                               . x . .
  //                               . . . x
  const members = new Set([0, 3, 5, 11]);
  const grid = { cell: 1, cols: 4, rows: 3 };

  it('joins only row and column neighbours when straight', () => {
    // Act
    const groups = cellGroups(grid, (i) => members.has(i), { rows: 1, cols: 1, straight: true });
    // Assert
    expect(groups.map((g) => [...g.cells].sort((a, b) => a - b))).toEqual([[0], [3], [5], [11]]);
  });

  it('joins diagonal neighbours and bridges gaps up to the reach, with the box of each group', () => {
    // Act
    const groups = cellGroups(grid, (i) => members.has(i), { rows: 1, cols: 2 });
    // Assert
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ c0: 0, c1: 3, r0: 0, r1: 2 });
    expect([...(groups[0]?.cells ?? [])].sort((a, b) => a - b)).toEqual([0, 3, 5, 11]);
  });
});

describe('medianLevel', () => {
  it('gives the lowest level half of the region is at or below, or of the inverted levels', () => {
    // Arrange: a 4 × 1 region of levels 10, 20, 30, 40.
    const pixels = Uint8Array.from([10, 20, 30, 40]);
    const region = { x: 0, y: 0, w: 4, h: 1 };
    // Act / Assert
    expect(medianLevel(pixels, 4, region)).toBe(20);
    expect(medianLevel(pixels, 4, region, true)).toBe(255 - 30);
  });
});

describe('paddedCrop', () => {
  it('maps the region through the level function inside a white margin', () => {
    // Arrange: the right 2 × 1 of a 3 × 1 image.
    const pixels = Uint8Array.from([1, 2, 3]);
    // Act
    const crop = paddedCrop(pixels, 3, { x: 1, y: 0, w: 2, h: 1 }, 1, (v) => 10 * v);
    // Assert
    expect(crop).toMatchObject({ width: 4, height: 3 });
    expect([...crop.pixels]).toEqual([255, 255, 255, 255, 255, 20, 30, 255, 255, 255, 255, 255]);
  });
});
