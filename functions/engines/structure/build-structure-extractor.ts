import type { Config } from '../../config.js';
import { ImageEngine } from '../image/image-engine.js';
import { ImageRasterizer } from '../image/image-rasterizer.js';
import { OCR_RENDER_DPI } from '../ocr/local-ocr-provider.js';
import { TesseractOcr } from '../ocr/tesseract-ocr.js';
import { PdfRasterizer } from '../pdf/pdf-rasterizer.js';
import { PdfWorkerClient } from '../pdf/pdf-worker-client.js';
import { pdfReaderOptions } from '../pdf-reader-options.js';
import {
  OfflineStructureExtractor,
  TransientDocumentStore,
} from './offline-structure-extractor.js';

/** The offline structure extractor of a process, and how to stop its workers. */
export interface BuiltStructureExtractor {
  extractor: OfflineStructureExtractor;
  /** Stops its PDF worker and OCR workers (started on first use only). */
  close(): Promise<void>;
}

/**
 * Builds the offline structure extractor with readers of its own: a PDF worker thread and an OCR
 * pool, both started on the first structured request (a process that never extracts structure
 * pays nothing for them), reading documents from an in-memory store.
 */
export function buildStructureExtractor(config: Config): BuiltStructureExtractor {
  const store = new TransientDocumentStore();
  const pdf = new PdfWorkerClient(store, pdfReaderOptions(config));
  const pdfRasterizer = new PdfRasterizer(pdf, {
    maxPixels: config.MAX_PAGE_PIXELS,
    defaultDpi: OCR_RENDER_DPI,
  });
  const imageRasterizer = new ImageRasterizer(store, { maxPages: config.MAX_DOCUMENT_PAGES });
  const ocr = new TesseractOcr({ workers: config.OCR_WORKERS, idleMs: config.ENGINE_IDLE_MS });
  const extractor = new OfflineStructureExtractor({
    store,
    pdf,
    rasterizer: {
      rasterize: (ref, pageNumber, dpi) =>
        ref.format === 'pdf'
          ? pdfRasterizer.rasterize(ref, pageNumber, dpi)
          : imageRasterizer.rasterize(ref, pageNumber, dpi),
    },
    images: new ImageEngine(store, { maxPages: config.MAX_DOCUMENT_PAGES }),
    ocr,
  });
  return {
    extractor,
    close: async () => {
      await ocr.terminate();
      await pdf.close();
    },
  };
}
