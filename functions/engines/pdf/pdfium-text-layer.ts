import { flowsLeft, hasRtl } from '../layout/bidi.js';
import type { TextRun } from '../layout/types.js';
import { texControlChar, texFamily, type TexFamily } from '../math/tex-fonts.js';
import { fontStyle, type FontStyle } from './font-style.js';
import { apply, isFormatControl, isGarbage, multiply, type Matrix } from './page-geometry.js';
import type { Pdfium } from './pdfium.js';

/** PDF font descriptor flags (ISO 32000-1, table 123). */
const FONT_FLAG = {
  FIXED_PITCH: 1 << 0,
  ITALIC: 1 << 6,
  SMALL_CAP: 1 << 17,
  FORCE_BOLD: 1 << 18,
} as const;

/**
 * Largest horizontal gap (in em) inside one run; wider gaps start a new run (table cells, tab
 * stops). As in pdf.js' text content, a run continues across text objects of the same font on
 * the same baseline, so that a justified line stays one run.
 */
const RUN_GAP_EM = 0.6;
/** The same across an explicit space character, whose own advance is not in the gap. */
const SPACED_GAP_EM = 0.85;
/** A gap (in em) inside a run with no space character that still separates words. */
const WORD_GAP_EM = 0.25;
/**
 * Narrowest gap (in em) between glyph boxes that a space inferred by PDFium keeps in a
 * fixed-pitch font, whose space is a whole advance (about 0.5 em): LaTeX listings set tokens
 * (`console`, `.`, `log`, `(`) a few tenths of a point apart, and PDFium reads each step as a space.
 */
const FIXED_PITCH_SPACE_EM = 0.3;
/**
 * Most CMEX text objects left out of the text page that are looked at per page, and most glyphs
 * made of them: a TeX page has a few `\Bigg(`; a page of thousands of such objects (each its own
 * run, which layout compares with every other) would cost minutes.
 */
const MAX_UNLISTED_EXTENSION_OBJECTS = 2_000;
const MAX_UNLISTED_EXTENSION_GLYPHS = 100;
/**
 * Distance (in em) within which an unlisted CMEX object's box centre lies from a glyph already
 * read to be a copy of it: PDFium leaves out a glyph drawn again over itself (a poor man's bold
 * draws it three times a fraction of a point apart), and its object then has no text either.
 */
const OVERPRINT_EM = 0.25;

/** What every character of one text object shares. */
interface TextObjectInfo {
  fontName: string;
  style: FontStyle;
  /** The TeX family of the font (`other` for non-TeX fonts). */
  texFamily: TexFamily;
  /** Ascent and descent of the font in em (descent negative). */
  ascent: number;
  descent: number;
  /** Font size in pixels (the em square on the page image). */
  fontSize: number;
  /** Text runs left to right on the page image. */
  upright: boolean;
  /** Direction of the text on the page image in degrees, counter-clockwise (0 when upright). */
  rotation: number;
  /** Unit vector of the text's direction on the page image (y down). */
  dx: number;
  dy: number;
  /** Render mode 3 (invisible) or 7 (clip only). */
  invisible: boolean;
}

/** A font's name, style flags and vertical metrics. */
interface FontInfo {
  name: string;
  style: FontStyle;
  texFamily: TexFamily;
  ascent: number;
  descent: number;
}

/**
 * A run being built from consecutive characters. Its text is in visual order (left to right as
 * drawn): right-to-left text, which producers write in logical order, grows leftwards and each of
 * its glyphs is put in front of the text (the layout puts lines back in logical order).
 */
interface OpenRun {
  text: string;
  /** Box of the last glyph added (a decomposed ligature repeats its box). */
  lastX0: number;
  lastX1: number;
  /** The characters of the last glyph added, in the order the producer gave them. */
  glyph: string;
  /** Glyphs added. */
  glyphs: number;
  /** Glyphs are added right to left, each in front of the text. */
  leftward: boolean;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  baseline: number;
  info: TextObjectInfo;
  /** The last character was a space (real or generated). */
  spaced: boolean;
  /** That space was inferred by PDFium, not drawn. */
  spaceGenerated: boolean;
}

/** Rotated text being gathered into one run (see {@link TextRun.rotation}). */
interface OpenRotatedRun {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  info: TextObjectInfo;
  /** Origin of the last glyph added, in pixels. */
  ox: number;
  oy: number;
}

/**
 * Largest step (in em) along the baseline from one rotated glyph's origin to the next that
 * keeps them in one run: a glyph's advance plus a word space; wider steps start a new run.
 */
const ROTATED_STEP_EM = 1.6;
/** Largest offset (in em) across the baseline between consecutive glyphs of one rotated run. */
const ROTATED_DRIFT_EM = 0.3;

/**
 * Compatibility characters folded to their NFKC form, as viewers do when copying text:
 * ligatures (ﬁ → fi), the ohm sign, odd spaces, Arabic and Hebrew presentation forms.

 */
