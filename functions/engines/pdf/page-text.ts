import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { logicalToVisual } from '../layout/bidi.js';
import type { PageText, TextRun } from '../layout/types.js';
import { fontStyle } from './font-style.js';
import {
  apply,
  ImageCollector,
  isGarbage,
  multiply,
  RuleCollector,
  type Matrix,
} from './page-geometry.js';
import { loadPdfJs } from './pdf-document.js';

/** Counts taken while reading a page that the layout input does not carry. */
export interface PageStats {
  /** Non-space characters in the text layer, all directions. */
  chars: number;
  /** Characters without a usable Unicode mapping (private use, U+FFFD, controls). */
  garbageChars: number;
  /** Characters set in math fonts. */
  mathChars: number;
  /** Glyphs shown and glyphs shown invisibly (render modes 3 and 7). */
  glyphs: number;
  invisibleGlyphs: number;
  /** Path-painting operations (vector drawings, outlined text). */
  paintedPaths: number;
  /** Count of rule segments found (before the storage cap). */
  ruleCount: number;
  /** Distinct font names used by the text layer. */
  fonts: string[];
  /** The text layer in pdf.js order, lines separated by newlines. */
  rawText: string;
  /**
   * Native resolution (pixels per inch of the page) of a raster image that covers at least 70% of
   * the page, as in a scan; null when there is none.
   */
  scanDpi: number | null;
}

/** A page read once: the layout input and the statistics of its text layer. */
export interface ExtractedPage {
  text: PageText;
  stats: PageStats;
  /** Page size in PDF points after /Rotate (the viewport at 72 DPI). */
  widthPt: number;
  heightPt: number;
}

const asMatrix = (value: unknown): Matrix | null => {
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) return null;
  const list = Array.from(value as ArrayLike<unknown>);
  if (list.length !== 6 || !list.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    return null;
  }
  return list as Matrix;
};

const MAX_OPS = 400_000;

/** Pixel count of the image an image-painting operator draws, when its arguments say. */
const imagePixels = (
  fn: number,
  args: unknown[] | null,
  OPS: { paintImageXObject: number; paintInlineImageXObject: number },
): number | null => {
  const inline = args?.[0] as { width?: unknown; height?: unknown } | undefined;
  const [w, h] =
    fn === OPS.paintImageXObject
      ? [args?.[1], args?.[2]]
      : fn === OPS.paintInlineImageXObject
        ? [inline?.width, inline?.height]
        : [undefined, undefined];
  return typeof w === 'number' && typeof h === 'number' && w > 0 && h > 0 ? w * h : null;
};

/**
 * Reads one page's text runs, rule segments and image placements, in pixels of the page image
 * at `dpi` (origin top-left; /Rotate, crop box and /UserUnit handled by the viewport).
 *
 * Loads the operator list first so that fonts are resolved and their real PostScript names
 * (bold, italic, monospace) are known; text in a small-caps font (`CMCSC10`) is read in
 * capitals, as printed. Font sizes are in pixels. Text that does not run left-to-right on the
 * page image (vertical or rotated stamps) is counted in the statistics and the raw text but
 * left out of `runs`.
 */
