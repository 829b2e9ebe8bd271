import { describe, expect, it } from 'vitest';
import {
  foldForCoverage,
  lossesBeyond,
  markdownPlainText,
  textCoverage,
} from '../../../bench/text-coverage.js';

describe('textCoverage', () => {
  it('counts the characters of the text layer that the output lacks', () => {
    // Act
    const coverage = textCoverage(['Hello world', 'Page 7'], ['Hello', 'world']);
    // Assert
    expect(coverage).toEqual({ layerChars: 15, missingChars: 5, missing: '7×1 P×1 a×1 e×1 g×1' });
  });

  it('counts a character the output has fewer times than the text layer as missing', () => {
    // Act
    const coverage = textCoverage(['aaa'], ['a']);
    // Assert
    expect(coverage.missingChars).toBe(2);
  });

  it('finds a page fully covered whatever the order of its text', () => {
    // Act
    const coverage = textCoverage(['first line', 'second line'], ['second line first line']);
    // Assert
    expect(coverage.missingChars).toBe(0);
  });

  it('accepts what the layout transforms: markup, bullets, ligatures, accents, hyphens', () => {
    // Arrange
    const layer = ['• ﬁrst', 'e\u0301te\u0301 ˆ', 'exam-', 'ple', 'a*b'];
    const markdown = '- **first**\n\nété example\n\na\\*b';
    // Act
    const coverage = textCoverage(layer, [markdownPlainText(markdown)]);
    // Assert
    expect(coverage.missingChars).toBe(0);
  });
});

describe('markdownPlainText', () => {
  it('keeps the text of HTML table cells, sub- and superscripts and decodes entities', () => {
    // Act
    const text = markdownPlainText(
      '<table><tr><td colspan="2">A &amp; B</td></tr></table> x<sup>2</sup> &lt;3 &#946;',
    );
    // Assert
    expect(foldForCoverage(text)).toBe('A&Bx2<3β');
  });

  it('keeps the label of a link and drops its target', () => {
    // Act
    const text = markdownPlainText('see [the paper](https://example.org/x)');
    // Assert
    expect(foldForCoverage(text)).toBe('seethepaper');
  });
});

describe('lossesBeyond', () => {
  it('lists the losses that a known list does not account for', () => {
    // Act
    const beyond = lossesBeyond('a×3 b×1 ××2', 'a×2 c×5 ××2');
    // Assert
    expect(beyond).toBe('a×1 b×1');
  });

  it('finds nothing beyond a known list that covers every loss', () => {
    // Act
    const beyond = lossesBeyond('a×1', 'a×2 b×1');
    // Assert
    expect(beyond).toBe('');
  });
});
