import { DocumentRejectedError } from '../../core/domain/errors.js';
import type { TextRun } from '../layout/types.js';
import { fontStyle, type FontStyle } from './font-style.js';
import {
  apply,
  ImageCollector,
  isGarbage,
  multiply,
  PathOp,
  RuleCollector,
  pageToPixels,
  type Matrix,
} from './page-geometry.js';
import type { ExtractedPage } from './page-text.js';
import type { Pdfium, PdfiumDocument } from './pdfium.js';

/** FPDFPageObj_GetType values (fpdf_edit.h). */
const OBJECT = { PATH: 2, IMAGE: 3, FORM: 5 } as const;
/** FPDFPathSegment_GetType values. */
const SEGMENT = { LINETO: 0, BEZIERTO: 1, MOVETO: 2 } as const;
/** PDF font descriptor flags (ISO 32000-1, table 123). */
const FONT_FLAG = { FIXED_PITCH: 1 << 0, ITALIC: 1 << 6, FORCE_BOLD: 1 << 18 } as const;

/** Most page objects (paths, images, forms, nested) visited per page. */
const MAX_OBJECTS = 400_000;
/** Deepest nesting of form XObjects followed. */
const MAX_FORM_DEPTH = 12;
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

/** What every character of one text object shares. */
interface TextObjectInfo {
  fontName: string;
  style: FontStyle;
  /** Ascent and descent of the font in em (descent negative). */
  ascent: number;
  descent: number;
  /** Font size in pixels (the em square on the page image). */
  fontSize: number;
  /** Text runs left to right on the page image. */
  upright: boolean;
  /** Render mode 3 (invisible) or 7 (clip only). */
  invisible: boolean;
}

/** A font's name, style flags and vertical metrics. */
interface FontInfo {
  name: string;
  style: FontStyle;
  ascent: number;
  descent: number;
}

/** A run being built from consecutive characters. */
interface OpenRun {
  text: string;
  /** Left edge of the last character (a decomposed ligature repeats its box). */
  lastX0: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  baseline: number;
  info: TextObjectInfo;
  /** The last character was a space (real or generated). */
  spaced: boolean;
}

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

/**
 * Reads one page with PDFium: text runs, rule segments and image placements, in pixels of the
 * page image at `dpi` (origin top-left; /Rotate and the crop box handled as a viewer shows the
 * page), with the same statistics as the pdf.js reader ({@link ExtractedPage}).
 *
 * Runs are built from PDFium's characters: a run continues while characters come from the same
 * text object on the same baseline with gaps under 0.3 em (1 em across an explicit space).
 * Fonts give bold, italic and monospace from their PostScript name and descriptor flags. Text
 * that does not run left to right on the page image is counted and kept in the raw text only.
 * Paths are read from the page and from nested form XObjects.
 *
 * @param pageNumber 1-based.
 * @throws {DocumentRejectedError} when the page does not exist or cannot be loaded.
 */
export const extractPdfiumPage = (
  document: PdfiumDocument,
  pageNumber: number,
  dpi: number,
): ExtractedPage => {
  const { pdfium } = document;
  const { fn: lib, scratch } = pdfium;
  if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > document.pageCount) {
    throw new DocumentRejectedError(
      `page ${pageNumber} does not exist; the document has ${document.pageCount} pages`,
    );
  }
  const page = lib.FPDF_LoadPage(document.handle, pageNumber - 1);
  if (page === 0) throw new DocumentRejectedError(`page ${pageNumber} cannot be read`);
  try {
    // The visible area (crop box ∩ media box) as left, top, right, bottom.
    let box: [number, number, number, number] = [0, 0, 612, 792];
    if (lib.FPDF_GetPageBoundingBox(page, scratch)) {
      const [l, t, r, b] = [0, 4, 8, 12].map((o) => pdfium.f32(scratch + o)) as [
        number,
        number,
        number,
        number,
      ];
      if ([l, t, r, b].every(Number.isFinite) && r > l && t > b) box = [l, b, r, t];
    }
    const rotate = Math.max(0, lib.FPDFPage_GetRotation(page)) * 90;
    const toPixels = pageToPixels(box, rotate, dpi);
    const sideways = rotate === 90 || rotate === 270;
    const widthPt = sideways ? box[3] - box[1] : box[2] - box[0];
    const heightPt = sideways ? box[2] - box[0] : box[3] - box[1];
    const width = Math.max(1, Math.round((widthPt * dpi) / 72));
    const height = Math.max(1, Math.round((heightPt * dpi) / 72));

    const rules = new RuleCollector(dpi, width * height);
    const images = new ImageCollector(width, height, dpi);
    const paintedPaths = readObjects(pdfium, page, toPixels, rules, images);
    const text = readText(pdfium, page, toPixels);
    return {
      text: {
        pageNumber,
        width,
        height,
        dpi,
        runs: text.runs,
        rules: rules.rules,
        images: images.images,
      },
      stats: {
        chars: text.chars,
        garbageChars: text.garbageChars,
        mathChars: text.mathChars,
        glyphs: text.glyphs,
        invisibleGlyphs: text.invisibleGlyphs,
        paintedPaths,
        ruleCount: rules.count,
        fonts: text.fonts,
        rawText: text.rawText,
        scanDpi: images.scanDpi,
      },
      widthPt,
      heightPt,
    };
  } finally {
    lib.FPDF_ClosePage(page);
  }
};

