import { describe, expect, it } from 'vitest';
import { markdownOf, run } from './page-fixtures.js';

describe('a dash or an asterisk opening a wrapped line', () => {
  it('keeps a line that starts with *ALLOBJ in its paragraph instead of opening a list item', () => {
    // Arrange
    const runs = [
      run(
        'Even if you are willing to live with these performance and management issues, a user with',
        72,
        100,
      ),
      run(
        '*ALLOBJ access still can directly access all of the data in the underlying DB2 table and',
        72,
        112,
      ),
      run('easily bypass the security controls that are built into an SQL view.', 72, 124),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).toBe(
      'Even if you are willing to live with these performance and management issues, a user with ' +
        '\\*ALLOBJ access still can directly access all of the data in the underlying DB2 table and ' +
        'easily bypass the security controls that are built into an SQL view.',
    );
  });

  it('still reads a dash set apart from its text as a bullet', () => {
    // Arrange
    const runs = [
      run('The rules to enforce include the following ones:', 72, 100),
      run('-', 90, 112),
      run('Human Resources can see the unmasked TAX_ID.', 100, 112),
      run('-', 90, 124),
      run('Employees can see only their own TAX_ID.', 100, 124),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).toContain('- Human Resources can see the unmasked TAX\\_ID.');
    expect(markdown).toContain('- Employees can see only their own TAX\\_ID.');
  });
});
