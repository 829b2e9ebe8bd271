import type { DocumentRef } from '../../core/ports/document-engine.js';
import type { PageRasterizer, RasterPage } from '../raster.js';
import type { PdfPageSource } from './pdf-page-source.js';

/** Options of {@link PdfRasterizer}. */
export interface PdfRasterizerOptions {
  /**
   * Most pixels a rendered page may have; the DPI is lowered to fit.
   * @default 40_000_000
   */
  maxPixels?: number;
  /**
   * DPI when the caller asks for automatic (OCR quality). Scanned pages (one raster image over
   * at least 70% of the page) render at the image's own resolution when that is lower: rendering
   * above it only interpolates pixels and makes recognition slower.
   * @default 300
   */
  defaultDpi?: number;
  /**
   * Lowest DPI worth rendering; a page that only fits the cap below it is rejected.
   * @default 20
   */
  minDpi?: number;
}

/**
 * Renders PDF pages to PNG with pdf.js on @napi-rs/canvas, on a white background. The pixel
 * count is capped: a huge MediaBox or /UserUnit lowers the DPI instead of allocating gigabytes.
 * The render time limit belongs to `source`.
 */
export class PdfRasterizer implements PageRasterizer {
  readonly #source: PdfPageSource;
  readonly #maxPixels: number;
  readonly #defaultDpi: number;
  readonly #minDpi: number;

  constructor(source: PdfPageSource, options: PdfRasterizerOptions = {}) {
    this.#source = source;
    this.#maxPixels = options.maxPixels ?? 40_000_000;
    this.#defaultDpi = options.defaultDpi ?? 300;
    this.#minDpi = options.minDpi ?? 20;
  }

  /**
   * Renders one page.
   * @param dpi requested resolution, or null for automatic: `defaultDpi`, or the resolution of the
   *   scanned image when the page is a scan of lower resolution (never below 72).
   * @returns PNG bytes, the image size in pixels and the DPI actually used (may be lower than
   *   requested, to respect the pixel cap).
   * @throws {DocumentRejectedError} when the page would exceed the pixel cap even at the lowest
   *   DPI, does not exist, or cannot be rendered.
   */
  async rasterize(ref: DocumentRef, pageNumber: number, dpi: number | null): Promise<RasterPage> {
    let useDpi = dpi ?? this.#defaultDpi;
    if (dpi === null) {
      const { scanDpi } = (await this.#source.page(ref, pageNumber)).stats;
      if (scanDpi !== null) useDpi = Math.min(useDpi, Math.max(72, scanDpi));
    }
    return this.#source.render(ref, pageNumber, {
      dpi: useDpi,
      maxPixels: this.#maxPixels,
      minDpi: this.#minDpi,
    });
  }
}