const COMPATIBILITY =
  /[\u00a0\u00b5\u037e\u2000-\u200a\u202f\u2126\ufb00-\ufb04\ufb06-\ufdff\ufe70-\ufefe]+/gu;

/** The text of one Unicode code point from PDFium (0 and invalid values become U+FFFD). */
const charText = (code: number): string =>
  code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
    ? String.fromCodePoint(code)
    : '\uFFFD';

const isSpaceCode = (code: number): boolean =>
  code === 0x20 || code === 0xa0 || code === 0x09 || (code >= 0x2000 && code <= 0x200b);

/** Arabic and Hebrew presentation forms, folded to their base letters (NFKC) glyph by glyph. */
const RTL_PRESENTATION = /[\ufb1d-\ufdff\ufe70-\ufefc]/u;

/**
 * The text of one glyph in visual order. A decomposed lam-alef ligature whose characters come
 * alef first was mapped in visual order by its producer (alef never joins the letter after it,
 * so no ligature reads alef-lam): it reads lam-alef. A right-to-left glyph of several characters
 * (a ligature) is reversed.
 */
const visualGlyph = (glyph: string): string => {
  if (glyph.length === 1) return glyph;
  const logical = glyph.replace(/^([\u0622\u0623\u0625\u0627])(\u0644)$/u, '$2$1');
  const chars = Array.from(logical);
  return chars.length > 1 && hasRtl(logical) ? chars.reverse().join('') : logical;
};

/**
 * Spacing accents (as TeX draws them, a glyph of their own over or under the letter) and the
 * combining marks they stand for.
 */
const SPACING_ACCENTS: ReadonlyMap<number, string> = new Map([
  [0x005e, '\u0302'], // ^
  [0x0060, '\u0300'], // `
  [0x007e, '\u0303'], // ~
  [0x00a8, '\u0308'], // ¨
  [0x00af, '\u0304'], // ¯
  [0x00b4, '\u0301'], // ´
  [0x00b8, '\u0327'], // ¸
  [0x02c6, '\u0302'], // ˆ
  [0x02c7, '\u030c'], // ˇ
  [0x02c9, '\u0304'], // ˉ
  [0x02ca, '\u0301'], // ˊ
  [0x02cb, '\u0300'], // ˋ
  [0x02d8, '\u0306'], // ˘
  [0x02d9, '\u0307'], // ˙
  [0x02da, '\u030a'], // ˚
  [0x02db, '\u0328'], // ˛
  [0x02dc, '\u0303'], // ˜
  [0x02dd, '\u030b'], // ˝
]);

/** A letter and the combining mark of an accent drawn over (or under) it, composed (NFC). */
const withAccent = (letter: string, mark: string): string => {
  // TeX accents i and j without their dot (\'{\i}): the dotless letter takes a mark above.
  const above = mark !== '\u0327' && mark !== '\u0328';
  const base = above ? letter.replace('\u0131', 'i').replace('\u0237', 'j') : letter;
  return (base + mark).normalize('NFC');
};

/** Width of the horizontal overlap of two intervals (0 when they do not overlap). */
const overlap = (a0: number, a1: number, b0: number, b1: number): number =>
  Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));

/** Share of the narrower box that an accent must cover to sit on a letter. */
const ACCENT_OVERLAP = 0.5;

/** Accents and marks drawn as glyphs of their own, each placed on a letter. */
interface PlacedAccents {
  /** Combining marks to add to the letter at an index. */
  marks: Map<number, string>;
  /** Indices of the accents and marks placed on a letter (left out of the runs). */
  placed: Set<number>;
}

/** How far (in characters of PDFium's order) a letter is looked for around its accent. */
const ACCENT_REACH = 200;

/**
 * Finds the letter each spacing accent (as TeX draws them: `¨` at the place of the `o` it goes
 * over) or separately drawn combining mark sits on: the letter on the same line whose box it
 * covers most, if it covers at least half of the narrower of the two. PDFium does not always
 * give the accent next to its letter (an accent in a text object of its own comes after the
 * line), so letters are looked for on both sides.
 */