/** The FS_MATRIX of a page object, or null when PDFium has none. */
const objectMatrix = (pdfium: Pdfium, object: number): Matrix | null => {
  const { fn: lib, scratch } = pdfium;
  if (!lib.FPDFPageObj_GetMatrix(object, scratch)) return null;
  const m = [0, 4, 8, 12, 16, 20].map((o) => pdfium.f32(scratch + o));
  return m.every(Number.isFinite) ? (m as Matrix) : null;
};

/**
 * Walks the page objects (and those of nested forms): rules from painted paths, image
 * placements. Returns the number of painted (filled or stroked) paths.
 */
const readObjects = (
  pdfium: Pdfium,
  page: number,
  toPixels: Matrix,
  rules: RuleCollector,
  images: ImageCollector,
): number => {
  const { fn: lib, scratch } = pdfium;
  let visited = 0;
  let painted = 0;
  const walk = (
    count: number,
    get: (index: number) => number,
    parent: Matrix,
    depth: number,
  ): void => {
    for (let i = 0; i < count && visited < MAX_OBJECTS; i++) {
      visited++;
      const object = get(i);
      if (object === 0) continue;
      const type = lib.FPDFPageObj_GetType(object);
      if (type !== OBJECT.PATH && type !== OBJECT.IMAGE && type !== OBJECT.FORM) continue;
      const own = objectMatrix(pdfium, object);
      if (!own) continue;
      const matrix = multiply(parent, own);
      const map = (x: number, y: number): [number, number] => apply(matrix, x, y);
      if (type === OBJECT.PATH) {
        if (!lib.FPDFPath_GetDrawMode(object, scratch, scratch + 4)) continue;
        const fill = pdfium.i32(scratch);
        const stroke = pdfium.i32(scratch + 4);
        if (fill === 0 && stroke === 0) continue;
        painted++;
        rules.addPath(pathData(pdfium, object), map);
      } else if (type === OBJECT.IMAGE) {
        const known = lib.FPDFImageObj_GetImagePixelSize(object, scratch, scratch + 4);
        const pixels = known ? pdfium.u32(scratch) * pdfium.u32(scratch + 4) : null;
        images.add(map, pixels);
      } else if (depth < MAX_FORM_DEPTH) {
        walk(
          lib.FPDFFormObj_CountObjects(object),
          (k) => lib.FPDFFormObj_GetObject(object, k),
          matrix,
          depth + 1,
        );
      }
    }
  };
  walk(lib.FPDFPage_CountObjects(page), (k) => lib.FPDFPage_GetObject(page, k), toPixels, 0);
  return painted;
};

