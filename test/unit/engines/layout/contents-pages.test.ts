import { describe, expect, it } from 'vitest';
import { markdownOf, run } from './page-fixtures.js';

const dots = (n: number): string => Array.from({ length: n }, () => '.').join(' ');

describe('a table of contents', () => {
  it('gives each entry closed by a dot leader and a page number a row of its own', () => {
    // Arrange: two parts of the contents set apart by a gap, the first entry in bold.
    const runs = [
      run('Contents', 72, 60, { fontSize: 24, bold: true }),
      run('Notices', 72, 100, { bold: true }),
      run(`${dots(30)} vii`, 112, 100),
      run(`Trademarks ${dots(28)} viii`, 72, 112),
      run(`Chapter 1. Securing the data ${dots(20)} 1`, 72, 140, { bold: true }),
      run(`1.1 Security fundamentals ${dots(22)} 2`, 72, 152),
      run(`1.1.1 Existing row and column control ${dots(14)} 4`, 86, 164),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).toBe(
      [
        '# Contents',
        '',
        `| Notices ${dots(30)} | vii |`,
        '| --- | --- |',
        `| Trademarks ${dots(28)} | viii |`,
        `| Chapter 1. Securing the data ${dots(20)} | 1 |`,
        `| 1.1 Security fundamentals ${dots(22)} | 2 |`,
        `| 1.1.1 Existing row and column control ${dots(14)} | 4 |`,
      ].join('\n'),
    );
  });

  it('keeps an entry set on two lines in one row', () => {
    // Arrange
    const runs = [
      run(`2.1 Roles ${dots(30)} 8`, 72, 100),
      run('2.1.7 Verifying function usage IDs for RCAC with', 72, 112),
      run(`the FUNCTION_USAGE view ${dots(20)} 10`, 72, 124),
      run(`2.2 Separation of duties ${dots(24)} 10`, 72, 136),
    ];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown.split('\n')).toContain(
      `| 2.1.7 Verifying function usage IDs for RCAC with the FUNCTION\\_USAGE view ${dots(20)} | 10 |`,
    );
  });

  it('leaves a lone line ending in dots and a number in its paragraph', () => {
    // Arrange
    const runs = [run(`We waited and waited . . . . 3`, 72, 100)];
    // Act
    const markdown = markdownOf(runs);
    // Assert
    expect(markdown).toBe('We waited and waited . . . . 3');
  });
});
