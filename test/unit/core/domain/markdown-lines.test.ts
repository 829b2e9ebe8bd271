import { describe, expect, it } from 'vitest';
import {
  closesFence,
  isCode,
  isProse,
  markdownLines,
  openingFence,
  parseHeading,
  parseListItem,
} from '../../../../functions/core/domain/markdown-lines.js';

const md = (...lines: string[]): string => lines.join('\n');
const kinds = (markdown: string): string[] => markdownLines(markdown).map((line) => line.kind);

describe('markdownLines', () => {
  it('classifies headings, list items, paragraphs and blank lines', () => {
    // Act
    const lines = markdownLines(md('## Results', '', '- first', '2) second', 'Plain text.'));
    // Assert
    expect(lines.map((line) => line.kind)).toEqual([
      'heading',
      'blank',
      'list-item',
      'list-item',
      'paragraph',
    ]);
    expect(lines[0]?.heading).toEqual({ level: 2, text: 'Results' });
    expect(lines[3]?.item).toMatchObject({ ordered: true, number: '2', content: 'second' });
  });

  it('marks fence lines apart from the code between them, whatever the code looks like', () => {
    // Act
    const result = kinds(md('  ```python', '# a comment', '- not an item', '```', 'after'));
    // Assert
    expect(result).toEqual(['fence', 'code', 'code', 'fence', 'paragraph']);
  });

  it('runs an unclosed fence to the end of the page', () => {
    // Act
    const result = kinds(md('~~~~', 'code', '~~~', '# still code'));
    // Assert
    expect(result).toEqual(['fence', 'code', 'code', 'code']);
  });

  it('reads pipe tables with and without leading pipes, and HTML lines', () => {
    // Act
    const result = kinds(
      md('| a | b |', '|---|---|', '', 'x | y', ':-- | --:', '1 | 2', 'prose', '<table>'),
    );
    // Assert
    expect(result).toEqual([
      'table',
      'table',
      'blank',
      'table',
      'table',
      'table',
      'paragraph',
      'html',
    ]);
  });

  it('does not read a header row as a table when code follows it', () => {
    // Act
    const result = kinds(md('a | b', '```', '---|---', '```'));
    // Assert
    expect(result).toEqual(['paragraph', 'fence', 'code', 'fence']);
  });

  it('marks display math from $$ to $$, on one line or several', () => {
    // Act
    const result = kinds(md('$$', 'E = mc^2', '\\int f = 1 $$', 'after', '$$ a + b $$', 'text'));
    // Assert
    expect(result).toEqual(['math', 'math', 'math', 'paragraph', 'math', 'paragraph']);
  });

  it('ends an unclosed math block at a blank line, and keeps headings and items inside it', () => {
    // Act
    const result = kinds(md('$$ x', '- y', '# z', '', 'prose'));
    // Assert
    expect(result).toEqual(['math', 'list-item', 'heading', 'blank', 'paragraph']);
  });

  it('counts headings, items, math and paragraphs as prose, fences and code as code', () => {
    // Arrange
    const lines = markdownLines(md('# h', '- i', '$$x$$', 'p', '```', 'c', '```', '| t |', ''));
    // Act
    const prose = lines.map(isProse);
    const code = lines.map(isCode);
    // Assert
    expect(prose).toEqual([true, true, true, true, false, false, false, false, false]);
    expect(code).toEqual([false, false, false, false, true, true, true, false, false]);
    expect(isProse(undefined)).toBe(false);
    expect(isCode(undefined)).toBe(false);
  });
});

describe('parseHeading', () => {
  it('returns the level and the text without the closing sequence', () => {
    // Act
    const heading = parseHeading('   ### Results ##  ');
    // Assert
    expect(heading).toEqual({ level: 3, text: 'Results' });
  });

  it.each(['#hashtag', '    # indented code', '####### seven', '#   ', 'C# code'])(
    'returns null for %j',
    (line) => {
      // Act
      const heading = parseHeading(line);
      // Assert
      expect(heading).toBeNull();
    },
  );
});

describe('parseListItem', () => {
  it('reads bullets of any kind, tight bullets and numbered items', () => {
    // Act
    const items = ['\t● Apples', '•Pears', '10. Ten', '* star'].map(parseListItem);
    // Assert
    expect(items.map((item) => [item?.indent, item?.marker, item?.gap, item?.content])).toEqual([
      [4, '●', ' ', 'Apples'],
      [0, '•', '', 'Pears'],
      [0, '10.', ' ', 'Ten'],
      [0, '*', ' ', 'star'],
    ]);
  });

  it.each(['* * *', '– 12 –', '*emphasis*', '1234567890. too long', '-'])(
    'returns null for %j',
    (line) => {
      // Act
      const item = parseListItem(line);
      // Assert
      expect(item).toBeNull();
    },
  );
});

describe('openingFence and closesFence', () => {
  it('closes a fence only with the same character and at least as many of it', () => {
    // Arrange
    const fence = openingFence('````md');
    // Act
    const closers = ['```', '~~~~', '`````', '```` x'].map((line) =>
      fence ? closesFence(line, fence) : null,
    );
    // Assert
    expect(fence).toEqual({ char: '`', length: 4, info: 'md' });
    expect(closers).toEqual([false, false, true, false]);
  });

  it('does not open a backtick fence whose info string holds a backtick', () => {
    // Act
    const fence = openingFence('``` a`b');
    // Assert
    expect(fence).toBeNull();
  });
});
