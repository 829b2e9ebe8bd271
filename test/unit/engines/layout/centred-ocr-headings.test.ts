import { describe, expect, it } from 'vitest';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { TextRun } from '../../../../functions/engines/layout/types.js';
import { OCR_CHAR, OCR_SIZE, ocrLine, scanPage, WORD_GAP } from './ocr-page-fixtures.js';

/** The words of a line starting at x; OCR words unless `ocr` is false. */
const line = (
  text: string,
  x: number,
  baseline: number,
  ocr = true,
  fontSize = OCR_SIZE,
): TextRun[] => ocrLine(text, x, baseline, { ocr, fontSize });

/** The same line centred on x = 528 (the middle of the prose lines). */
const centred = (text: string, baseline: number): TextRun[] => {
  const width = text.length * OCR_CHAR + (text.split(' ').length - 1) * (WORD_GAP - OCR_CHAR);
  return line(text, 528 - width / 2, baseline);
};

const markdownOf = (runs: TextRun[]): string => {
  const p = scanPage(runs);
  return layoutPage(p, buildLayoutProfile([p])).markdown;
};

/** Lines of OCR prose from x = 100 to x = 955. */
const prose = (top: number, count: number, ocr = true): TextRun[] =>
  Array.from({ length: count }, (_, i) =>
    line(
      'the quick brown fox jumps over the lazy dog and keeps on running across the wide open field today',
      100,
      top + i * 24,
      ocr,
    ),
  ).flat();

describe('centred title lines on OCR pages', () => {
  it('makes a centred title line at body size a heading', () => {
    // Arrange: a title centred over the prose, set at body size (OCR knows no weights).
    const runs = [
      ...centred('Quality System Audit for BioTech Innovations (Pty) Ltd', 200),
      ...prose(260, 5),
    ];

    // Act
    const md = markdownOf(runs);

    // Assert
    expect(md).toMatch(/^## Quality System Audit for BioTech Innovations \(Pty\) Ltd$/m);
  });

  it('makes a centred title naming a company a heading under a larger title, not a byline of names', () => {
    // Arrange: a large company name over a report title, then a centred line of names.
    const runs = [
      ...line('Deloitte.', 440, 120, true, 40),
      ...centred('Quality System Audit for BioTech Innovations (Pty) Ltd', 200),
      ...centred('Kathy Margaret and David Thompson', 240),
      ...prose(300, 5),
    ];

    // Act
    const md = markdownOf(runs);

    // Assert
    expect(md).toMatch(/^## Quality System Audit for BioTech Innovations \(Pty\) Ltd$/m);
    expect(md).not.toMatch(/^#+ Kathy Margaret/m);
  });

  it('keeps a centred subtitle under a centred title apart from it', () => {
    // Arrange: a title line, a shorter subtitle centred under it at the same size and the usual
    // line spacing (OCR measures no weights), then prose.
    const runs = [
      ...centred('Quality System Audit for BioTech Innovations (Pty) Ltd', 200),
      ...centred('Opening Meeting Sign-in Sheet', 224),
      ...prose(300, 5),
    ];

    // Act
    const md = markdownOf(runs);

    // Assert: the title is a heading, the subtitle a line of its own.
    expect(md).toMatch(/^## Quality System Audit for BioTech Innovations \(Pty\) Ltd$/m);
    expect(md).toMatch(/^(?:#+ )?Opening Meeting Sign-in Sheet$/m);
  });

  it('keeps a centred title wrapped after a lowercase word as one block', () => {
    // Arrange: a title broken after `for`, its second line centred under the first at the usual
    // line spacing.
    const runs = [
      ...centred('Quality System Audit for', 200),
      ...centred('BioTech Innovations', 224),
      ...prose(300, 5),
    ];

    // Act
    const md = markdownOf(runs);

    // Assert
    expect(md).toMatch(/Quality System Audit for BioTech Innovations/);
  });

  it('leaves centred lines with numbers or commas, and sentences, as text', () => {
    // Arrange
    const runs = [
      ...prose(200, 5),
      ...centred('Document Number 2024 Revision 7', 400),
      ...prose(460, 5),
      ...centred('please return the signed form to the office.', 660),
      ...prose(720, 5),
      ...centred('Oceanview Drive, Santa Monica', 920),
      ...prose(980, 5),
    ];

    // Act
    const md = markdownOf(runs);

    // Assert
    expect(md).not.toMatch(/^#+ /m);
  });
});
