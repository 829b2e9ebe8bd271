import { DocumentRejectedError, UnsupportedDocumentError } from '../../core/domain/errors.js';
import { featuresWithoutTextLayer } from '../../core/domain/routing.js';
import type {
  DocumentEngine,
  DocumentInspection,
  DocumentRef,
  PageFeatures,
} from '../../core/ports/document-engine.js';
import { buildRows } from '../layout/lines.js';
import { pageProfileStats, profileFromStats, type PageProfileStats } from '../layout/profile.js';
import { pageFeatures } from './page-features.js';
import type { ExtractedPage } from './page-text.js';
import {
  UninterpretablePdfError,
  type PageInspection,
  type PdfPageSource,
} from './pdf-page-source.js';

/** Pages requested from the reader before their turn to be collected. */
const PAGES_AHEAD = 8;
/** Pages read ahead of `inspect` by `prefetch`. */
const PREFETCH_PAGES = 8;
/** Documents whose prefetched inspections are kept for `inspect` (oldest dropped first). */
const PREFETCHED_DOCUMENTS = 32;

/** Options of {@link PdfEngine}. */
export interface PdfEngineOptions {
  /**
   * Most pages a document may have; larger documents are rejected by `open`.
   * @default 5000
   */
  maxPages?: number;
}

/** The identity of a document across calls: its hash (its key when the hash is unknown). */
const documentKey = (ref: DocumentRef): string => ref.hash || ref.key;

/** The measurements of an extracted page: its features and its share of the layout profile. */
export const inspectExtractedPage = (extracted: ExtractedPage): PageInspection => {
  // The features and the profile share one grouping of the runs into rows.
  const rows = buildRows(extracted.text.runs);
  return {
    features: pageFeatures(extracted, rows),
    profile: pageProfileStats(extracted.text, rows),
  };
};

/**
 * The offline PDF engine: opens PDFs (PDFium and pdf.js, through `source`, shared with
 * {@link LocalTextProvider} and {@link PdfRasterizer} so a document is parsed once), counts their
 * pages and measures them (text layer, images, rules, columns, fonts) for the router; builds the
 * layout profile.
 */
export class PdfEngine implements DocumentEngine {
  readonly #source: PdfPageSource;
  readonly #maxPages: number;
  /**
   * Inspections started by `prefetch`, by document and page, each taken by the `inspect` that
   * follows: a page is measured once per document, not once by each.
   */
  readonly #prefetched = new Map<string, Map<number, Promise<PageInspection>>>();

  constructor(source: PdfPageSource, options: PdfEngineOptions = {}) {
    this.#source = source;
    this.#maxPages = options.maxPages ?? 5000;
  }

  /**
   * Opens the PDF and counts its pages.
   * @throws {UnsupportedDocumentError} when `ref.format` is not pdf or the bytes are damaged.
   * @throws {DocumentRejectedError} when it needs a user password, has no pages or more than `maxPages`.
   */
  async open(ref: DocumentRef): Promise<{ pageCount: number }> {
    if (ref.format !== 'pdf') {
      throw new UnsupportedDocumentError(`the PDF engine cannot open ${ref.format} documents`);
    }
    const pageCount = await this.#source.pageCount(ref);
    if (pageCount > this.#maxPages) {
      throw new DocumentRejectedError(
        `the PDF has ${pageCount} pages; at most ${this.#maxPages} are accepted`,
      );
    }
    return { pageCount };
  }

  /**
   * Starts measuring the first pages in the reader (at most {@link PREFETCH_PAGES}); the next
   * `inspect` of the document takes these measurements instead of asking for them again.
   */
  prefetch(ref: DocumentRef, pageNumbers: readonly number[]): void {
    const id = documentKey(ref);
    const pages = this.#prefetched.get(id) ?? new Map<number, Promise<PageInspection>>();
    this.#prefetched.delete(id);
    this.#prefetched.set(id, pages);
    for (const n of pageNumbers.slice(0, PREFETCH_PAGES)) {
      if (pages.has(n)) continue;
      const inspected = this.#inspectPage(ref, n);
      inspected.catch(() => undefined);
      pages.set(n, inspected);
    }
    while (this.#prefetched.size > PREFETCHED_DOCUMENTS) {
      const oldest = this.#prefetched.keys().next();
      if (oldest.done === true) break;
      this.#prefetched.delete(oldest.value);
    }
  }

  /** The prefetched measurement of a page, taken (a later call measures the page again). */
  #takePrefetched(ref: DocumentRef, pageNumber: number): Promise<PageInspection> | undefined {
    const id = documentKey(ref);
    const pages = this.#prefetched.get(id);
    const inspected = pages?.get(pageNumber);
    pages?.delete(pageNumber);
    if (pages?.size === 0) this.#prefetched.delete(id);
    return inspected;
  }

  /** The page measured by the reader when it can (the page stays there), else here. */
  #inspectPage(ref: DocumentRef, pageNumber: number): Promise<PageInspection> {
    return this.#source.inspectPage
      ? this.#source.inspectPage(ref, pageNumber)
      : this.#source.page(ref, pageNumber).then(inspectExtractedPage);
  }

  /**
   * Measures the given pages (1-based) and builds the layout profile over them.
   *
   * A page that cannot be read gets empty features with `usableTextLayer: false`.
   * @throws {UnsupportedDocumentError} when the bytes are damaged.
   * @throws {DocumentRejectedError} when a page number is out of range, a password is needed, or
   *   the PDF cannot be interpreted in time (its other pages would not be tried either).
   */
  async inspect(ref: DocumentRef, pageNumbers: readonly number[]): Promise<DocumentInspection> {
    const { pageCount } = await this.open(ref);
    for (const n of pageNumbers) {
      if (!Number.isInteger(n) || n < 1 || n > pageCount) {
        throw new DocumentRejectedError(
          `page ${n} does not exist; the document has ${pageCount} pages`,
        );
      }
    }
    // Pages are asked for a few ahead, so that the reader (worker threads) goes from one page to
    // the next while this thread collects the previous ones.
    const requested = new Map<number, Promise<PageInspection>>();
    const request = (index: number) => {
      const n = pageNumbers[index];
      if (n === undefined || requested.has(index)) return;
      const inspected = this.#takePrefetched(ref, n) ?? this.#inspectPage(ref, n);
      inspected.catch(() => undefined);
      requested.set(index, inspected);
    };
    const pages: PageFeatures[] = [];
    const stats: PageProfileStats[] = [];
    for (let i = 0; i < pageNumbers.length; i++) {
      for (let ahead = i; ahead < i + PAGES_AHEAD; ahead++) request(ahead);
      const n = pageNumbers[i] ?? 0;
      try {
        const inspected = await (requested.get(i) as Promise<PageInspection>);
        requested.delete(i);
        pages.push(inspected.features);
        stats.push(inspected.profile);
      } catch (error) {
        if (!(error instanceof DocumentRejectedError) || error instanceof UninterpretablePdfError) {
          throw error;
        }
        pages.push(
          featuresWithoutTextLayer({ pageNumber: n, widthPt: 0, heightPt: 0, imageCoverage: 0 }),
        );
      }
    }
    return { pages, profile: profileFromStats(stats) };
  }
}
