import type { DocumentFormat } from '../domain/schemas.js';

/** A stored document as engines see it: its bytes live in the ObjectStore under `key`. */
export interface DocumentRef {
  key: string;
  format: DocumentFormat;
  /** SHA-256 (hex) of the bytes; engines cache opened documents by it. */
  hash: string;
}

/**
 * Measured features of one page, the input of the complexity score (router) and of the
 * "usable text layer" decision. Areas are shares of the page area in [0, 1].
 */
export interface PageFeatures {
  pageNumber: number;
  /** Page size in PDF points (1/72 inch); for images, pixels at 72 DPI equivalence. */
  widthPt: number;
  heightPt: number;
  /** Characters in the text layer (0 for images). */
  textChars: number;
  /** Share of text-layer characters without a usable Unicode mapping (PUA, U+FFFD, controls). */
  garbageRatio: number;
  /** Share of the page area covered by text boxes. */
  textCoverage: number;
  /** Share of the page area covered by raster images. */
  imageCoverage: number;
  /** Count of rule lines and rectangle edges (table grid evidence). */
  ruleCount: number;
  /**
   * Share of text rows in table-like alignment: three or more pieces separated by wide gaps,
   * sharing column edges with a neighbouring row (tables without rules, forms). 0 without text.
   */
  tableAlignment: number;
  /** Estimated text columns (1, 2, 3...). */
  columnCount: number;
  /** Distinct fonts used on the page. */
  fontCount: number;
  /** Share of characters set in math fonts (CMMI, CMSY, Math, Symbol...). */
  mathCharRatio: number;
  /** Share of characters drawn invisibly (text render mode 3, e.g. a previous OCR layer). */
  invisibleCharRatio: number;
  /** True when the text layer can be trusted to give the page's text (else: OCR). */
  usableTextLayer: boolean;
  /**
   * False when the page has no image to render (office, HTML and Markdown pages): only
   * text-layer providers can parse it; OCR and vision models are never asked. Absent: true.
   */
  hasPageImage?: boolean;
}

/** Result of inspecting a document: features per page and an engine-private profile (JSON) shared by all its pages. */
export interface DocumentInspection {
  pages: PageFeatures[];
  /** Document-level layout statistics (body font size, heading sizes, running headers...), opaque to the core. */
  profile: unknown;
}

/** Opens documents, counts their pages and measures them. Implemented by the offline engines. */
export interface DocumentEngine {
  /**
   * Opens the document and counts its pages.
   * @throws {UnsupportedDocumentError} when the bytes cannot be opened as `ref.format` (400).
   * @throws {DocumentRejectedError} when it opens but cannot be parsed: password, zero pages, too large (422).
   */
  open(ref: DocumentRef): Promise<{ pageCount: number }>;
  /**
   * Starts reading the given pages (1-based) in the background, so that a later `inspect` finds
   * them read or under way. Optional; errors are left to `inspect` to report.
   */
  prefetch?(ref: DocumentRef, pageNumbers: readonly number[]): void;
  /** Measures the given pages (1-based numbers) and builds the document profile. */
  inspect(ref: DocumentRef, pageNumbers: readonly number[]): Promise<DocumentInspection>;
}
