import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { DocumentRejectedError } from '../../core/domain/errors.js';
import type { RasterPage } from '../raster.js';
import { pageOverBudget, type RenderOptions } from './pdf-page-source.js';
import { toDocumentError, withTimeout } from './pdf-document.js';

interface CanvasFactory {
  create(
    width: number,
    height: number,
  ): { canvas: HTMLCanvasElement; context: CanvasRenderingContext2D };
}

/**
 * The highest DPI not above `dpi` at which a `widthPt` × `heightPt` page stays within
 * `maxPixels` (the pixel count rounds each side up).
 */
export const fitDpi = (
  widthPt: number,
  heightPt: number,
  dpi: number,
  maxPixels: number,
): number => {
  const pixelsAt = (d: number): number =>
    Math.ceil((widthPt * d) / 72) * Math.ceil((heightPt * d) / 72);
  if (pixelsAt(dpi) <= maxPixels) return dpi;
  let fitted = Math.floor(72 * Math.sqrt(maxPixels / (widthPt * heightPt)));
  while (fitted > 1 && pixelsAt(fitted) > maxPixels) fitted--;
  return fitted;
};

/**
 * Renders one page of an open document to PNG with pdf.js on @napi-rs/canvas, on a white
 * background, lowering the DPI to respect the pixel cap.
 * @throws {DocumentRejectedError} when the page does not exist, would exceed the pixel cap even at
 *   `minDpi`, or cannot be rendered (within `timeoutMs`).
 */
export const renderPage = async (
  document: PDFDocumentProxy,
  pageNumber: number,
  options: RenderOptions & { timeoutMs: number },
): Promise<RasterPage> => {
  if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > document.numPages) {
    throw new DocumentRejectedError(
      `page ${pageNumber} does not exist; the document has ${document.numPages} pages`,
    );
  }
  const page = await document.getPage(pageNumber).catch((error: unknown) => {
    throw new DocumentRejectedError(
      `page ${pageNumber} cannot be rendered: ${toDocumentError(error).message}`,
      { cause: error },
    );
  });
  try {
    const unit = page.getViewport({ scale: 1 });
    const useDpi = fitDpi(unit.width, unit.height, options.dpi, options.maxPixels);
    if (useDpi < options.minDpi) {
      throw new DocumentRejectedError(
        `page ${pageNumber} is too large to render (${Math.round(unit.width)} × ${Math.round(unit.height)} pt)`,
      );
    }
    const viewport = page.getViewport({ scale: useDpi / 72 });
    const width = Math.ceil(viewport.width);
    const height = Math.ceil(viewport.height);
    // pdf.js' own canvas factory: its Path2D and canvas come from the same module instance.
    const factory = (document as unknown as { canvasFactory: CanvasFactory }).canvasFactory;
    const { canvas, context } = factory.create(width, height);
    try {
      context.fillStyle = '#ffffff';
      context.fillRect(0, 0, width, height);
      const task = page.render({
        canvas,
        canvasContext: context,
        viewport,
        background: '#ffffff',
      });
      await withTimeout(task.promise, options.timeoutMs, () => {
        // Cancelled once the timeout has won the race: the cancellation rejects the task too.
        setImmediate(() => {
          task.cancel();
        });
        return pageOverBudget(pageNumber, options.timeoutMs);
      });
      const png = await (
        canvas as unknown as { encode(format: 'png'): Promise<Uint8Array> }
      ).encode('png');
      return {
        png: new Uint8Array(png.buffer, png.byteOffset, png.byteLength),
        width,
        height,
        dpi: useDpi,
      };
    } finally {
      // Release the pixel buffer now rather than at the next GC.
      canvas.width = 0;
      canvas.height = 0;
    }
  } catch (error) {
    if (error instanceof DocumentRejectedError) throw error;
    throw new DocumentRejectedError(
      `page ${pageNumber} cannot be rendered: ${toDocumentError(error).message}`,
      { cause: error },
    );
  } finally {
    page.cleanup();
  }
};
