import { featuresWithoutTextLayer } from '../../core/domain/routing.js';
import type {
  DocumentEngine,
  DocumentInspection,
  DocumentRef,
  PageFeatures,
} from '../../core/ports/document-engine.js';
import type { ObjectStore } from '../../core/ports/object-store.js';
import {
  DEFAULT_MAX_IMAGE_PIXELS,
  estimateDpi,
  probeImage,
  verifyPage,
  type ImageInfo,
  type ImageLimits,
} from './image-source.js';

/** Options of {@link ImageEngine} and {@link ImageRasterizer}. */
export interface ImageEngineOptions {
  /**
   * Largest page accepted, in pixels (width × height); larger images are rejected before decoding.
   * @default DEFAULT_MAX_IMAGE_PIXELS (100 megapixels)
   */
  readonly maxPixels?: number;
  /**
   * Largest width or height of a page, in pixels, checked from the headers.
   * @default DEFAULT_MAX_IMAGE_SIDE (30,000)
   */
  readonly maxSide?: number;
  /**
   * Largest ratio of a page's long side to its short side.
   * @default DEFAULT_MAX_IMAGE_ASPECT_RATIO (100)
   */
  readonly maxAspectRatio?: number;
  /**
   * Most pages of a multi-page TIFF; the count is read from the first header and a longer TIFF
   * is refused before any page is visited (as a PDF over the page cap is).
   * @default DEFAULT_MAX_IMAGE_PAGES (1000, the default `MAX_DOCUMENT_PAGES`)
   */
  readonly maxPages?: number;
}

/** The caps of `options`, defaults filled in where absent (see {@link ImageEngineOptions}). */
export function imageLimits(options: ImageEngineOptions): ImageLimits {
  return {
    maxPixels: options.maxPixels ?? DEFAULT_MAX_IMAGE_PIXELS,
    ...(options.maxSide === undefined ? {} : { maxSide: options.maxSide }),
    ...(options.maxAspectRatio === undefined ? {} : { maxAspectRatio: options.maxAspectRatio }),
    ...(options.maxPages === undefined ? {} : { maxPages: options.maxPages }),
  };
}

/** The engine-private document profile of an image document. */
export interface ImageDocumentProfile {
  source: 'image';
  format: ImageInfo['format'];
  /** Pixel size and estimated DPI of every page, in page order. */
  pages: { width: number; height: number; dpi: number }[];
}

/** Documents kept probed, by hash: a pipeline opens, inspects and rasterises the same bytes. */
const CACHE_SIZE = 16;

/**
 * Opens PNG, JPEG, WebP, HEIC and (multi-page) TIFF documents: one page per image, or per TIFF
 * page. Images have no text layer, so every page goes to OCR.
 */
export class ImageEngine implements DocumentEngine {
  readonly #store: ObjectStore;
  readonly #limits: ImageLimits;
  readonly #cache = new Map<string, ImageInfo>();

  constructor(store: ObjectStore, options: ImageEngineOptions = {}) {
    this.#store = store;
    this.#limits = imageLimits(options);
  }

  /**
   * Reads the headers, refuses oversized pages, then decodes every page once to prove it is whole.
   *
   * @returns the page count: 1, or the number of pages of a multi-page TIFF.
   * @throws {UnsupportedDocumentError} when the bytes are not an image or are truncated or corrupt,
   *   with a detail such as "the PNG image is truncated or corrupt: ...".
   * @throws {DocumentRejectedError} when a page exceeds the pixel, side or aspect-ratio caps
   *   (decompression bomb, pixel strip) or a TIFF has more pages than `maxPages`; the detail gives
   *   the declared size or count and the cap. Nothing is decoded in that case.
   * @throws {ObjectNotFoundError} when nothing is stored under `ref.key`.
   */
  async open(ref: DocumentRef): Promise<{ pageCount: number }> {
    const bytes = await this.#store.get(ref.key);
    const info = await probeImage(bytes, ref.format, this.#limits);
    for (let page = 0; page < info.pages.length; page++) {
      await verifyPage(bytes, info, page, this.#limits);
    }
    this.#remember(ref.hash, info);
    return { pageCount: info.pages.length };
  }

  /**
   * Describes the given pages: size (1 px = 1 pt, the 72-DPI convention of images), no text
   * layer, a full-page image.
   *
   * @param pageNumbers 1-based page numbers.
   * @returns the features and an {@link ImageDocumentProfile}.
   * @throws {RangeError} when a page number is outside the document.
   */
  async inspect(ref: DocumentRef, pageNumbers: readonly number[]): Promise<DocumentInspection> {
    const info = await this.#info(ref);
    const pages = pageNumbers.map((pageNumber): PageFeatures => {
      const size = info.pages[pageNumber - 1];
      if (size === undefined) {
        throw new RangeError(`page ${pageNumber} is outside 1..${info.pages.length}`);
      }
      return featuresWithoutTextLayer({
        pageNumber,
        widthPt: size.width,
        heightPt: size.height,
        imageCoverage: 1,
      });
    });
    const profile: ImageDocumentProfile = {
      source: 'image',
      format: info.format,
      pages: info.pages.map((size) => ({ ...size, dpi: estimateDpi(size, info.density) })),
    };
    return { pages, profile };
  }

  async #info(ref: DocumentRef): Promise<ImageInfo> {
    const cached = this.#cache.get(ref.hash);
    if (cached !== undefined) return cached;
    const info = await probeImage(await this.#store.get(ref.key), ref.format, this.#limits);
    this.#remember(ref.hash, info);
    return info;
  }

  #remember(hash: string, info: ImageInfo): void {
    this.#cache.delete(hash);
    this.#cache.set(hash, info);
    if (this.#cache.size > CACHE_SIZE) {
      const oldest = this.#cache.keys().next();
      if (oldest.done !== true) this.#cache.delete(oldest.value);
    }
  }
}
