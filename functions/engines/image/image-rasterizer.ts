import sharp from 'sharp';
import { DocumentRejectedError } from '../../core/domain/errors.js';
import type { DocumentRef } from '../../core/ports/document-engine.js';
import type { ObjectStore } from '../../core/ports/object-store.js';
import type { PageRasterizer, RasterPage } from '../raster.js';
import { imageLimits, type ImageEngineOptions } from './image-engine.js';
import {
  decodePage,
  estimateDpi,
  probeImage,
  type ImageInfo,
  type ImageLimits,
} from './image-source.js';

/** zlib level of the page PNGs: they are short-lived intermediates, so speed beats size. */
const PNG_COMPRESSION_LEVEL = 2;

/**
 * Decodes a page of an image document (PNG, JPEG, WebP, HEIC, or one page of a TIFF) to PNG.
 *
 * The page keeps its own pixels unless a DPI is requested. Its DPI is the one
 * {@link estimateDpi} gives: the file's density when plausible, else an estimate that assumes the
 * image is a Letter-sized page (about 300 for typical scans). Pixels are upright (EXIF
 * orientation applied) and transparency is flattened on white.
 */
export class ImageRasterizer implements PageRasterizer {
  readonly #store: ObjectStore;
  readonly #limits: ImageLimits;

  constructor(store: ObjectStore, options: ImageEngineOptions = {}) {
    this.#store = store;
    this.#limits = imageLimits(options);
  }

  /**
   * @param pageNumber 1-based page (TIFF pages); 1 for single images.
   * @param dpi null keeps the image's pixels and reports its estimated DPI; a number resamples the
   *   image by `dpi / estimated DPI`.
   * @returns PNG bytes (grey or RGB, 8 bits) with their size in pixels and the DPI.
   * @throws {UnsupportedDocumentError} when the image is truncated or corrupt.
   * @throws {DocumentRejectedError} when the page exceeds the size caps (or its resampled size the
   *   pixel cap).
   * @throws {RangeError} when `pageNumber` is outside the document.
   */
  async rasterize(ref: DocumentRef, pageNumber: number, dpi: number | null): Promise<RasterPage> {
    const bytes = await this.#store.get(ref.key);
    const info = await probeImage(bytes, ref.format, this.#limits);
    const size = info.pages[pageNumber - 1];
    if (size === undefined) {
      throw new RangeError(`page ${pageNumber} is outside 1..${info.pages.length}`);
    }
    const nativeDpi = estimateDpi(size, info.density);
    const target = targetSize(info, pageNumber, nativeDpi, dpi, this.#limits.maxPixels);

    const page = await decodePage(bytes, info, pageNumber - 1, this.#limits);
    let image = sharp(page.pixels, {
      raw: { width: page.width, height: page.height, channels: page.channels },
    });
    if (target.width !== page.width || target.height !== page.height) {
      image = image.resize(target.width, target.height, { fit: 'fill' });
    }
    const png = await image
      .png({ compressionLevel: PNG_COMPRESSION_LEVEL, adaptiveFiltering: false })
      .toBuffer();
    return { png, width: target.width, height: target.height, dpi: dpi ?? nativeDpi };
  }
}

function targetSize(
  info: ImageInfo,
  pageNumber: number,
  nativeDpi: number,
  dpi: number | null,
  maxPixels: number,
): { width: number; height: number } {
  const size = info.pages[pageNumber - 1] ?? { width: 1, height: 1 };
  if (dpi === null || dpi === nativeDpi) return size;
  const scale = dpi / nativeDpi;
  const width = Math.max(1, Math.round(size.width * scale));
  const height = Math.max(1, Math.round(size.height * scale));
  if (width * height > maxPixels) {
    throw new DocumentRejectedError(
      `page ${pageNumber} at ${dpi} DPI would be ${width} × ${height} pixels, above the ${(maxPixels / 1e6).toFixed(0)} Mpx limit; request a lower DPI`,
      { details: { width, height, dpi, maxPixels } },
    );
  }
  return { width, height };
}
