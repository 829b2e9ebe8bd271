import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  beginText,
  endText,
  moveText,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFOperator,
  PDFOperatorNames,
  setFontAndSize,
  setTextMatrix,
  showText,
  StandardFonts,
  type PDFPage,
} from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { pdfiumMarkdownOf, pdfjsMarkdownOf } from '../../../support/markdown-of.js';
import { corpusPath } from '../../../support/corpus.js';

const SHARED = join(import.meta.dirname, '../../../../../shared');
const PAPERS = corpusPath('papers');

/** Width of every glyph of {@link MappedFont}, in text space units (1/1000 em). */
const GLYPH_WIDTH = 500;

/**
 * A font that draws one Helvetica glyph per byte and maps each byte to a text of its own through
 * a ToUnicode CMap, the way producers map Arabic glyphs (a lam-alef ligature maps to two letters).
 */
class MappedFont {
  readonly #codes = new Map<string, number>();
  readonly name = PDFName.of('FMapped');

  constructor(doc: PDFDocument, page: PDFPage, texts: readonly string[]) {
    const unique = [...new Set([' ', ...texts])];
    unique.forEach((text, i) => this.#codes.set(text, 0x21 + i));
    const hex = (text: string): string =>
      Array.from(text)
        .map((c) => (c.codePointAt(0) ?? 0).toString(16).padStart(4, '0'))
        .join('');
    const entries = unique.map(
      (text) => `<${(this.#codes.get(text) ?? 0).toString(16)}> <${hex(text)}>`,
    );
    const cmap = [
      '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
      '/CMapName /Mapped def /CMapType 2 def',
      '1 begincodespacerange <00> <ff> endcodespacerange',
      `${entries.length} beginbfchar`,
      ...entries,
      'endbfchar endcmap CMapName currentdict /CMap defineresource pop end end',
    ].join('\n');
    const toUnicode = doc.context.register(doc.context.flateStream(cmap));
    const font = doc.context.register(
      doc.context.obj({
        Type: 'Font',
        Subtype: 'Type1',
        BaseFont: 'Helvetica',
        FirstChar: 0x21,
        LastChar: 0x21 + unique.length - 1,
        Widths: unique.map(() => GLYPH_WIDTH),
        ToUnicode: toUnicode,
      }),
    );
    page.node.setFontDictionary(this.name, font);
  }

  /** Draws each piece of text (glyphs left to right, texts given to the constructor) at its x. */
  draw(page: PDFPage, pieces: readonly Piece[], y: number, size: number) {
    const operators = [beginText(), setFontAndSize(this.name.asString().slice(1), size)];
    for (const piece of pieces) {
      const codes = piece.glyphs.map((text) => {
        const code = this.#codes.get(text);
        if (code === undefined) throw new Error(`no glyph for ${text}`);
        return code.toString(16);
      });
      operators.push(
        setTextMatrix(1, 0, 0, 1, piece.x, y),
        showText(PDFHexString.of(codes.join(''))),
      );
    }
    operators.push(endText());
    page.pushOperators(...operators);
  }
}

/** Glyphs drawn left to right from `x`. */
interface Piece {
  x: number;
  glyphs: readonly string[];
}

/** A word of a right-to-left line: its glyphs in logical order and its direction. */
interface Word {
  glyphs: string[];
  ltr?: boolean;
}

/**
 * Places the words of a right-to-left line as Word does: in logical order in the content stream,
 * each word left of the one before it and drawn left to right (a right-to-left word's glyphs in
 * visual order), a space between words. PDFium gives the characters back in logical order.
 */
const rtlLine = (words: readonly Word[], right: number, size: number): Piece[] => {
  const advance = (GLYPH_WIDTH / 1000) * size;
  const pieces: Piece[] = [];
  let cursor = right;
  for (const word of words) {
    const left = cursor - word.glyphs.length * advance;
    pieces.push({ x: left, glyphs: word.ltr ? word.glyphs : word.glyphs.slice().reverse() });
    pieces.push({ x: left - advance, glyphs: [' '] });
    cursor = left - advance;
  }
  return pieces;
};

const letters = (word: string): string[] => Array.from(word);

describe('right-to-left text', () => {
  it('reads an Arabic line in logical order, ligatures and words whole', async () => {
    // Arrange: "السلام عليكم" with a lam-alef ligature glyph, and a second line.
    const doc = await PDFDocument.create();
    const page = doc.addPage([612, 792]);
    const first: Word[] = [{ glyphs: ['ا', 'ل', 'س', 'لا', 'م'] }, { glyphs: letters('عليكم') }];
    const second: Word[] = [{ glyphs: letters('مرحبا') }, { glyphs: letters('بالعالم') }];
    const font = new MappedFont(
      doc,
      page,
      [...first, ...second].flatMap((w) => w.glyphs),
    );
    font.draw(page, rtlLine(first, 540, 12), 700, 12);
    font.draw(page, rtlLine(second, 540, 12), 684, 12);
    // Act
    const markdown = await pdfiumMarkdownOf(await doc.save());
    // Assert
    expect(markdown).toBe('السلام عليكم مرحبا بالعالم');
  });

  it('keeps left-to-right words in their order inside a right-to-left line', async () => {
    // Arrange: "تعتبر لغة R و Python مفيدة".
    const doc = await PDFDocument.create();
    const page = doc.addPage([612, 792]);
    const words: Word[] = [
      { glyphs: letters('تعتبر') },
      { glyphs: letters('لغة') },
      { glyphs: ['R'], ltr: true },
      { glyphs: ['و'] },
      { glyphs: letters('Python'), ltr: true },
      { glyphs: letters('مفيدة') },
    ];
    const font = new MappedFont(
      doc,
      page,
      words.flatMap((w) => w.glyphs),
    );
    font.draw(page, rtlLine(words, 540, 12), 700, 12);
    const bytes = await doc.save();
    // Act
    const pdfium = await pdfiumMarkdownOf(bytes);
    const pdfjs = await pdfjsMarkdownOf(bytes);
    // Assert
    expect(pdfium).toBe('تعتبر لغة R و Python مفيدة');
    expect(pdfjs).toBe('تعتبر لغة R و Python مفيدة');
  });

  it('folds Arabic presentation forms to their letters', async () => {
    // Arrange: "سلام" drawn with presentation forms (the lam-alef ligature U+FEFC is one code).
    const doc = await PDFDocument.create();
    const page = doc.addPage([612, 792]);
    const words: Word[] = [
      { glyphs: ['\ufeb3', '\ufefc', '\ufee1'] },
      { glyphs: letters('عليكم') },
    ];
    const font = new MappedFont(
      doc,
      page,
      words.flatMap((w) => w.glyphs),
    );
    font.draw(page, rtlLine(words, 540, 12), 700, 12);
    // Act
    const markdown = await pdfiumMarkdownOf(await doc.save());
    // Assert
    expect(markdown).toBe('سلام عليكم');
  });

  it('scores the Arabic paper of the papers corpus at least 0.8 and finds its heading', async () => {
    // Arrange
    const id = 'docling-right_to_left_01';
    const dir = mkdtempSync(join(tmpdir(), 'rtl-score-'));
    try {
      const markdown = await pdfiumMarkdownOf(readFileSync(join(PAPERS, `files/${id}.pdf`)));
      writeFileSync(join(dir, `${id}.md`), markdown);
      // The scorer reads ground truth relative to the manifest.
      const manifestPath = join(dir, 'manifest.json');
      const gt = relative(dir, join(PAPERS, `gt/${id}.md`));
      writeFileSync(
        manifestPath,
        JSON.stringify({ name: 'papers', documents: [{ id, format: 'pdf', pages: 1, gt }] }),
      );
      // Act
      const scored = spawnSync(
        process.execPath,
        [
          join(SHARED, 'bench/score.mjs'),
          '--manifest',
          manifestPath,
          '--pred',
          dir,
          '--json',
          join(dir, 'scores.json'),
          '--quiet',
        ],
        { encoding: 'utf8' },
      );
      // Assert
      expect(scored.status, scored.stderr).toBe(0);
      const scores = JSON.parse(readFileSync(join(dir, 'scores.json'), 'utf8')) as {
        documents: { text: number; heading: number }[];
      };
      expect(scores.documents[0]?.text).toBeGreaterThanOrEqual(0.8);
      expect(markdown).toMatch(
        /^#+ تحسين الإنتاجية وحل المشكلات من خلال البرمجة بلغة R و Python$/m,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('accents drawn as glyphs of their own', () => {
  it('composes a spacing accent with the letter it is drawn over, before or after it', async () => {
    // Arrange: TeX draws `\"o` as `¨` then a kern back then `o`, in one text object (Linköping);
    // an accent in a text object of its own (Zürich: PDFium gives it after the line), and an
    // accent after its letter (Mānoa); a spacing accent standing alone stays.
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.TimesRoman);
    const page = doc.addPage([612, 792]);
    const size = 12;
    const units = (text: string) => font.widthOfTextAtSize(text, 1000);
    const width = (text: string) => font.widthOfTextAtSize(text, size);
    const centring = (units('o') - units('¨')) / 2;
    page.pushOperators(
      beginText(),
      setFontAndSize(page.node.newFontDictionary(font.name, font.ref).asString().slice(1), size),
      moveText(72, 700),
      PDFOperator.of(PDFOperatorNames.ShowTextAdjusted, [
        doc.context.obj([
          font.encodeText('Link'),
          PDFNumber.of(-centring),
          font.encodeText('¨'),
          PDFNumber.of(centring + units('¨')),
          font.encodeText('oping University'),
        ]),
      ]),
      endText(),
    );
    page.drawText('Z', { x: 72, y: 680, size, font });
    page.drawText('¨', { x: 72 + width('Z') + (width('u') - width('¨')) / 2, y: 680, size, font });
    page.drawText('urich is a city.', { x: 72 + width('Z'), y: 680, size, font });
    page.drawText('Ma', { x: 72, y: 660, size, font });
    page.drawText('¯', { x: 72 + width('M') + (width('a') - width('¯')) / 2, y: 660, size, font });
    page.drawText('noa is in Hawaii.', { x: 72 + width('Ma'), y: 660, size, font });
    page.drawText('Press the ´ key.', { x: 72, y: 640, size, font });
    // Act
    const markdown = await pdfiumMarkdownOf(await doc.save());
    // Assert
    expect(markdown).toContain('Linköping University');
    expect(markdown).toContain('Zürich is a city.');
    expect(markdown).toContain('Mānoa is in Hawaii.');
    expect(markdown).toContain('Press the ´ key.');
  });
});
