import { describe, expect, it } from 'vitest';
import { pdfiumMarkdownOf } from '../../../support/markdown-of.js';
import { texPdf, widthOf, type Piece } from '../../../support/tex-pdf.js';

/**
 * A listing in CMTT9 set token by token as LaTeX's listings package sets it: each token drawn at
 * its own position, `gap` points after the previous one (a fraction of the font's advance, about
 * 4.7 pt at 9 pt), and a real space as a whole advance.
 */
async function listingPdf(gap: number): Promise<Uint8Array> {
  const size = 9;
  const pieces: Piece[] = [
    ['CMR10', 'A short program adds two numbers and prints what it gets back.', 72, 700, 10],
  ];
  const lines: string[][] = [
    ['function', ' ', 'add', '(', 'a', ',', ' ', 'b', ')', ' ', '{'],
    ['    ', 'return', ' ', 'a', ' ', '+', ' ', 'b', ';'],
    ['}'],
    ['console', '.', 'log', '(', 'add', '(', '3', ',', ' ', '5', ')', ')', ';'],
  ];
  const advance = await widthOf('0', size);
  for (const [k, tokens] of lines.entries()) {
    let x = 90;
    for (const token of tokens) {
      if (token.trim() === '') {
        x += advance * token.length;
        continue;
      }
      pieces.push(['CMTT9', token, x, 670 - 11 * k, size]);
      x += (await widthOf(token, size)) + gap;
    }
  }
  pieces.push(['CMR10', 'The program prints the number eight and stops there.', 72, 610, 10]);
  return texPdf(pieces);
}

describe('a listing set token by token in a fixed-pitch font', () => {
  it('reads tokens a fraction of an advance apart as one word, and whole advances as spaces', async () => {
    // Arrange
    const pdf = await listingPdf(1.3);
    // Act
    const markdown = await pdfiumMarkdownOf(pdf);
    // Assert
    expect(markdown).toContain('console.log(add(3, 5));');
    expect(markdown).toContain('function add(a, b) {');
    expect(markdown).toContain('return a + b;');
  });
});
