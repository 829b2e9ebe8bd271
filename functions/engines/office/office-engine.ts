import { DocumentRejectedError, UnsupportedDocumentError } from '../../core/domain/errors.js';
import { plainText } from '../../core/domain/markdown.js';
import type {
  DocumentEngine,
  DocumentInspection,
  DocumentRef,
  PageFeatures,
} from '../../core/ports/document-engine.js';
import type { ObjectStore } from '../../core/ports/object-store.js';
import type {
  PageParseRequest,
  ProviderElement,
  ProviderPageResult,
} from '../../core/ports/page-provider.js';
import {
  isOfficeFormat,
  type OfficeDocument,
  type OfficeFormat,
  type OfficePage,
} from './office-document.js';
import { OfficeWorkerPool, type OfficeWorkerPoolOptions } from './office-worker-pool.js';

/**
 * Options of {@link OfficeEngine}; the conversion's worker threads take the
 * {@link OfficeWorkerPoolOptions} (time budget, heap limit, recycling).
 */
export interface OfficeEngineOptions extends OfficeWorkerPoolOptions {
  /**
   * Converted documents kept in memory, by hash (a pipeline opens, inspects and parses each page
   * of the same document).
   * @default 8
   */
  readonly cacheSize?: number;
}

/** The engine-private document profile of an office document. */
export interface OfficeDocumentProfile {
  source: 'office';
  format: OfficeFormat;
  geometry: OfficeDocument['geometry'];
}

/** DPI the boxes refer to when the request leaves it to the provider (as for PDF text). */
export const DEFAULT_OFFICE_DPI = 144;

/** The model name office pages report. */
export const OFFICE_MODEL = 'office-convert-1';

/**
 * Opens Word (docx), PowerPoint (pptx), Excel (xlsx, xls), HTML and Markdown documents by
 * converting them once per hash into pages of Markdown with grounded elements (see the
 * converters), and answers the `local-text` provider's requests for their pages.
 *
 * The pages have a usable "text layer" (the file's own text) and no page image: `hasPageImage`
 * is false, so the router keeps them on text-layer providers (`local-text`); remote vision
 * models and OCR never get them. Complexity stays low (one column, no glyph problems; tables
 * and pictures measured from the converted content), so they route to `fast` with the default
 * thresholds.
 *
 * The conversion runs in worker threads ({@link OfficeWorkerPool}): a large document keeps a
 * worker busy, not the event loop, and one that exceeds the conversion's time budget or memory
 * is rejected (422) at the cost of its worker only.
 */
export class OfficeEngine implements DocumentEngine {
  readonly #store: ObjectStore;
  readonly #cacheSize: number;
  readonly #cache = new Map<string, Promise<OfficeDocument>>();
  readonly #converter: OfficeWorkerPool;

  constructor(store: ObjectStore, options: OfficeEngineOptions = {}) {
    this.#store = store;
    this.#cacheSize = Math.max(1, options.cacheSize ?? 8);
    this.#converter = new OfficeWorkerPool(options);
  }

  /** Starts a conversion worker and loads the converters in it, ahead of the first document. */
  warmUp(): Promise<void> {
    return this.#converter.warmUp();
  }

  /** Stops the conversion workers (conversions under way are rejected); a later call restarts them. */
  close(): Promise<void> {
    return this.#converter.close();
  }

  /**
   * Converts the document and counts its pages (a presentation without slides has none).
   * @throws {UnsupportedDocumentError} when the bytes cannot be read as `ref.format`.
   * @throws {DocumentRejectedError} for zip bombs, encrypted packages, oversized sheets.
   * @throws {ObjectNotFoundError} when nothing is stored under `ref.key`.
   */
  async open(ref: DocumentRef): Promise<{ pageCount: number }> {
    const document = await this.document(ref);
    return { pageCount: document.pages.length };
  }

  /**
   * Measures the given pages from their conversion: size, characters, table rows, picture area.
   * @throws {RangeError} when a page number is outside the document.
   */
  async inspect(ref: DocumentRef, pageNumbers: readonly number[]): Promise<DocumentInspection> {
    const document = await this.document(ref);
    const pages = pageNumbers.map((n) => featuresOf(pageOf(document, n), n));
    const profile: OfficeDocumentProfile = {
      source: 'office',
      format: document.format,
      geometry: document.geometry,
    };
    return { pages, profile };
  }