/** A path object's segments as a flat {@link PathOp} array in the object's own space. */
const pathData = (pdfium: Pdfium, path: number): number[] => {
  const { fn: lib, scratch } = pdfium;
  const data: number[] = [];
  const count = lib.FPDFPath_CountSegments(path);
  let curve: number[] = [];
  for (let i = 0; i < count; i++) {
    const segment = lib.FPDFPath_GetPathSegment(path, i);
    if (segment === 0 || !lib.FPDFPathSegment_GetPoint(segment, scratch, scratch + 4)) continue;
    const x = pdfium.f32(scratch);
    const y = pdfium.f32(scratch + 4);
    const type = lib.FPDFPathSegment_GetType(segment);
    if (type === SEGMENT.MOVETO) {
      curve = [];
      data.push(PathOp.moveTo, x, y);
    } else if (type === SEGMENT.LINETO) {
      curve = [];
      data.push(PathOp.lineTo, x, y);
    } else if (type === SEGMENT.BEZIERTO) {
      // A cubic Bézier is three BEZIERTO segments: two control points and the end point.
      curve.push(x, y);
      if (curve.length === 6) {
        data.push(PathOp.curveTo, ...curve);
        curve = [];
      }
    }
    if (lib.FPDFPathSegment_GetClose(segment)) data.push(PathOp.closePath);
  }
  return data;
};

interface PageTextResult {
  runs: TextRun[];
  chars: number;
  garbageChars: number;
  mathChars: number;
  glyphs: number;
  invisibleGlyphs: number;
  fonts: string[];
  rawText: string;
}

