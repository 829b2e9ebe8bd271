import { DocumentRejectedError } from '../../core/domain/errors.js';
import {
  apply,
  ImageCollector,
  multiply,
  PathOp,
  RuleCollector,
  pageToPixels,
  type Matrix,
} from './page-geometry.js';
import { turnedAngle } from '../layout/page-rotation.js';
import type { TextRun } from '../layout/types.js';
import { visibleLength } from '../layout/white-space.js';
import type { ExtractedPage } from './page-text.js';
import type { Pdfium, PdfiumDocument } from './pdfium.js';
import { readTextLayer, type PlacedObject } from './pdfium-text-layer.js';

/** FPDFPageObj_GetType values (fpdf_edit.h). */
const OBJECT = { TEXT: 1, PATH: 2, IMAGE: 3, FORM: 5 } as const;
/** FPDFPathSegment_GetType values. */
const SEGMENT = { LINETO: 0, BEZIERTO: 1, MOVETO: 2 } as const;
/** Most page objects (paths, images, forms, nested) visited per page. */
const MAX_OBJECTS = 400_000;
/** Deepest nesting of form XObjects followed. */
const MAX_FORM_DEPTH = 12;

/**
 * Reads one page with PDFium: text runs, rule segments and image placements, in pixels of the
 * page image at `dpi` (origin top-left; /Rotate and the crop box handled as a viewer shows the
 * page), with the same statistics as the pdf.js reader ({@link ExtractedPage}).
 *
 * Runs are built from PDFium's characters: a run continues while characters come from the same
 * text object on the same baseline with gaps under 0.6 em (0.85 em across an explicit space).
 * Right-to-left text (characters given in logical order, placed leftwards) makes runs that grow
 * leftwards, their text in visual order. A spacing accent drawn over a letter is composed with it
 * (`¨` + `o` → `ö`); presentation forms are folded to their base letters.
 * Fonts give bold, italic and monospace from their PostScript name and descriptor flags; a
 * small-caps font (`CMCSC10`, the SmallCap flag) is read in capitals, as printed. Text
 * that does not run left to right on the page image (a header cell set at 45°, a label up a
 * margin) makes runs of its own, with a `rotation`: glyphs in reading order while each steps
 * along the same baseline, the box around them axis-aligned.
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
    const textObjects: PlacedObject[] = [];
    const paintedPaths = readObjects(pdfium, page, toPixels, rules, images, textObjects);
    const text = readTextLayer(pdfium, page, toPixels, textObjects);
    // Text set wholly outside the page (its crop box) is not printed: left out, and counted
    // with the invisible glyphs.
    const onPage: TextRun[] = [];
    let offPage = 0;
    for (const r of text.runs) {
      if (r.x < width && r.y < height && r.x + r.w > 0 && r.y + r.h > 0) onPage.push(r);
      else offPage += visibleLength(r.text);
    }
    return {
      text: {
        pageNumber,
        width,
        height,
        dpi,
        runs: onPage,
        rules: rules.rules,
        images: images.images,
      },
      stats: {
        chars: text.chars,
        garbageChars: text.garbageChars,
        mathChars: text.mathChars,
        glyphs: text.glyphs,
        invisibleGlyphs: text.invisibleGlyphs + offPage,
        paintedPaths,
        ruleCount: rules.count,
        fonts: text.fonts,
        rawText: readingOrderOfLines(text.rawText, onPage),
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
 * placements, and text objects with the matrix of their parent (into `textObjects`). Returns the
 * number of painted (filled or stroked) paths.
 */
const readObjects = (
  pdfium: Pdfium,
  page: number,
  toPixels: Matrix,
  rules: RuleCollector,
  images: ImageCollector,
  textObjects: PlacedObject[],
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
      if (type === OBJECT.TEXT) {
        textObjects.push({ object, parent });
        continue;
      }
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

/**
 * The raw text with its lines in reading order. PDFium lists the lines of text running down the
 * page image (at 270°, a page turned with /Rotate 90) from the image's left, which is the last
 * line first: on a page mostly set that way the lines are reversed. Other pages' text keeps
 * PDFium's order.
 */
const readingOrderOfLines = (raw: string, runs: readonly TextRun[]): string =>
  turnedAngle(runs) === 270 ? raw.split('\n').reverse().join('\n') : raw;
