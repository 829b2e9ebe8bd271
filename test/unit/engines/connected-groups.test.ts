import { describe, expect, it } from 'vitest';
import { connectedGroups } from '../../../functions/engines/connected-groups.js';

describe('connectedGroups', () => {
  it('puts items linked through others in one group, in their order, groups by first item', () => {
    // Arrange: 1-2 and 2-3 are linked (3 only through 2), 10-11 apart from them.
    const items = [1, 10, 2, 11, 3, 20];
    // Act
    const groups = connectedGroups(items, (a, b) => Math.abs(a - b) === 1);
    // Assert
    expect(groups).toEqual([[1, 2, 3], [10, 11], [20]]);
  });

  it('asks each pair once, with the indices of both items', () => {
    // Arrange
    const asked: string[] = [];
    // Act
    connectedGroups(['a', 'b', 'c'], (a, b, i, j) => {
      asked.push(`${a}${b}${String(i)}${String(j)}`);
      return false;
    });
    // Assert
    expect(asked).toEqual(['ab01', 'ac02', 'bc12']);
  });

  it('joins groups formed apart when a later pair links them', () => {
    // Arrange: 0-3 and 1-2 form two groups until 2-3 links them.
    const links = new Set(['0-3', '1-2', '2-3']);
    // Act
    const groups = connectedGroups([0, 1, 2, 3], (a, b) => links.has(`${String(a)}-${String(b)}`));
    // Assert
    expect(groups).toEqual([[0, 1, 2, 3]]);
  });
});