/** Reads the text layer: runs (upright text only), counts and the raw text. */
const readText = (pdfium: Pdfium, page: number, toPixels: Matrix): PageTextResult => {
  const { fn: lib, scratch } = pdfium;
  const textPage = lib.FPDFText_LoadPage(page);
  const result: PageTextResult = {
    runs: [],
    chars: 0,
    garbageChars: 0,
    mathChars: 0,
    glyphs: 0,
    invisibleGlyphs: 0,
    fonts: [],
    rawText: '',
  };
  if (textPage === 0) return result;
  const fonts = new Set<string>();
  const objects = new Map<number, TextObjectInfo>();
  const fontStyles = new Map<number, FontInfo>();
  const raw: string[] = [];
  let open: OpenRun | undefined;

  const flush = (): void => {
    if (!open) return;
    const text = open.text.replace(COMPATIBILITY, (run) => run.normalize('NFKC'));
    if (text.trim() !== '') {
      const { info } = open;
      result.runs.push({
        text,
        x: open.x0,
        y: open.y0,
        w: open.x1 - open.x0,
        h: open.y1 - open.y0,
        baseline: open.baseline,
        fontSize: info.fontSize,
        fontName: info.fontName,
        bold: info.style.bold,
        italic: info.style.italic,
        monospace: info.style.monospace,
      });
    }
    open = undefined;
  };

  const fontOf = (object: number): FontInfo => {
    const font = lib.FPDFTextObj_GetFont(object);
    const cached = fontStyles.get(font);
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
    });
    // Vertical metrics per em, kept to plausible values (as pdf.js does for its text boxes).
    const ascent = font !== 0 && lib.FPDFFont_GetAscent(font, 1, scratch) ? pdfium.f32(scratch) : 0;
    const descent =
      font !== 0 && lib.FPDFFont_GetDescent(font, 1, scratch) ? pdfium.f32(scratch) : 0;
    const entry: FontInfo = {
      name,
      style,
      ascent: ascent > 0.5 && ascent < 1.5 ? ascent : 0.8,
      descent: descent < 0 && descent > -0.6 ? descent : -0.2,
    };
    fontStyles.set(font, entry);
    return entry;
  };

  const infoOf = (object: number, index: number): TextObjectInfo => {
    const cached = objects.get(object);
    if (cached) return cached;
    const { name, style, ascent, descent } = fontOf(object);
    const size = lib.FPDFText_GetFontSize(textPage, index);
    let m: Matrix = [1, 0, 0, 1, 0, 0];
    if (lib.FPDFText_GetMatrix(textPage, index, scratch)) {
      const values = [0, 4, 8, 12, 16, 20].map((o) => pdfium.f32(scratch + o));
      if (values.every(Number.isFinite)) m = values as Matrix;
    }
    const t = multiply(toPixels, m);
    const mode = lib.FPDFTextObj_GetTextRenderMode(object);
    const info: TextObjectInfo = {
      fontName: name,
      style,
      ascent,
      descent,
      fontSize: Math.abs(size) * Math.hypot(t[2], t[3]),
      // Left to right on the page image: the x axis of the text points right.
      upright: t[0] > 0 && Math.abs(t[1]) <= t[0] * 0.1,
      invisible: mode === 3 || mode === 7,
    };
    objects.set(object, info);
    return info;
  };

  try {
    const count = lib.FPDFText_CountChars(textPage);
    for (let i = 0; i < count; i++) {
      const code = lib.FPDFText_GetUnicode(textPage, i);
      if (lib.FPDFText_IsGenerated(textPage, i) === 1) {
        // Spaces and line breaks PDFium infers from positions.
        if (code === 0x0a) raw.push('\n');
        else if (code !== 0x0d) raw.push(' ');
        if (open) {
          if (code === 0x20) open.text += ' ';
          open.spaced = true;
        }
        continue;
      }
      const object = lib.FPDFText_GetTextObject(textPage, i);
      if (object === 0) continue;
      const info = infoOf(object, i);
      // PDFium marks a hyphen that ends a line as U+0002.
      const unicode = code === 0x02 && lib.FPDFText_IsHyphen(textPage, i) === 1 ? 0x2d : code;
      const text = charText(unicode);
      raw.push(text);
      result.glyphs++;
      if (info.invisible) result.invisibleGlyphs++;
      const space = isSpaceCode(unicode);
      if (!space) {
        result.chars++;
        if (isGarbage(unicode) || lib.FPDFText_HasUnicodeMapError(textPage, i) === 1) {
          result.garbageChars++;
        }
        if (info.style.math) result.mathChars++;
        fonts.add(info.fontName);
      }
      if (!info.upright || info.fontSize < 0.5) {
        flush();
        continue;
      }
      if (space) {
        if (open) {
          open.text += ' ';
          open.spaced = true;
        }
        continue;
      }
      if (!lib.FPDFText_GetLooseCharBox(textPage, i, scratch)) continue;
      const [l, t, r, b] = [0, 4, 8, 12].map((o) => pdfium.f32(scratch + o)) as [
        number,
        number,
        number,
        number,
      ];
      const [ax, ay] = apply(toPixels, l, t);
      const [bx, by] = apply(toPixels, r, b);
      const x0 = Math.min(ax, bx);
      const x1 = Math.max(ax, bx);
      const em = info.fontSize;
      let baseline = Math.max(ay, by) + info.descent * em;
      if (lib.FPDFText_GetCharOrigin(textPage, i, scratch, scratch + 8)) {
        baseline = apply(toPixels, pdfium.f64(scratch), pdfium.f64(scratch + 8))[1];
      }
      // The box spans the font's ascent and descent around the baseline, like pdf.js' text boxes.
      const y0 = baseline - info.ascent * em;
      const y1 = baseline - info.descent * em;
      if (![x0, x1, y0, y1].every(Number.isFinite)) continue;
      if (open) {
        const gap = x0 - open.x1;
        const sameFont =
          open.info === info ||
          (open.info.fontName === info.fontName &&
            open.info.style.bold === info.style.bold &&
            open.info.style.italic === info.style.italic &&
            Math.abs(open.info.fontSize - info.fontSize) <= 0.05 * em);
        const continues =
          sameFont &&
          Math.abs(baseline - open.baseline) <= 0.1 * em &&
          x0 >= open.lastX0 - 0.1 * em &&
          gap <= (open.spaced ? SPACED_GAP_EM : RUN_GAP_EM) * em;
        if (!continues) flush();
      }
      if (open) {
        if (!open.spaced && x0 - open.x1 > WORD_GAP_EM * em) open.text += ' ';
        open.text += text;
        open.lastX0 = x0;
        open.x1 = Math.max(open.x1, x1);
        open.y0 = Math.min(open.y0, y0);
        open.y1 = Math.max(open.y1, y1);
        open.spaced = false;
      } else {
        open = { text, lastX0: x0, x0, y0, x1, y1, baseline, info, spaced: false };
      }
    }
    flush();
  } finally {
    lib.FPDFText_ClosePage(textPage);
  }
  result.fonts = [...fonts];
  result.rawText = raw
    .join('')
    .replace(/[ \t]+\n/g, '\n')
    .trim();
  return result;
};
