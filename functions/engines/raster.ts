import type { DocumentRef } from '../core/ports/document-engine.js';

/** A page rendered to an image: PNG bytes, size in pixels, and the DPI it was rendered (or scanned) at. */
export interface RasterPage {
  png: Uint8Array;
  width: number;
  height: number;
  dpi: number;
}

/** Renders (PDF) or decodes (image formats) one page to pixels. */
export interface PageRasterizer {
  /**
   * @param dpi requested resolution, or null for automatic.
   * @throws {DocumentRejectedError} when the page would exceed the pixel cap.
   */
  rasterize(ref: DocumentRef, pageNumber: number, dpi: number | null): Promise<RasterPage>;
}
