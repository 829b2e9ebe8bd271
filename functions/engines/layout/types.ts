/**
 * Input and output of the layout analysis shared by the PDF text-layer engine and the OCR engine.
 * All geometry is in pixels of the page image rendered at `dpi`, origin top-left.
 */

/** A run of text as the producer (PDF content stream or OCR word) gave it. */
export interface TextRun {
  text: string;
  /** Box of the run: left, top, width, height. */
  x: number;
  y: number;
  w: number;
  h: number;
  /** Baseline y (pixels from top). */
  baseline: number;
  /** Font size in pixels (for OCR: estimated from the line's x-height / cap height). */
  fontSize: number;
  /** Font name when known (PostScript name for PDFs), '' otherwise. */
  fontName: string;
  bold: boolean;
  italic: boolean;
  monospace: boolean;
  /** OCR word confidence in [0, 1]; undefined for text-layer runs. */
  confidence?: number;
  /**
   * Angle of the text's direction in degrees, counter-clockwise on the page image, for text that
   * does not run left to right (a header cell set at 45° or 90°, a label up a margin); absent for
   * upright text. The box is then the axis-aligned box around the rotated glyphs, `text` is in
   * reading order (along the baseline) and `baseline` is the box's bottom.
   */
  rotation?: number;
}

/** A rule line segment (or a rectangle edge) from the page's drawing operations. */
export interface Segment {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** A rectangle (e.g. a raster image's placement). */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Everything the layout analysis needs of one page. */
export interface PageText {
  pageNumber: number;
  /** Page image size in pixels at `dpi`. */
  width: number;
  height: number;
  dpi: number;
  runs: TextRun[];
  rules: Segment[];
  images: Rect[];
}

/**
 * Document-level statistics shared by all pages of a document (JSON-serialisable).
 * Sizes are in points (1/72 inch), so the profile does not depend on the DPI of a page.
 */
export interface LayoutProfile {
  version: 1;
  /** Font size carrying the most characters, in points (0 when the document has no text). */
  bodySize: number;
  /** Distinct heading font sizes in points, largest first; index + 1 is the heading level. */
  headingSizes: number[];
  /** Digit-folded texts of running headers (top band) repeated on most pages. */
  headers: string[];
  /** Digit-folded texts of running footers (bottom band) repeated on most pages. */
  footers: string[];
  /** Pages the profile was built from. */
  pageCount: number;
  /** Name of the font carrying the most characters: the body's, never a listing's. */
  bodyFont?: string;
}
