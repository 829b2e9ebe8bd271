import type { DocumentFormat } from '../domain/schemas.js';

/** The model id of the offline structure extractor, the default of POST /v1/parse/structured. */
export const OFFLINE_STRUCTURE_MODEL = 'docparse-structured-1';

/** A box `[x0, y0, x1, y1]` in pixels of the page image at the page's DPI, origin top-left. */
export type RegionBox = [number, number, number, number];

/** One cell of a table region: its grid position and how many grid rows and columns it covers. */
export interface RegionCell {
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
  text: string;
}

/** A table, with the cell grid the layout analysis read (spans included). */
export interface TableRegion {
  kind: 'table';
  bbox: RegionBox;
  cells: RegionCell[];
}

/** A display equation, read as LaTeX. */
export interface EquationRegion {
  kind: 'equation';
  bbox: RegionBox;
  latex: string;
  /**
   * What the reading of this equation is unsure of, one sentence each: an unmapped glyph, a
   * radical or a line layout not fully read.
   */
  notes?: string[];
}

/** A placed image and its caption ('' when none was found). */
export interface FigureRegion {
  kind: 'figure';
  bbox: RegionBox;
  caption: string;
}

export type Region = TableRegion | EquationRegion | FigureRegion;

/** What an extractor found on one page. */
export interface PageRegions {
  pageNumber: number;
  /** The page image the boxes refer to: its size in pixels and its resolution. */
  width: number;
  height: number;
  dpi: number;
  /** Where the text came from: the PDF text layer, or OCR of the page image. */
  source: 'text_layer' | 'ocr';
  /** Regions in reading order (top to bottom). */
  regions: Region[];
  /**
   * What the extractor is unsure of about the page as a whole, one sentence each, without the
   * page number (the service adds it): e.g. a page read by OCR, where equations are not read.
   */
  notes: string[];
}

/** A document as received, kept in memory for the time of one extraction. */
export interface StructureDocument {
  bytes: Uint8Array;
  format: DocumentFormat;
  /** SHA-256 (hex) of the bytes. */
  hash: string;
}

/** A document opened for extraction; close it when done. */
export interface OpenedStructureDocument {
  pageCount: number;
  /**
   * Reads one page (1-based).
   * @throws {DocumentRejectedError} when the page cannot be read or rendered (422).
   * @throws {ProviderUnavailableError} when a recogniser fails in a way worth retrying (503).
   */
  extractPage(pageNumber: number): Promise<PageRegions>;
  /** Forgets the document's bytes. */
  close(): Promise<void>;
}

/**
 * Finds typed regions (tables with their cell grids, display equations, figures with their
 * captions) in the pages of a document: the offline engines (PDF text layer, OCR for scans) or a
 * configured remote vision model.
 */
export interface StructureExtractor {
  /** The model identifier clients name in the `model` form field. */
  readonly model: string;
  /**
   * @throws {UnsupportedDocumentError} when the format cannot be read by this extractor, or the
   *   bytes are damaged (400).
   * @throws {DocumentRejectedError} when the document opens but cannot be read: a password, no
   *   pages (422).
   */
  open(document: StructureDocument): Promise<OpenedStructureDocument>;
}
