import { availableParallelism } from 'node:os';
import type { Config } from '../config.js';
import { UnsupportedDocumentError } from '../core/domain/errors.js';
import type { DocumentFormat } from '../core/domain/schemas.js';
import type { DocumentEngine, DocumentRef } from '../core/ports/document-engine.js';
import type { ObjectStore } from '../core/ports/object-store.js';
import type { PageProvider } from '../core/ports/page-provider.js';
import { instantiateProvider } from '../providers/provider-factory.js';
import type { ProviderRuntime } from '../providers/provider-registry.js';
import { ImageEngine } from './image/image-engine.js';
import { ImageRasterizer } from './image/image-rasterizer.js';
import { LocalOcrProvider, OCR_RENDER_DPI } from './ocr/local-ocr-provider.js';
import { isOfficeFormat } from './office/office-document.js';
import { OfficeEngine } from './office/office-engine.js';
import { TesseractOcr } from './ocr/tesseract-ocr.js';
import { LocalTextProvider } from './pdf/local-text-provider.js';
import { PdfEngine } from './pdf/pdf-engine.js';
import { PdfRasterizer } from './pdf/pdf-rasterizer.js';
import { PdfWorkerClient } from './pdf/pdf-worker-client.js';
import { pdfReaderOptions } from './pdf-reader-options.js';
import type { PageRasterizer } from './raster.js';
import { tuneTiering } from './v8-tiering.js';

const IMAGE_FORMATS: readonly DocumentFormat[] = ['png', 'jpeg', 'webp', 'tiff', 'heic'];

/** The document engines and offline providers, with their background workers. */
export interface EmbeddedEngines {
  engineFor: (format: DocumentFormat) => DocumentEngine | undefined;
  /** The offline providers and the page renderer remote providers send images from. */
  runtime: ProviderRuntime;
  /** Starts the PDF and office workers ahead of the first document. */
  warmUp(): Promise<void>;
  /** Stops the PDF, office and OCR workers. */
  close(): Promise<void>;
}

/**
 * The embedded default, the same in both runtimes around their own object store: the PDF reader
 * in a worker thread (PDFium, pdf.js), sharp for images, the office converters (docx, pptx,
 * xlsx, xls, HTML, Markdown) in worker threads too, tesseract.js for OCR, and the offline
 * providers `local-text` (the PDF text layer, and the converted office pages) and `local-ocr`.
 *
 * Office pages have no page image: the rasterizer refuses them, and the router never sends them
 * to a provider that would need one (`hasPageImage: false`).
 *
 * V8's tier-up to TurboFan is set for this workload first ({@link tuneTiering}).
 */
export function buildEngines(config: Config, objects: ObjectStore): EmbeddedEngines {
  tuneTiering();
  const pdfSource = new PdfWorkerClient(objects, {
    ...pdfReaderOptions(config),
    workers:
      config.PDF_WORKERS ??
      (config.RUNTIME_MODE === 'local' ? Math.min(2, availableParallelism()) : 1),
  });
  const pdfEngine = new PdfEngine(pdfSource, { maxPages: 100_000 });
  // A TIFF longer than MAX_DOCUMENT_PAGES is refused from its first header, as a PDF would be.
  const imageEngine = new ImageEngine(objects, { maxPages: config.MAX_DOCUMENT_PAGES });
  const officeEngine = new OfficeEngine(objects, { idleMs: config.ENGINE_IDLE_MS });
  const pdfRasterizer = new PdfRasterizer(pdfSource, {
    maxPixels: config.MAX_PAGE_PIXELS,
    defaultDpi: OCR_RENDER_DPI,
  });
  const imageRasterizer = new ImageRasterizer(objects, { maxPages: config.MAX_DOCUMENT_PAGES });
  const rasterizer: PageRasterizer = {
    rasterize: (ref: DocumentRef, pageNumber: number, dpi: number | null) => {
      if (ref.format === 'pdf') return pdfRasterizer.rasterize(ref, pageNumber, dpi);
      if (isOfficeFormat(ref.format)) {
        return Promise.reject(
          new UnsupportedDocumentError(
            `${ref.format} pages have no page image: they are parsed from the file's own text by local-text, not by OCR or vision models`,
          ),
        );
      }
      return imageRasterizer.rasterize(ref, pageNumber, dpi);
    },
  };
  const ocr = new TesseractOcr({ workers: config.OCR_WORKERS, idleMs: config.ENGINE_IDLE_MS });
  return {
    engineFor: (format) => {
      if (format === 'pdf') return pdfEngine;
      if (IMAGE_FORMATS.includes(format)) return imageEngine;
      return isOfficeFormat(format) ? officeEngine : undefined;
    },
    runtime: {
      local: new Map<'local-text' | 'local-ocr', PageProvider>([
        [
          'local-text',
          // One process runs every stage here: a page routed to the text layer is laid out
          // while Route stores the routes and ParsePage charges the page (on AWS, Route's
          // Lambda would never answer the page).
          new LocalTextProvider(pdfSource, officeEngine, {
            prefetch: config.RUNTIME_MODE === 'local',
          }),
        ],
        ['local-ocr', new LocalOcrProvider(rasterizer, ocr)],
      ]),
      rasterizer,
      build: instantiateProvider,
    },
    warmUp: async () => {
      await Promise.all([pdfSource.warmUp(), officeEngine.warmUp()]);
    },
    close: async () => {
      await ocr.terminate();
      await Promise.all([pdfSource.close(), officeEngine.close()]);
    },
  };
}