const placeAccents = (
  codes: Int32Array,
  generated: Uint8Array,
  boxOf: (index: number) => [number, number, number, number] | null,
): PlacedAccents => {
  const count = codes.length;
  const result: PlacedAccents = { marks: new Map(), placed: new Set() };
  const markOf = (index: number): string | undefined => {
    const code = codes[index] ?? 0;
    if (generated[index] === 1 || code < 0x5e) return undefined;
    const spacing = SPACING_ACCENTS.get(code);
    if (spacing !== undefined) return spacing;
    // Combining marks start at U+0300.
    if (code < 0x300) return undefined;
    const text = charText(code);
    return /^\p{Mn}$/u.test(text) ? text : undefined;
  };
  const boxes = new Map<number, [number, number, number, number] | null>();
  const cachedBox = (index: number) => {
    if (!boxes.has(index)) boxes.set(index, boxOf(index));
    return boxes.get(index) ?? null;
  };
  for (let i = 0; i < count; i++) {
    const mark = markOf(i);
    if (mark === undefined) continue;
    const accent = cachedBox(i);
    if (!accent) continue;
    let best = -1;
    let bestCover = ACCENT_OVERLAP;
    const from = Math.max(0, i - ACCENT_REACH);
    const to = Math.min(count - 1, i + ACCENT_REACH);
    for (let j = from; j <= to; j++) {
      if (j === i || generated[j] === 1 || !/^\p{L}$/u.test(charText(codes[j] ?? 0))) continue;
      const box = cachedBox(j);
      if (!box) continue;
      // On the same line: the boxes (ascent to descent) share most of their height.
      const lower = Math.min(accent[3] - accent[2], box[3] - box[2]);
      if (overlap(accent[2], accent[3], box[2], box[3]) < 0.5 * lower) continue;
      const narrower = Math.min(accent[1] - accent[0], box[1] - box[0]);
      const cover = overlap(accent[0], accent[1], box[0], box[1]) / Math.max(1e-6, narrower);
      if (cover > bestCover || (cover === bestCover && Math.abs(j - i) < Math.abs(best - i))) {
        best = j;
        bestCover = cover;
      }
    }
    if (best < 0) continue;
    result.marks.set(best, (result.marks.get(best) ?? '') + mark);
    result.placed.add(i);
  }
  return result;
};

/** What the text layer of one page holds: runs (upright and rotated), counts and the raw text. */
export interface PageTextResult {
  runs: TextRun[];
  chars: number;
  garbageChars: number;
  mathChars: number;
  glyphs: number;
  invisibleGlyphs: number;
  fonts: string[];
  rawText: string;
}

type CharBox = [number, number, number, number];

/** A combining mark (general category M), which sits on the letter before it. */
const isCombiningMark = (code: number): boolean =>
  code >= 0x300 && code <= 0x10ffff && /\p{M}/u.test(String.fromCodePoint(code));

/** A letter (general category L). */
const isLetterCode = (code: number): boolean =>
  code < 0x80
    ? (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)
    : code <= 0x10ffff && /\p{L}/u.test(String.fromCodePoint(code));

/**
 * Reads the text layer of one loaded PDFium page: runs (upright and rotated) in pixels of the
 * page image (`toPixels` maps PDF points to it), glyph counts and the raw text in PDFium's order.
 * An empty result when PDFium cannot load the page's text.
 */
/** A page object and the matrix of its parent (the page's, into pixels, or a form's). */
export interface PlacedObject {
  object: number;
  parent: Matrix;
}

export const readTextLayer = (
  pdfium: Pdfium,
  page: number,
  toPixels: Matrix,
  textObjects: readonly PlacedObject[] = [],
): PageTextResult => {
  const textPage = pdfium.fn.FPDFText_LoadPage(page);
  if (textPage === 0) {
    return {
      runs: [],
      chars: 0,
      garbageChars: 0,
      mathChars: 0,
      glyphs: 0,
      invisibleGlyphs: 0,
      fonts: [],
      rawText: '',
    };
  }
  try {
    return new TextLayerReader(pdfium, textPage, toPixels).read(textObjects);
  } finally {
    pdfium.fn.FPDFText_ClosePage(textPage);
  }
};

/**
 * The state of one page's reading, character by character. One method per kind of step keeps
 * each compiled unit small: a page's first characters and its rare paths (rotated text,
 * right-to-left runs, ligatures) cost a small method's recompilation, not the whole reader's.
 */
class TextLayerReader {
  readonly #pdfium: Pdfium;
  readonly #textPage: number;
  readonly #toPixels: Matrix;
  readonly #runs: TextRun[] = [];
  readonly #raw: string[] = [];
  readonly #fonts = new Set<string>();
  readonly #objects = new Map<number, TextObjectInfo>();
  /** Indices of the text page's characters in a TeX extension font (CMEX). */
  readonly #extensionChars: number[] = [];
  readonly #fontStyles = new Map<number, FontInfo>();
  #open: OpenRun | undefined = undefined;
  #rotated: OpenRotatedRun | undefined = undefined;
  #chars = 0;
  #garbageChars = 0;
  #mathChars = 0;
  #glyphs = 0;
  #invisibleGlyphs = 0;
  /** Whether the last character counted was a letter (or a mark on one), that a mark sits on. */
  #afterBase = false;

  constructor(pdfium: Pdfium, textPage: number, toPixels: Matrix) {
    this.#pdfium = pdfium;
    this.#textPage = textPage;
    this.#toPixels = toPixels;
  }