export const extractPage = async (page: PDFPageProxy, dpi: number): Promise<ExtractedPage> => {
  const { OPS, Util } = await loadPdfJs();
  const viewport = page.getViewport({ scale: dpi / 72 });
  const unit = page.getViewport({ scale: 1 });
  const operators = await page.getOperatorList();
  const content = await page.getTextContent({ disableNormalization: false });
  const vt = viewport.transform as Matrix;
  const width = Math.max(1, Math.round(viewport.width));
  const height = Math.max(1, Math.round(viewport.height));
  const pageArea = width * height;

  // Operator list: rules, images, render mode.
  const ruleCollector = new RuleCollector(dpi, pageArea);
  const imageCollector = new ImageCollector(width, height, dpi);
  let glyphs = 0;
  let invisibleGlyphs = 0;
  let paintedPaths = 0;
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  let renderMode = 0;
  const stack: { ctm: Matrix; renderMode: number }[] = [];
  const { fnArray, argsArray } = operators;
  const opCount = Math.min(fnArray.length, MAX_OPS);
  const toPixels = (x: number, y: number): [number, number] => {
    const [ux, uy] = apply(ctm, x, y);
    return apply(vt, ux, uy);
  };
  for (let i = 0; i < opCount; i++) {
    const fn: number = fnArray[i] ?? -1;
    const args = argsArray[i] as unknown[] | null;
    switch (fn) {
      case OPS.save:
        stack.push({ ctm, renderMode });
        break;
      case OPS.restore: {
        const state = stack.pop();
        if (state) ({ ctm, renderMode } = state);
        break;
      }
      case OPS.transform: {
        const m = asMatrix(args);
        if (m) ctm = multiply(ctm, m);
        break;
      }
      case OPS.paintFormXObjectBegin: {
        stack.push({ ctm, renderMode });
        const m = asMatrix(args?.[0]);
        if (m) ctm = multiply(ctm, m);
        break;
      }
      case OPS.paintFormXObjectEnd: {
        const state = stack.pop();
        if (state) ({ ctm, renderMode } = state);
        break;
      }
      case OPS.setTextRenderingMode:
        renderMode = typeof args?.[0] === 'number' ? args[0] : 0;
        break;
      case OPS.showText:
      case OPS.showSpacedText: {
        const shown = args?.[0];
        if (Array.isArray(shown)) {
          let count = 0;
          for (const glyph of shown) if (typeof glyph === 'object' && glyph !== null) count++;
          glyphs += count;
          if (renderMode === 3 || renderMode === 7) invisibleGlyphs += count;
        }
        break;
      }
      case OPS.constructPath: {
        const paintOp = args?.[0];
        if (paintOp === OPS.endPath) break;
        paintedPaths++;
        const data = (args?.[1] as unknown[] | undefined)?.[0];
        if (!Array.isArray(data) && !ArrayBuffer.isView(data)) break;
        ruleCollector.addPath(data as ArrayLike<number>, toPixels);
        break;
      }
      case OPS.paintImageXObject:
      case OPS.paintInlineImageXObject:
      case OPS.paintImageMaskXObject:
      case OPS.paintImageXObjectRepeat: {
        imageCollector.add(toPixels, imagePixels(fn, args, OPS));
        break;
      }
      default:
        break;
    }
  }

  // Text layer.
  const runs: TextRun[] = [];
  const fonts = new Set<string>();
  const styleCache = new Map<string, { name: string; style: ReturnType<typeof fontStyle> }>();
  const styleOf = (loadedName: string) => {
    let cached = styleCache.get(loadedName);
    if (!cached) {
      let name = content.styles[loadedName]?.fontFamily ?? '';
      let flags: { bold?: boolean; italic?: boolean; monospace?: boolean } = {};
      try {
        if (page.commonObjs.has(loadedName)) {
          const font = page.commonObjs.get(loadedName) as {
            name?: unknown;
            bold?: unknown;
            black?: unknown;
            italic?: unknown;
            isMonospace?: unknown;
          } | null;
          if (font && typeof font.name === 'string' && font.name) name = font.name;
          flags = {
            bold: font?.bold === true || font?.black === true,
            italic: font?.italic === true,
            monospace: font?.isMonospace === true,
          };
        }
      } catch {
        // A font that failed to load keeps its family name.
      }
      cached = { name, style: fontStyle(name, flags) };
      styleCache.set(loadedName, cached);
    }
    return cached;
  };
  let chars = 0;
  let garbageChars = 0;
  let mathChars = 0;
  const raw: string[] = [];
  for (const item of content.items) {
    if (!('str' in item)) continue;
    const textItem = item;
    const { name, style } = styleOf(textItem.fontName);
    // A small-caps font draws its lowercase codes as capitals: read what is printed.
    const str = style.smallCaps ? textItem.str.toUpperCase() : textItem.str;
    raw.push(str, textItem.hasEOL ? '\n' : '');
    let visible = 0;
    let garbage = 0;
    for (const ch of str) {
      const code = ch.codePointAt(0) ?? 0;
      if (/\s/.test(ch)) continue;
      visible++;
      if (isGarbage(code)) garbage++;
    }
    if (visible === 0) continue;
    fonts.add(name);
    chars += visible;
    garbageChars += garbage;
    if (style.math) mathChars += visible;
    const m = asMatrix(textItem.transform);
    if (!m) continue;
    const tx = Util.transform(vt, m) as Matrix;
    const fontSize = Math.hypot(tx[2], tx[3]);
    const advance = Math.hypot(tx[0], tx[1]);
    if (fontSize < 0.5 || advance < 0.01) continue;
    // Left-to-right on the page image only: the x axis of the text points right.
    if (tx[0] <= 0 || Math.abs(tx[1]) > tx[0] * 0.1) continue;
    const ascent = content.styles[textItem.fontName]?.ascent ?? 0.8;
    const descent = content.styles[textItem.fontName]?.descent ?? -0.2;
    const asc = ascent > 0.5 && ascent < 1.5 ? ascent : 0.8;
    const desc = descent < 0 && descent > -0.6 ? descent : -0.2;
    const w = textItem.width * (advance / Math.hypot(m[0], m[1]) || dpi / 72);
    const x = tx[4];
    const baseline = tx[5];
    const top = baseline - asc * fontSize;
    const h = (asc - desc) * fontSize;
    if (!Number.isFinite(x + baseline + w) || w <= 0) continue;
    runs.push({
      // pdf.js gives right-to-left items in logical order; runs carry visual order.
      text: textItem.dir === 'rtl' ? logicalToVisual(str, 'rtl') : str,
      x,
      y: top,
      w,
      h,
      baseline,
      fontSize,
      fontName: name,
      bold: style.bold,
      italic: style.italic,
      monospace: style.monospace,
    });
  }

  return {
    text: {
      pageNumber: page.pageNumber,
      width,
      height,
      dpi,
      runs,
      rules: ruleCollector.rules,
      images: imageCollector.images,
    },
    stats: {
      chars,
      garbageChars,
      mathChars,
      glyphs,
      invisibleGlyphs,
      paintedPaths,
      ruleCount: ruleCollector.count,
      fonts: [...fonts],
      rawText: raw
        .join('')
        .replace(/[ \t]+\n/g, '\n')
        .trim(),
      scanDpi: imageCollector.scanDpi,
    },
    widthPt: unit.width,
    heightPt: unit.height,
  };
};
