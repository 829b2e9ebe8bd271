import type { BBoxLabel } from '../domain/schemas.js';
import type { DocumentRef } from './document-engine.js';

/** What a provider is asked to do for one page. */
export interface PageParseRequest {
  document: DocumentRef;
  pageNumber: number;
  /** Requested rasterisation DPI, or null for the provider's automatic choice. */
  dpi: number | null;
  /** The document profile from `DocumentEngine.inspect`. */
  profile: unknown;
  /** Keep heading and list shape (spec `maintain_format`). */
  maintainFormat: boolean;
}

/** One recognised element with its box in pixels of the page image at `dpi`, origin top-left. */
export interface ProviderElement {
  text: string;
  bbox: { x: number; y: number; w: number; h: number };
  label: BBoxLabel;
  /** Finer type: title, heading, paragraph, list_item, table, code, caption, header, footer, page_number... */
  elementType: string;
  /** Detector confidence in [0, 1]. */
  confidence: number;
}

/** A provider's answer for one page. */
export interface ProviderPageResult {
  markdown: string;
  elements: ProviderElement[];
  /** The page image geometry the boxes refer to. */
  dpi: number;
  width: number;
  height: number;
  model: string;
  tokens: { input: number; output: number };
  /** Recognition confidence in [0, 1] (mean word confidence, token probabilities), or null when not applicable. */
  ocrScore: number | null;
  /** Confidence of element recognition in [0, 1]. */
  layoutScore: number;
  /** Independent text of the page (e.g. the PDF text layer) for verification, or null. */
  evidenceText: string | null;
  /**
   * The recognised words with their confidence in [0, 1] (OCR engines), for the page's
   * `ocr_score` (see `recognitionScore`); absent: `ocrScore` is used as given.
   */
  words?: readonly { text: string; confidence: number }[];
  /**
   * Text of the independent evidence (text layer) inside each table's region, in the order of the
   * tables of `markdown`, for the numbers check of `table_score`; absent: the numbers of the whole
   * evidence are checked against the whole Markdown.
   */
  tableRegionText?: readonly string[];
  /** What the layout was unsure of, as shares in [0, 1]; lowers `layout_score` (see `scorePage`). */
  layoutSignals?: ProviderLayoutSignals;
}

/** Uncertainty a layout analysis can report about a page; each a share in [0, 1], 0 is sure. */
export interface ProviderLayoutSignals {
  /** Blocks whose reading order was a close call (columns, floats, side notes). */
  readingOrderAmbiguity?: number;
  /** Math-like regions (math fonts, operators) emitted as plain text. */
  mathAsText?: number;
  /** Headings whose level was guessed without font size or numbering evidence. */
  guessedHeadingLevels?: number;
  /** Lines that could not be assigned to a block and were placed by position alone. */
  unassignedLines?: number;
}

/** A parsing provider (offline engine or remote model) behind the router. */
export interface PageProvider {
  readonly id: string;
  readonly model: string;
  /**
   * @throws {ProviderUnavailableError} retryable failure.
   * @throws {DocumentRejectedError} the page cannot be parsed by anyone.
   */
  parsePage(request: PageParseRequest): Promise<ProviderPageResult>;
  /**
   * A hint that `request` will be asked for soon (Route gives it for each page it routes here):
   * a provider working in this process may start on the page now and answer the coming
   * `parsePage` from that work. It must not throw, and it delivers nothing by itself: a result
   * reaches a request only through `parsePage`, which the ParsePage stage calls after charging
   * the page; work for a page never asked for is dropped.
   */
  prefetch?(request: PageParseRequest): void;
}
