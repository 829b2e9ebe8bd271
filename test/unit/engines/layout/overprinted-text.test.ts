import { describe, expect, it } from 'vitest';
import { buildRows, rowText } from '../../../../functions/engines/layout/lines.js';
import { markdownOf, run } from './page-fixtures.js';

describe('text drawn twice at the same place', () => {
  it('reads a copy that differs only by a trailing space once', () => {
    // Arrange: a shadow copy of the label, given with a trailing space.
    const runs = [
      run('Signed on as ALICE ', 72, 100),
      run('Signed on as ALICE', 72.4, 100.2),
      run('and the session goes on with the same value of the register.', 72, 112),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).toBe(
      'Signed on as ALICE and the session goes on with the same value of the register.',
    );
  });

  it('reads a copy drawn after other runs of its line once', () => {
    // Arrange: the bold keyword is drawn twice, its copy after the text beside it; a run set
    // between the two (sorted by x) does not hide the copy.
    const runs = [
      run('ENFORCED FOR ALL ACCESS', 72, 100, { bold: true }),
      run('x', 72.5, 96, { fontSize: 6 }),
      run('ENFORCED FOR ALL ACCESS', 72.6, 100, { bold: true }),
    ];
    // Act
    const text = buildRows(runs).map(rowText).join('\n');
    // Assert
    expect(text.match(/ENFORCED FOR ALL ACCESS/g)).toHaveLength(1);
  });

  it('keeps a word repeated further along its line', () => {
    // Arrange
    const runs = [run('ALICE', 72, 100), run('ALICE', 110, 100)];
    // Act
    const rows = buildRows(runs);
    // Assert
    expect(rows.map(rowText)).toEqual(['ALICE ALICE']);
  });
});
