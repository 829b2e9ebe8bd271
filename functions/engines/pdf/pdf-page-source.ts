import { DocumentRejectedError } from '../../core/domain/errors.js';
import type { ProviderPageResult } from '../../core/ports/page-provider.js';
import type { DocumentRef, PageFeatures } from '../../core/ports/document-engine.js';
import type { PageProfileStats } from '../layout/profile.js';
import type { RasterPage } from '../raster.js';
import type { ExtractedPage } from './page-text.js';

/** How a page is rendered by {@link PdfPageSource.render}. */
export interface RenderOptions {
  /** Requested resolution; lowered to respect `maxPixels`. */
  dpi: number;
  /** Most pixels the image may have. */
  maxPixels: number;
  /** Lowest DPI worth rendering; a page that only fits `maxPixels` below it is rejected. */
  minDpi: number;
}

/** One page measured for the router and for the document's layout profile. */
export interface PageInspection {
  features: PageFeatures;
  profile: PageProfileStats;
}

/**
 * What the PDF engine, the text-layer provider and the rasterizer need of the PDF readers:
 * page counts, pages read at 72 DPI, and pages rendered to PNG. Implemented in process by
 * {@link PdfDocumentCache} and off the main thread by {@link PdfWorkerClient}.
 */
export interface PdfPageSource {
  /**
   * Opens the document (once) and counts its pages.
   * @throws {UnsupportedDocumentError} when the bytes are not a readable PDF.
   * @throws {DocumentRejectedError} when it needs a password, has no pages or cannot be interpreted.
   * @throws {ObjectNotFoundError} when nothing is stored under `ref.key`.
   */
  pageCount(ref: DocumentRef): Promise<number>;
  /**
   * One page read at 72 DPI (text runs, rules, images and statistics), cached with its document.
   * @throws {DocumentRejectedError} when `pageNumber` is out of range or the page cannot be read.
   */
  page(ref: DocumentRef, pageNumber: number): Promise<ExtractedPage>;
  /**
   * One page measured (see {@link PageInspection}) where it is read and kept: only the
   * measurements cross to the caller, not the page. Absent: the caller measures {@link page}.
   * @throws {DocumentRejectedError} when `pageNumber` is out of range or the page cannot be read.
   */
  inspectPage?(ref: DocumentRef, pageNumber: number): Promise<PageInspection>;
  /**
   * One page rendered to PNG on a white background.
   * @returns the PNG, its size in pixels and the DPI used (lower than asked to fit the pixel cap).
   * @throws {DocumentRejectedError} when the page is too large, does not exist or cannot be rendered.
   */
  render(ref: DocumentRef, pageNumber: number, options: RenderOptions): Promise<RasterPage>;
  /**
   * The text-layer provider's answer for one page (`layOutTextLayer`), computed where the page is
   * kept; absent when the caller lays the page out itself.
   * @throws {DocumentRejectedError} when `pageNumber` is out of range or the page cannot be read.
   */
  layOut?(
    ref: DocumentRef,
    pageNumber: number,
    dpi: number,
    profile: unknown,
  ): Promise<ProviderPageResult>;
  /** Closes every open document (and stops any background worker). */
  close(): Promise<void>;
}

/**
 * The PDF could not be interpreted in time (or crashed the reader) and was abandoned; later
 * calls for the same document fail fast with it for a while. A {@link DocumentRejectedError}, so
 * it maps to 422; the engine rejects the whole document rather than one page.
 */
export class UninterpretablePdfError extends DocumentRejectedError {}

/**
 * The error of a page that took longer than the per-page time budget: an
 * {@link UninterpretablePdfError} (422) whose message names the page and the budget, e.g.
 * "page 3 took longer than the 30 s per-page budget".
 * @param budgetMs the budget, in milliseconds (`PDF_PAGE_TIMEOUT_MS`).
 */
export const pageOverBudget = (pageNumber: number, budgetMs: number): UninterpretablePdfError =>
  new UninterpretablePdfError(
    `page ${pageNumber} took longer than the ${Math.round(budgetMs / 100) / 10} s per-page budget (its content may loop or be pathologically complex)`,
  );
