import { ObjectNotFoundError, UnsupportedDocumentError } from '../../core/domain/errors.js';
import type { DocumentEngine, DocumentRef } from '../../core/ports/document-engine.js';
import type { ObjectStore } from '../../core/ports/object-store.js';
import {
  OFFLINE_STRUCTURE_MODEL,
  type OpenedStructureDocument,
  type PageRegions,
  type StructureDocument,
  type StructureExtractor,
} from '../../core/ports/structure-extractor.js';
import { scalePageText } from '../layout/scale.js';
import type { PageText } from '../layout/types.js';
import { ocrToPageText, withoutRuleGlyphs } from '../ocr/ocr-page-text.js';
import { detectRuleLines } from '../ocr/rule-lines.js';
import type { OcrResult, RecognizeOptions } from '../ocr/tesseract-ocr.js';
import { DEFAULT_TEXT_DPI } from '../pdf/local-text-provider.js';
import { pageFeatures } from '../pdf/page-features.js';
import type { PdfPageSource } from '../pdf/pdf-page-source.js';
import type { PageRasterizer } from '../raster.js';
import { pageStructure, type TextSource } from './page-structure.js';

const IMAGE_FORMATS = new Set(['png', 'jpeg', 'webp', 'tiff', 'heic']);

/**
 * An object store holding the documents under extraction, in memory, for the engines that read
 * documents by key (the PDF reader's worker client, the image decoder). Nothing is written to
 * the service's storage: structured extraction answers synchronously from the uploaded bytes.
 */
export class TransientDocumentStore implements ObjectStore {
  readonly #documents = new Map<string, Uint8Array>();

  put(key: string, body: Uint8Array): Promise<void> {
    this.#documents.set(key, body);
    return Promise.resolve();
  }

  get(key: string): Promise<Uint8Array> {
    const bytes = this.#documents.get(key);
    return bytes ? Promise.resolve(bytes) : Promise.reject(new ObjectNotFoundError(key));
  }

  exists(key: string): Promise<boolean> {
    return Promise.resolve(this.#documents.has(key));
  }

  delete(key: string): Promise<void> {
    this.#documents.delete(key);
    return Promise.resolve();
  }
}

/** What {@link OfflineStructureExtractor} reads pages with. */
export interface OfflineStructureParts {
  /** Where the documents under extraction are kept; the readers below read from it. */
  store: TransientDocumentStore;
  /** PDF pages: text runs, rules and images at 72 DPI. */
  pdf: PdfPageSource;
  /** Page images for OCR: PDF pages rendered, image documents decoded (`dpi: null`: automatic). */
  rasterizer: PageRasterizer;
  /** Opens image documents (page counts, TIFF pages). */
  images: DocumentEngine;
  /** The recogniser for pages without a usable text layer. */
  ocr: { recognize(image: Uint8Array, options?: RecognizeOptions): Promise<OcrResult> };
}

/**
 * The offline structure extractor: reads each page with the same layout analysis as the
 * Markdown of a parse, from the PDF text layer where it is usable (pixels at 144 DPI, as the
 * text-layer provider reports its grounding), by OCR otherwise (PDF scans rendered at 200 DPI or
 * their own resolution, images at their own pixels), and returns its tables, display equations
 * and figures ({@link pageStructure}).
 */
export class OfflineStructureExtractor implements StructureExtractor {
  readonly model = OFFLINE_STRUCTURE_MODEL;
  readonly #parts: OfflineStructureParts;
  #next = 0;

  constructor(parts: OfflineStructureParts) {
    this.#parts = parts;
  }

  /**
   * Keeps the bytes in the transient store and opens the document.
   * @throws {UnsupportedDocumentError} for formats other than PDF and images, or damaged bytes.
   * @throws {DocumentRejectedError} when the document needs a password or has no pages.
   */
  async open(document: StructureDocument): Promise<OpenedStructureDocument> {
    const { format } = document;
    if (format !== 'pdf' && !IMAGE_FORMATS.has(format)) {
      throw new UnsupportedDocumentError(
        `structured extraction reads PDF and image documents (png, jpeg, webp, tiff, heic), not ${format}; use POST /v1/parse/upload for ${format} documents`,
      );
    }
    const ref: DocumentRef = {
      key: `structure/${String(++this.#next)}/${document.hash}`,
      format,
      hash: document.hash,
    };
    const { store } = this.#parts;
    await store.put(ref.key, document.bytes);
    try {
      const pageCount =
        format === 'pdf'
          ? await this.#parts.pdf.pageCount(ref)
          : (await this.#parts.images.open(ref)).pageCount;
      return {
        pageCount,
        extractPage: (pageNumber) => this.#page(ref, pageNumber),
        close: () => store.delete(ref.key),
      };
    } catch (error) {
      await store.delete(ref.key);
      throw error;
    }
  }

  /** One page: the text layer when usable, OCR otherwise. */
  async #page(ref: DocumentRef, pageNumber: number): Promise<PageRegions> {
    if (ref.format === 'pdf') {
      const extracted = await this.#parts.pdf.page(ref, pageNumber);
      if (pageFeatures(extracted).usableTextLayer) {
        return regionsOf(scalePageText(extracted.text, DEFAULT_TEXT_DPI), 'text_layer');
      }
    }
    return regionsOf(await this.#ocrPage(ref, pageNumber), 'ocr');
  }

  /** The page image recognised, with the rule lines found in it (table grids). */
  async #ocrPage(ref: DocumentRef, pageNumber: number): Promise<PageText> {
    const raster = await this.#parts.rasterizer.rasterize(ref, pageNumber, null);
    const [ocr, rules] = await Promise.all([
      this.#parts.ocr.recognize(raster.png, { dpi: raster.dpi }),
      detectRuleLines(raster.png, raster.width, raster.height),
    ]);
    const geometry = { pageNumber, width: raster.width, height: raster.height, dpi: raster.dpi };
    return withoutRuleGlyphs(ocrToPageText(ocr, geometry), rules);
  }
}

/** The regions of a page read from `source`. */
function regionsOf(page: PageText, source: TextSource): PageRegions {
  const { regions, notes } = pageStructure(page, source);
  return {
    pageNumber: page.pageNumber,
    width: page.width,
    height: page.height,
    dpi: page.dpi,
    source,
    regions,
    notes,
  };
}