  read(textObjects: readonly PlacedObject[]): PageTextResult {
    const lib = this.#pdfium.fn;
    const count = lib.FPDFText_CountChars(this.#textPage);
    const codes = new Int32Array(Math.max(0, count));
    const generated = new Uint8Array(Math.max(0, count));
    for (let i = 0; i < count; i++) {
      codes[i] = lib.FPDFText_GetUnicode(this.#textPage, i);
      generated[i] = lib.FPDFText_IsGenerated(this.#textPage, i) === 1 ? 1 : 0;
    }
    const accents = placeAccents(codes, generated, (index) => this.#boxOf(index));
    for (let i = 0; i < count; i++) {
      const code = codes[i] ?? 0;
      if (generated[i] === 1) this.#addGenerated(code);
      else this.#addChar(i, code, accents);
    }
    this.#flush();
    this.#flushRotated();
    this.#addUnlistedExtensionGlyphs(textObjects);
    return {
      runs: this.#runs,
      chars: this.#chars,
      garbageChars: this.#garbageChars,
      mathChars: this.#mathChars,
      glyphs: this.#glyphs,
      invisibleGlyphs: this.#invisibleGlyphs,
      fonts: [...this.#fonts],
      rawText: this.#raw
        .join('')
        .replace(/[ \t]+\n/g, '\n')
        .trim(),
    };
  }

  /** A space or line break PDFium infers from positions. */
  #addGenerated(code: number): void {
    if (code === 0x0a) this.#raw.push('\n');
    else if (code !== 0x0d) this.#raw.push(' ');
    const rotated = this.#rotated;
    if (rotated && code === 0x20 && !rotated.text.endsWith(' ')) rotated.text += ' ';
    const open = this.#open;
    if (open) {
      if (code === 0x20) open.text = open.leftward ? ` ${open.text}` : `${open.text} `;
      open.spaced = true;
      open.spaceGenerated = code === 0x20;
    }
  }

  /** A character drawn on the page: counted, then added to the open run or a new one. */
  #addChar(i: number, code: number, accents: PlacedAccents): void {
    const lib = this.#pdfium.fn;
    const object = lib.FPDFText_GetTextObject(this.#textPage, i);
    if (object === 0) return;
    const info = this.#infoOf(object, i);
    if (info.texFamily === 'extension') this.#extensionChars.push(i);
    // PDFium marks a hyphen that ends a line as U+0002. A TeX math font without a ToUnicode map
    // gives its glyphs' codes: those that would read as white space (0x09–0x0D: CMSY's ⊙, ⊗...,
    // CMMI's α, β, γ, Ψ, Ω; CMEX's 0x20, the largest `(`) are read as their glyphs; the LaTeX is
    // rebuilt from the others' codes.
    const unicode =
      code === 0x02 && lib.FPDFText_IsHyphen(this.#textPage, i) === 1
        ? 0x2d
        : (code >= 0x09 && code <= 0x0d) || code === 0x20
          ? (texControlChar(code, info.texFamily)?.codePointAt(0) ?? code)
          : code;
    // A small-caps font draws its lowercase codes as capitals: read what is printed.
    const original = info.style.smallCaps ? charText(unicode).toUpperCase() : charText(unicode);
    this.#raw.push(original);
    this.#glyphs++;
    if (info.invisible) this.#invisibleGlyphs++;
    const space = isSpaceCode(unicode);
    if (space) this.#afterBase = false;
    else this.#count(i, unicode, info);
    // Bidirectional overrides and zero-width controls print nothing (see isFormatControl).
    if (isFormatControl(unicode)) return;
    let text = RTL_PRESENTATION.test(original) ? original.normalize('NFKC') : original;
    const marks = accents.marks.get(i);
    if (marks !== undefined) text = withAccent(text, marks);
    if (info.fontSize < 0.5) {
      this.#flush();
      this.#flushRotated();
      return;
    }
    if (accents.placed.has(i)) return;
    if (!info.upright) {
      this.#flush();
      if (!space) this.#addRotated(text, info, i);
      else if (this.#rotated && !this.#rotated.text.endsWith(' ')) this.#rotated.text += ' ';
      return;
    }
    this.#flushRotated();
    if (space) {
      const open = this.#open;
      if (open) {
        open.text = open.leftward ? ` ${open.text}` : `${open.text} `;
        open.spaced = true;
        open.spaceGenerated = false;
      }
      return;
    }
    this.#addUpright(i, code, text, info);
  }

  /**
   * Counts a drawn character that is not a space: garbage (a combining mark with no letter
   * before it to sit on counts too: a text layer of lone accents reads as nothing), math, its
   * font.
   */
  #count(i: number, unicode: number, info: TextObjectInfo): void {
    this.#chars++;
    const mark = isCombiningMark(unicode);
    if (
      (mark && !this.#afterBase) ||
      isGarbage(unicode) ||
      this.#pdfium.fn.FPDFText_HasUnicodeMapError(this.#textPage, i) === 1
    ) {
      this.#garbageChars++;
    }
    if (!mark) this.#afterBase = isLetterCode(unicode);
    if (info.style.math) this.#mathChars++;
    this.#fonts.add(info.fontName);
  }

  /** An upright glyph: continues the open run (rightwards, leftwards or on its glyph) or starts one. */
  #addUpright(i: number, code: number, text: string, info: TextObjectInfo): void {
    const box = this.#boxOf(i);
    if (!box) return;
    const x0 = box[0];
    const x1 = box[1];
    const em = info.fontSize;
    let baseline = box[3] + info.descent * em;
    const pdfium = this.#pdfium;
    if (pdfium.fn.FPDFText_GetCharOrigin(this.#textPage, i, pdfium.scratch, pdfium.scratch + 8)) {
      baseline = apply(
        this.#toPixels,
        pdfium.f64(pdfium.scratch),
        pdfium.f64(pdfium.scratch + 8),
      )[1];
    }
    // The box spans the font's ascent and descent around the baseline, like pdf.js' text boxes.
    const y0 = baseline - info.ascent * em;
    const y1 = baseline - info.descent * em;
    if (!(
      Number.isFinite(x0) &&
      Number.isFinite(x1) &&
      Number.isFinite(y0) &&
      Number.isFinite(y1)
    )) {
      return;
    }
    const open = this.#open;
    if (open) {
      const step = continueRun(open, code, text, em, info, x0, x1, baseline);
      if (step === STEP.ON_GLYPH) return;
      if (step === STEP.ADDED) {
        open.glyph = text;
        open.glyphs++;
        open.lastX0 = x0;
        open.lastX1 = x1;
        open.x0 = Math.min(open.x0, x0);
        open.x1 = Math.max(open.x1, x1);
        open.y0 = Math.min(open.y0, y0);
        open.y1 = Math.max(open.y1, y1);
        open.spaced = false;
        open.spaceGenerated = false;
        return;
      }
      this.#flush();
    }
    this.#open = {
      text: visualGlyph(text),
      glyph: text,
      glyphs: 1,
      leftward: false,
      lastX0: x0,
      lastX1: x1,
      x0,
      y0,
      x1,
      y1,
      baseline,
      info,
      spaced: false,
      spaceGenerated: false,
    };
  }

  /** Adds a glyph of rotated text, continuing the open rotated run when it steps along it. */
  #addRotated(text: string, info: TextObjectInfo, index: number): void {
    const box = this.#boxOf(index);
    if (!box) return;
    let ox = (box[0] + box[1]) / 2;
    let oy = (box[2] + box[3]) / 2;
    const pdfium = this.#pdfium;
    if (
      pdfium.fn.FPDFText_GetCharOrigin(this.#textPage, index, pdfium.scratch, pdfium.scratch + 8)
    ) {
      [ox, oy] = apply(this.#toPixels, pdfium.f64(pdfium.scratch), pdfium.f64(pdfium.scratch + 8));
    }
    if (!(Number.isFinite(ox) && Number.isFinite(oy))) return;
    let rotated = this.#rotated;
    if (rotated && !stepsAlong(rotated, info, ox, oy)) {
      this.#flushRotated();
      rotated = undefined;
    }
    if (rotated) {
      rotated.text += text;
      rotated.x0 = Math.min(rotated.x0, box[0]);
      rotated.x1 = Math.max(rotated.x1, box[1]);
      rotated.y0 = Math.min(rotated.y0, box[2]);
      rotated.y1 = Math.max(rotated.y1, box[3]);
      rotated.ox = ox;
      rotated.oy = oy;
    } else {
      this.#rotated = { text, x0: box[0], x1: box[1], y0: box[2], y1: box[3], info, ox, oy };
    }
  }

  /** Ends the open upright run: kept when it holds more than spaces. */
  #flush(): void {
    const open = this.#open;
    if (!open) return;
    this.#open = undefined;
    const text = open.text.replace(COMPATIBILITY, (run) => run.normalize('NFKC'));
    if (text.trim() === '') return;
    this.#runs.push(textRun(text, open, open.baseline, open.info));
  }

  /** Ends the open rotated run: kept when it holds more than spaces. */
  #flushRotated(): void {
    const rotated = this.#rotated;
    if (!rotated) return;
    this.#rotated = undefined;
    const text = rotated.text.replace(COMPATIBILITY, (run) => run.normalize('NFKC')).trim();
    if (text === '') return;
    const run = textRun(text.replace(/\s+/g, ' '), rotated, rotated.y1, rotated.info);
    run.rotation = rotated.info.rotation;
    this.#runs.push(run);
  }

  /**
   * Glyphs of a TeX extension font (CMEX) that the text page leaves out: code 0x20, the largest
   * `(` (`\Bigg(`), reads as a space, which PDFium keeps as no character. A CMEX text object that
   * no character of the text page belongs to and whose text is empty or that space becomes a run of
   * the glyph (U+2420, see `texControlChar`) over the object's bounds, on its origin's baseline.
   * (`FPDFTextObj_GetText` reads the text page, so any object it left out reads as empty: one
   * drawn over a glyph already read, a copy, is skipped; see {@link OVERPRINT_EM}. At most
   * {@link MAX_UNLISTED_EXTENSION_GLYPHS} glyphs a page.)
   */
  #addUnlistedExtensionGlyphs(textObjects: readonly PlacedObject[]): void {
    const pdfium = this.#pdfium;
    const { fn: lib, scratch } = pdfium;
    /** Box centres (pixels) of the CMEX glyphs read: the text page's, then these. */
    let drawn: CentreGrid | undefined;
    let examined = 0;
    let added = 0;
    for (const { object, parent } of textObjects) {
      if (this.#objects.has(object)) continue;
      const font = this.#fontOf(object);
      if (font.texFamily !== 'extension') continue;
      if (++examined > MAX_UNLISTED_EXTENSION_OBJECTS || added >= MAX_UNLISTED_EXTENSION_GLYPHS) {
        break;
      }
      drawn ??= this.#extensionGlyphCentres();
      const bytes = lib.FPDFTextObj_GetText(object, this.#textPage, scratch + 64, 64);
      if (bytes <= 0 || bytes > 64 || pdfium.utf16(scratch + 64, bytes).trim() !== '') continue;
      if (!lib.FPDFTextObj_GetFontSize(object, scratch)) continue;
      const size = pdfium.f32(scratch);
      if (!lib.FPDFPageObj_GetMatrix(object, scratch)) continue;
      const own = [0, 4, 8, 12, 16, 20].map((o) => pdfium.f32(scratch + o)) as Matrix;
      if (!lib.FPDFPageObj_GetBounds(object, scratch, scratch + 4, scratch + 8, scratch + 12)) {
        continue;
      }
      const [ax, ay] = apply(parent, pdfium.f32(scratch), pdfium.f32(scratch + 4));
      const [bx, by] = apply(parent, pdfium.f32(scratch + 8), pdfium.f32(scratch + 12));
      const t = multiply(parent, own);
      // Upright text only, as the other glyphs of formulas.
      if (!(t[0] > 0 && Math.abs(t[1]) <= t[0] * 0.1)) continue;
      const baseline = apply(t, 0, 0)[1];
      const box = {
        x0: Math.min(ax, bx),
        x1: Math.max(ax, bx),
        y0: Math.min(ay, by),
        y1: Math.max(ay, by),
      };
      if (![size, baseline, box.x0, box.x1, box.y0, box.y1].every(Number.isFinite)) continue;
      const fontSize = Math.abs(size) * Math.hypot(t[2], t[3]);
      const cx = (box.x0 + box.x1) / 2;
      const cy = (box.y0 + box.y1) / 2;
      const near = OVERPRINT_EM * fontSize;
      if (drawn.has(cx, cy, near)) continue;
      drawn.add(cx, cy);
      added++;
      const info: TextObjectInfo = {
        fontName: font.name,
        style: font.style,
        texFamily: font.texFamily,
        ascent: font.ascent,
        descent: font.descent,
        fontSize,
        upright: true,
        rotation: 0,
        dx: 1,
        dy: 0,
        invisible: false,
      };
      const glyph = texControlChar(0x20, 'extension') ?? ' ';
      this.#runs.push(textRun(glyph, box, baseline, info));
      this.#glyphs++;
      this.#chars++;
      if (font.style.math) this.#mathChars++;
    }
  }

  /** Box centres (pixels) of the CMEX characters of the text page. */
  #extensionGlyphCentres(): CentreGrid {
    const centres = new CentreGrid();
    for (const index of this.#extensionChars) {
      const box = this.#boxOf(index);
      if (box) centres.add((box[0] + box[1]) / 2, (box[2] + box[3]) / 2);
    }
    return centres;
  }

  /** The box of character `index` on the page image (left, right, top, bottom), if any. */
  #boxOf(index: number): CharBox | null {
    const pdfium = this.#pdfium;
    const { scratch } = pdfium;
    if (!pdfium.fn.FPDFText_GetLooseCharBox(this.#textPage, index, scratch)) return null;
    const [ax, ay] = apply(this.#toPixels, pdfium.f32(scratch), pdfium.f32(scratch + 4));
    const [bx, by] = apply(this.#toPixels, pdfium.f32(scratch + 8), pdfium.f32(scratch + 12));
    const box: CharBox = [Math.min(ax, bx), Math.max(ax, bx), Math.min(ay, by), Math.max(ay, by)];
    return box.every(Number.isFinite) ? box : null;
  }

  /** What the characters of one text object share, read once per object. */
  #infoOf(object: number, index: number): TextObjectInfo {
    const cached = this.#objects.get(object);
    if (cached) return cached;
    const pdfium = this.#pdfium;
    const { fn: lib, scratch } = pdfium;
    const { name, style, texFamily: family, ascent, descent } = this.#fontOf(object);
    const size = lib.FPDFText_GetFontSize(this.#textPage, index);
    let m: Matrix = [1, 0, 0, 1, 0, 0];
    if (lib.FPDFText_GetMatrix(this.#textPage, index, scratch)) {
      const values = [0, 4, 8, 12, 16, 20].map((o) => pdfium.f32(scratch + o));
      if (values.every(Number.isFinite)) m = values as Matrix;
    }
    const t = multiply(this.#toPixels, m);
    const length = Math.hypot(t[0], t[1]) || 1;
    const mode = lib.FPDFTextObj_GetTextRenderMode(object);
    const info: TextObjectInfo = {
      fontName: name,
      style,
      texFamily: family,
      ascent,
      descent,
      fontSize: Math.abs(size) * Math.hypot(t[2], t[3]),
      // Left to right on the page image: the x axis of the text points right.
      upright: t[0] > 0 && Math.abs(t[1]) <= t[0] * 0.1,
      rotation: ((((Math.atan2(-t[1], t[0]) * 180) / Math.PI) % 360) + 360) % 360,
      dx: t[0] / length,
      dy: t[1] / length,
      invisible: mode === 3 || mode === 7,
    };
    this.#objects.set(object, info);
    return info;
  }

  /** A font's name, style and vertical metrics, read once per font. */
  #fontOf(object: number): FontInfo {
    const pdfium = this.#pdfium;
    const { fn: lib, scratch } = pdfium;
    const font = lib.FPDFTextObj_GetFont(object);
    const cached = this.#fontStyles.get(font);
    if (cached) return cached;
    let name = '';
    const length = font === 0 ? 0 : lib.FPDFFont_GetBaseFontName(font, scratch + 64, 128);
    if (length > 0 && length <= 128) name = pdfium.utf8(scratch + 64, 128);
    const flags = font === 0 ? 0 : Math.max(0, lib.FPDFFont_GetFlags(font));
    const weight = font === 0 ? -1 : lib.FPDFFont_GetWeight(font);
    const byName = fontStyle(name);
    const style = fontStyle(name, {
      bold: (flags & FONT_FLAG.FORCE_BOLD) !== 0 || weight >= 700,
      // Math italic fonts carry the italic flag; their letters are not emphasis.
      italic: !byName.math && (flags & FONT_FLAG.ITALIC) !== 0,
      monospace: (flags & FONT_FLAG.FIXED_PITCH) !== 0,
      smallCaps: (flags & FONT_FLAG.SMALL_CAP) !== 0,
    });
    // Vertical metrics per em, kept to plausible values (as pdf.js does for its text boxes).
    const ascent = font !== 0 && lib.FPDFFont_GetAscent(font, 1, scratch) ? pdfium.f32(scratch) : 0;
    const descent =
      font !== 0 && lib.FPDFFont_GetDescent(font, 1, scratch) ? pdfium.f32(scratch) : 0;
    const entry: FontInfo = {
      name,
      style,
      texFamily: texFamily(name),
      ascent: ascent > 0.5 && ascent < 1.5 ? ascent : 0.8,
      descent: descent < 0 && descent > -0.6 ? descent : -0.2,
    };
    this.#fontStyles.set(font, entry);
    return entry;
  }
}

/** Points (pixels) in square cells, to find one near another without comparing with all. */
class CentreGrid {
  /** Side of a cell, in pixels. */
  static readonly CELL = 16;
  readonly #cells = new Map<string, [number, number][]>();

  add(x: number, y: number): void {
    const key = `${String(Math.floor(x / CentreGrid.CELL))},${String(Math.floor(y / CentreGrid.CELL))}`;
    const cell = this.#cells.get(key);
    if (cell) cell.push([x, y]);
    else this.#cells.set(key, [[x, y]]);
  }

  /** Whether a point lies within `near` pixels of (x, y) on both axes (`near` up to 2 cells). */
  has(x: number, y: number, near: number): boolean {
    const reach = Math.min(near, 2 * CentreGrid.CELL);
    const cx = Math.floor(x / CentreGrid.CELL);
    const cy = Math.floor(y / CentreGrid.CELL);
    for (let i = cx - 2; i <= cx + 2; i++) {
      for (let j = cy - 2; j <= cy + 2; j++) {
        const cell = this.#cells.get(`${String(i)},${String(j)}`);
        if (cell?.some(([px, py]) => Math.abs(px - x) <= reach && Math.abs(py - y) <= reach)) {
          return true;
        }
      }
    }
    return false;
  }
}

/** A run of `text` over `box` (left, top, right, bottom in pixels) in the font of `info`. */
const textRun = (
  text: string,
  box: { x0: number; y0: number; x1: number; y1: number },
  baseline: number,
  info: TextObjectInfo,
): TextRun => ({
  text,
  x: box.x0,
  y: box.y0,
  w: box.x1 - box.x0,
  h: box.y1 - box.y0,
  baseline,
  fontSize: info.fontSize,
  fontName: info.fontName,
  bold: info.style.bold,
  italic: info.style.italic,
  monospace: info.style.monospace,
});

/** What {@link continueRun} did with a glyph. */
const STEP = {
  /** Joined to the run's last glyph (a decomposed ligature, a mark on a right-to-left glyph). */
  ON_GLYPH: 0,
  /** Added to the run's text, rightwards or leftwards: the run's box and last glyph follow. */
  ADDED: 1,
  /** Does not continue the run. */
  NEW_RUN: 2,
} as const;

/**
 * Adds an upright glyph (box `x0`..`x1`, on `baseline`, font size `em`) to the open run when it
 * continues it: same font and baseline, within the run gap, rightwards, or leftwards for
 * right-to-left text. Returns what it did ({@link STEP}); the run is unchanged for NEW_RUN.
 */
const continueRun = (
  open: OpenRun,
  code: number,
  text: string,
  em: number,
  info: TextObjectInfo,
  x0: number,
  x1: number,
  baseline: number,
): number => {
  const sameFont =
    open.info === info ||
    (open.info.fontName === info.fontName &&
      open.info.style.bold === info.style.bold &&
      open.info.style.italic === info.style.italic &&
      Math.abs(open.info.fontSize - info.fontSize) <= 0.05 * em);
  if (!sameFont || Math.abs(baseline - open.baseline) > 0.1 * em) return STEP.NEW_RUN;
  const limit = (open.spaced ? SPACED_GAP_EM : RUN_GAP_EM) * em;
  // The next character of a decomposed ligature (same box), or a mark drawn on the glyph of a
  // right-to-left run.
  const sameGlyph =
    !open.spaced &&
    ((Math.abs(x0 - open.lastX0) < 0.01 * em && Math.abs(x1 - open.lastX1) < 0.01 * em) ||
      (code >= 0x300 &&
        /^\p{M}+$/u.test(text) &&
        hasRtl(open.glyph) &&
        overlap(x0, x1, open.lastX0, open.lastX1) > 0));
  if (sameGlyph) {
    replaceGlyph(open, open.glyph + text);
    open.x0 = Math.min(open.x0, x0);
    open.x1 = Math.max(open.x1, x1);
    return STEP.ON_GLYPH;
  }
  const leftwards =
    // Starts left of the last glyph; a glyph's box can reach past its advance.
    x0 < open.lastX0 - 0.05 * em &&
    x1 <= open.lastX1 + 0.1 * em &&
    open.x0 - x1 <= limit &&
    flowsLeft(text) &&
    (open.leftward || (open.glyphs === 1 && (hasRtl(text) || hasRtl(open.glyph))));
  if (leftwards) {
    addLeftwards(open, text, em, x1);
    return STEP.ADDED;
  }
  if (!open.leftward && x0 >= open.lastX0 - 0.1 * em && x0 - open.x1 <= limit) {
    if (!open.spaced && x0 - open.x1 > WORD_GAP_EM * em) open.text += ' ';
    if (
      open.spaceGenerated &&
      info.style.monospace &&
      x0 - open.x1 < FIXED_PITCH_SPACE_EM * em &&
      open.text.endsWith(' ')
    ) {
      open.text = open.text.slice(0, -1);
    }
    open.text += visualGlyph(text);
    return STEP.ADDED;
  }
  return STEP.NEW_RUN;
};

/** Puts a right-to-left glyph (right edge `x1`) in front of the run's text, which now grows leftwards. */
const addLeftwards = (open: OpenRun, text: string, em: number, x1: number): void => {
  if (!open.leftward) {
    open.leftward = true;
    open.text = (open.spaced ? ' ' : '') + visualGlyph(open.glyph);
  }
  if (!open.spaced && open.x0 - x1 > WORD_GAP_EM * em) open.text = ` ${open.text}`;
  // PDFium infers a space where a mark on a shifted baseline interrupts a word; joined letters
  // have no gap.
  if (open.spaceGenerated && open.x0 - x1 <= WORD_GAP_EM * em) {
    open.text = open.text.replace(/^ /, '');
  }
  open.text = visualGlyph(text) + open.text;
};

/** Replaces the last glyph of `run` (at its end, or at its start when it grows leftwards). */
const replaceGlyph = (run: OpenRun, glyph: string): void => {
  const old = visualGlyph(run.glyph);
  const next = visualGlyph(glyph);
  run.text = run.leftward
    ? next + run.text.slice(old.length)
    : run.text.slice(0, run.text.length - old.length) + next;
  run.glyph = glyph;
};

/** Whether a rotated glyph with origin (`ox`, `oy`) steps along the open rotated run. */
const stepsAlong = (
  rotated: OpenRotatedRun,
  info: TextObjectInfo,
  ox: number,
  oy: number,
): boolean => {
  const em = Math.max(info.fontSize, rotated.info.fontSize);
  const along = (ox - rotated.ox) * info.dx + (oy - rotated.oy) * info.dy;
  const across = Math.abs((ox - rotated.ox) * info.dy - (oy - rotated.oy) * info.dx);
  return (
    Math.abs(info.rotation - rotated.info.rotation) <= 2 &&
    Math.abs(info.fontSize - rotated.info.fontSize) <= 0.2 * em &&
    along >= -0.1 * em &&
    along <= ROTATED_STEP_EM * em &&
    across <= ROTATED_DRIFT_EM * em
  );
};