  /**
   * The provider answer for one page: its Markdown, and its elements with boxes in pixels of
   * the page at the request's DPI (144 by default).
   * @throws {DocumentRejectedError} when the page does not exist.
   * @throws {UnsupportedDocumentError} when the document cannot be converted.
   */
  async parsePage(request: PageParseRequest): Promise<ProviderPageResult> {
    const document = await this.document(request.document);
    let page: OfficePage;
    try {
      page = pageOf(document, request.pageNumber);
    } catch (error) {
      throw new DocumentRejectedError(
        `page ${request.pageNumber} does not exist: the document has ${document.pages.length}`,
        { cause: error },
      );
    }
    const dpi = request.dpi ?? DEFAULT_OFFICE_DPI;
    const scale = dpi / 72;
    const elements: ProviderElement[] = page.elements.map((e) => ({
      text: e.text,
      bbox: { x: e.box.x * scale, y: e.box.y * scale, w: e.box.w * scale, h: e.box.h * scale },
      label: e.label,
      elementType: e.elementType,
      confidence: e.confidence,
    }));
    return {
      markdown: page.markdown,
      elements,
      dpi,
      width: Math.max(1, Math.round(page.widthPt * scale)),
      height: Math.max(1, Math.round(page.heightPt * scale)),
      model: OFFICE_MODEL,
      tokens: { input: 0, output: 0 },
      ocrScore: null,
      // The elements are the file's own (styles, shapes, cells), not recognised.
      layoutScore: 1,
      evidenceText: page.sourceText,
    };
  }

  /** The converted document, from the cache or converted now (once, however many callers). */
  document(ref: DocumentRef): Promise<OfficeDocument> {
    const cached = this.#cache.get(ref.hash);
    if (cached) {
      this.#cache.delete(ref.hash);
      this.#cache.set(ref.hash, cached);
      return cached;
    }
    const converting = this.#convert(ref);
    this.#cache.set(ref.hash, converting);
    // A failure is not kept: a retry converts again.
    converting.catch(() => {
      if (this.#cache.get(ref.hash) === converting) this.#cache.delete(ref.hash);
    });
    while (this.#cache.size > this.#cacheSize) {
      const oldest = this.#cache.keys().next();
      if (oldest.done === true) break;
      this.#cache.delete(oldest.value);
    }
    return converting;
  }

  async #convert(ref: DocumentRef): Promise<OfficeDocument> {
    const format = ref.format;
    if (!isOfficeFormat(format)) {
      throw new UnsupportedDocumentError(`${format} documents are not office documents`);
    }
    const bytes = await this.#store.get(ref.key);
    return this.#converter.convert(bytes, format);
  }
}

function pageOf(document: OfficeDocument, pageNumber: number): OfficePage {
  const page = document.pages[pageNumber - 1];
  if (page === undefined) {
    throw new RangeError(`page ${pageNumber} is outside 1..${document.pages.length}`);
  }
  return page;
}

// eslint-disable-next-line no-control-regex -- control characters are what makes text unusable
const GARBAGE = /[\uE000-\uF8FF\uFFFD\u0000-\u0008\u000e-\u001f]/gu;

/** The features of a converted page (see {@link PageFeatures}). */
export function featuresOf(page: OfficePage, pageNumber: number): PageFeatures {
  const text = page.sourceText ?? plainText(page.markdown);
  const chars = text.length;
  const area = Math.max(1, page.widthPt * page.heightPt);
  const coverage = (test: (label: string) => boolean) =>
    Math.min(
      1,
      page.elements.filter((e) => test(e.label)).reduce((sum, e) => sum + e.box.w * e.box.h, 0) /
        area,
    );
  const lines = page.markdown
    .split('\n')
    .filter((l) => l.trim() !== '' && !/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(l));
  const tableRows = lines.filter((l) => l.trimStart().startsWith('|')).length;
  return {
    pageNumber,
    widthPt: page.widthPt,
    heightPt: page.heightPt,
    textChars: chars,
    garbageRatio: chars === 0 ? 0 : (text.match(GARBAGE) ?? []).length / chars,
    textCoverage: coverage((label) => label !== 'figure'),
    imageCoverage: coverage((label) => label === 'figure'),
    ruleCount: 0,
    tableAlignment: lines.length === 0 ? 0 : tableRows / lines.length,
    columnCount: 1,
    fontCount: 1,
    mathCharRatio: 0,
    invisibleCharRatio: 0,
    usableTextLayer: true,
    hasPageImage: false,
  };
}
