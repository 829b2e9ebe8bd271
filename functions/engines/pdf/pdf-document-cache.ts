import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { DocumentRejectedError, UnsupportedDocumentError } from '../../core/domain/errors.js';
import type { DocumentRef } from '../../core/ports/document-engine.js';
import type { ObjectStore } from '../../core/ports/object-store.js';
import type { RasterPage } from '../raster.js';
import { extractPage, type ExtractedPage } from './page-text.js';
import { openPdf, toDocumentError, withTimeout } from './pdf-document.js';
import { inspectExtractedPage } from './pdf-engine.js';
import {
  pageOverBudget,
  type PageInspection,
  type PdfPageSource,
  type RenderOptions,
} from './pdf-page-source.js';
import { extractPdfiumPage } from './pdfium-page-text.js';
import { loadPdfium, PdfiumDocument } from './pdfium.js';
import { renderPage } from './render-page.js';

/** Which library reads the text layer, rules and images of a page. */
export type PdfTextReader = 'pdfium' | 'pdfjs';

/** Options of {@link PdfDocumentCache}. */
export interface PdfDocumentCacheOptions {
  /**
   * Documents kept open (least recently used evicted first).
   * @default 4
   */
  maxDocuments?: number;
  /**
   * Pages kept extracted per document.
   * @default 2000
   */
  maxPagesPerDocument?: number;
  /**
   * Longest the structure parse of a document may take, in milliseconds.
   * @default 20000
   */
  openTimeoutMs?: number;
  /**
   * Longest the reading of one page may take, in milliseconds.
   * @default 20000
   */
  pageTimeoutMs?: number;
  /**
   * Longest the rendering of one page may take, in milliseconds.
   * @default 60000
   */
  renderTimeoutMs?: number;
  /**
   * The reader of text layers: PDFium (fast; pdf.js still renders pages and reads files PDFium
   * cannot open) or pdf.js for everything.
   * @default 'pdfium'
   */
  textReader?: PdfTextReader;
}

interface Entry {
  /** The file, kept until pdf.js has its own copy. */
  bytes: Promise<Uint8Array> | undefined;
  /** PDFium's document; null when pdf.js reads the text (by choice or as the fallback). */
  reader: Promise<PdfiumDocument | null>;
  /** pdf.js' document, opened on first need (rendering, or reading without PDFium). */
  document: Promise<PDFDocumentProxy> | undefined;
  pages: Map<number, Promise<ExtractedPage>>;
  /** Measurements of pages (see {@link PdfDocumentCache.inspectPage}). */
  inspections: Map<number, Promise<PageInspection>>;
}

/** The DPI pages are extracted at; layout input is rescaled from it. */
export const BASE_DPI = 72;

/**
 * Opened PDFs keyed by document hash, least recently used evicted (and destroyed), so that the
 * stages of one process (inspect, parse, rasterise) parse a document once. Extracted pages (at
 * 72 DPI) are kept with their document.
 *
 * Pages are read with PDFium (or pdf.js, see {@link PdfDocumentCacheOptions.textReader}) and
 * rendered with pdf.js, opened only when a page is rendered. Both run on the calling thread: a
 * PDF whose content loops forever blocks it. The service uses the cache inside
 * {@link PdfWorkerClient}'s worker; tests and tools may use it directly.
 */
export class PdfDocumentCache implements PdfPageSource {
  readonly #store: ObjectStore;
  readonly #entries = new Map<string, Entry>();
  readonly #maxDocuments: number;
  readonly #maxPages: number;
  readonly #openTimeoutMs: number;
  readonly #pageTimeoutMs: number;
  readonly #renderTimeoutMs: number;
  readonly #textReader: PdfTextReader;

  constructor(store: ObjectStore, options: PdfDocumentCacheOptions = {}) {
    this.#store = store;
    this.#maxDocuments = Math.max(1, options.maxDocuments ?? 4);
    this.#maxPages = Math.max(1, options.maxPagesPerDocument ?? 2000);
    this.#openTimeoutMs = options.openTimeoutMs ?? 20_000;
    this.#pageTimeoutMs = options.pageTimeoutMs ?? 20_000;
    this.#renderTimeoutMs = options.renderTimeoutMs ?? 60_000;
    this.#textReader = options.textReader ?? 'pdfium';
  }

  /** True when the document of `ref` is open (or being opened) here. */
  has(ref: DocumentRef): boolean {
    return this.#entries.has(ref.hash || ref.key);
  }

