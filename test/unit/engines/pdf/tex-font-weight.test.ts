import {
  beginText,
  endText,
  PDFDocument,
  setFontAndSize,
  setTextMatrix,
  showText,
  StandardFonts,
} from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { texFont } from '../../../support/tex-pdf.js';
import { pdfiumMarkdownOf, pdfjsMarkdownOf } from '../../../support/markdown-of.js';

/** A paragraph of a TeX paper in CMR10 opening with a CMBX10 label, both fonts flagged bold. */
async function texPage(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const times = await doc.embedFont(StandardFonts.TimesRoman);
  const page = doc.addPage([612, 792]);
  // Both fonts say bold (ForceBold, a wide stem, weight 700), as some TeX PDFs say of every
  // embedded font.
  const flaggedBold = { metrics: times, encoding: 'WinAnsiEncoding', forceBold: true } as const;
  const regular = texFont(doc, page, 'ABCDEF+CMR10', { ...flaggedBold, key: 'F1' });
  const bold = texFont(doc, page, 'GHIJKL+CMBX10', { ...flaggedBold, key: 'F2' });
  const serif = page.node.newFontDictionary(times.name, times.ref).asString().slice(1);
  const size = 10;
  // One word in Times (regular by its descriptor) keeps the paragraph from being bold as a
  // whole: bold CMR10 text around it would be written as `**…**` stretches.
  const lines: [string, string][][] = [
    [
      [bold, 'Example 1. '],
      [regular, 'Suppose that we want to compute the sum of all values in the list, one'],
    ],
    [
      [regular, 'value at a time, and keep the running total in a '],
      [serif, 'register'],
      [regular, ' until the whole list'],
    ],
    [[regular, 'has been read. The algorithm then writes the total back and stops.']],
  ];
  page.pushOperators(
    beginText(),
    ...lines.flatMap((pieces, i) => {
      let x = 72;
      return pieces.flatMap(([font, text]) => {
        const at = x;
        x += times.widthOfTextAtSize(text, size);
        return [
          setFontAndSize(font, size),
          setTextMatrix(1, 0, 0, 1, at, 700 - i * 12),
          showText(times.encodeText(text)),
        ];
      });
    }),
    endText(),
  );
  return doc.save();
}

describe('Computer Modern body text whose descriptor says bold', () => {
  it.each([
    ['PDFium', pdfiumMarkdownOf],
    ['pdf.js', pdfjsMarkdownOf],
  ])('is regular text read with %s, and its CMBX10 label bold', async (_reader, markdownOf) => {
    // Arrange
    const bytes = await texPage();
    // Act
    const markdown = await markdownOf(bytes);
    // Assert
    expect(markdown).toContain(
      '**Example 1.** Suppose that we want to compute the sum of all values in the list, one ' +
        'value at a time, and keep the running total in a register until the whole list has ' +
        'been read. The algorithm then writes the total back and stops.',
    );
    expect(markdown.match(/\*\*/g)).toHaveLength(2);
  });
});