  #entry(ref: DocumentRef): Entry {
    const cacheKey = ref.hash || ref.key;
    const existing = this.#entries.get(cacheKey);
    if (existing) {
      this.#entries.delete(cacheKey);
      this.#entries.set(cacheKey, existing);
      return existing;
    }
    const bytes = this.#store.get(ref.key);
    const entry: Entry = {
      bytes,
      reader: bytes.then((data) => this.#openReader(data)),
      document: undefined,
      pages: new Map(),
      inspections: new Map(),
    };
    // The bytes are not retried when they could not be read; a later call fetches them again.
    void bytes.catch(() => undefined);
    const opened = entry.reader.then((reader) => (reader ? undefined : this.#pdfjs(entry)));
    // A failed open is not cached: the next call tries again (and fails the same way).
    opened.catch(() => {
      if (this.#entries.get(cacheKey) === entry) this.#entries.delete(cacheKey);
    });
    this.#entries.set(cacheKey, entry);
    while (this.#entries.size > this.#maxDocuments) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      const evicted = this.#entries.get(oldest.value);
      this.#entries.delete(oldest.value);
      if (evicted) void PdfDocumentCache.#release(evicted);
    }
    return entry;
  }

  /**
   * Opens `data` with PDFium; null when pdf.js is to read it (chosen so, or PDFium cannot open a
   * file pdf.js may still repair).
   * @throws {DocumentRejectedError} when the PDF needs a user password or has no pages.
   */
  async #openReader(data: Uint8Array): Promise<PdfiumDocument | null> {
    if (this.#textReader !== 'pdfium') return null;
    const pdfium = await loadPdfium();
    try {
      return PdfiumDocument.open(pdfium, data);
    } catch (error) {
      if (error instanceof UnsupportedDocumentError) return null;
      throw error;
    }
  }

  /** pdf.js' document of `entry`, opened once. */
  #pdfjs(entry: Entry): Promise<PDFDocumentProxy> {
    if (!entry.document) {
      const bytes = entry.bytes ?? Promise.reject(new Error('the PDF bytes were released'));
      const document = bytes.then((data) => openPdf(data, { timeoutMs: this.#openTimeoutMs }));
      entry.document = document;
      // pdf.js keeps its own copy; a failed open is retried by the next caller.
      document.then(
        () => {
          entry.bytes = undefined;
        },
        () => {
          if (entry.document === document) entry.document = undefined;
        },
      );
    }
    return entry.document;
  }

  static async #release(entry: Entry): Promise<void> {
    entry.bytes = undefined;
    await Promise.all([
      entry.reader.then((r) => r?.close()).catch(() => undefined),
      entry.document?.then((d) => d.destroy()).catch(() => undefined),
    ]);
  }

  /**
   * The open document for `ref`.
   * @throws {UnsupportedDocumentError} when the bytes are not a readable PDF.
   * @throws {DocumentRejectedError} when it needs a password or has no pages.
   * @throws {ObjectNotFoundError} when nothing is stored under `ref.key`.
   */
  async document(ref: DocumentRef): Promise<PDFDocumentProxy> {
    const entry = this.#entry(ref);
    await entry.reader;
    return this.#pdfjs(entry);
  }

  /** {@inheritDoc PdfPageSource.pageCount} */
  async pageCount(ref: DocumentRef): Promise<number> {
    const entry = this.#entry(ref);
    const reader = await entry.reader;
    return reader ? reader.pageCount : (await this.#pdfjs(entry)).numPages;
  }

  /**
   * One page read at 72 DPI (text runs, rules, images and statistics), cached with its document.
   * @throws {DocumentRejectedError} when `pageNumber` is out of range or the page cannot be read.
   */
  async page(ref: DocumentRef, pageNumber: number): Promise<ExtractedPage> {
    const entry = this.#entry(ref);
    const cached = entry.pages.get(pageNumber);
    if (cached) return cached;
    const extracted = (async () => {
      const reader = await entry.reader;
      if (reader) return extractPdfiumPage(reader, pageNumber, BASE_DPI);
      const document = await this.#pdfjs(entry);
      if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > document.numPages) {
        throw new DocumentRejectedError(
          `page ${pageNumber} does not exist; the document has ${document.numPages} pages`,
        );
      }
      try {
        const tooSlow = () => pageOverBudget(pageNumber, this.#pageTimeoutMs);
        const page = await withTimeout(document.getPage(pageNumber), this.#pageTimeoutMs, tooSlow);
        try {
          return await withTimeout(extractPage(page, BASE_DPI), this.#pageTimeoutMs, tooSlow);
        } finally {
          page.cleanup();
        }
      } catch (error) {
        if (error instanceof DocumentRejectedError) throw error;
        const mapped = toDocumentError(error);
        throw new DocumentRejectedError(`page ${pageNumber} cannot be read: ${mapped.message}`, {
          cause: error,
        });
      }
    })();
    extracted.catch(() => {
      if (entry.pages.get(pageNumber) === extracted) entry.pages.delete(pageNumber);
    });
    entry.pages.set(pageNumber, extracted);
    if (entry.pages.size > this.#maxPages) {
      const oldest = entry.pages.keys().next();
      if (oldest.done !== true) entry.pages.delete(oldest.value);
    }
    return extracted;
  }

  /**
   * One page measured for the router and the layout profile, from {@link page}; kept with its
   * document, so that measuring it again (a prefetch, then the inspection) costs nothing.
   * @throws {DocumentRejectedError} when `pageNumber` is out of range or the page cannot be read.
   */
  inspectPage(ref: DocumentRef, pageNumber: number): Promise<PageInspection> {
    const entry = this.#entry(ref);
    const cached = entry.inspections.get(pageNumber);
    if (cached) return cached;
    const inspected = this.page(ref, pageNumber).then(inspectExtractedPage);
    inspected.catch(() => {
      if (entry.inspections.get(pageNumber) === inspected) entry.inspections.delete(pageNumber);
    });
    entry.inspections.set(pageNumber, inspected);
    if (entry.inspections.size > this.#maxPages) {
      const oldest = entry.inspections.keys().next();
      if (oldest.done !== true) entry.inspections.delete(oldest.value);
    }
    return inspected;
  }

  /** {@inheritDoc PdfPageSource.render} */
  async render(ref: DocumentRef, pageNumber: number, options: RenderOptions): Promise<RasterPage> {
    const document = await this.document(ref);
    return renderPage(document, pageNumber, { ...options, timeoutMs: this.#renderTimeoutMs });
  }

  /** Closes every cached document (same as {@link clear}). */
  close(): Promise<void> {
    return this.clear();
  }

  /** Closes every cached document. */
  async clear(): Promise<void> {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map((e) => PdfDocumentCache.#release(e)));
  }
}
