import { createRequire } from 'node:module';
import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { DocumentRejectedError, UnsupportedDocumentError } from '../../core/domain/errors.js';

/** The pdf.js module (legacy build, the one that runs on Node). */
export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let pdfjsModule: Promise<PdfJs> | undefined;

/**
 * The minified legacy build and its worker module. Same code as `pdf.mjs` and `pdf.worker.mjs`
 * (same renders, text and operator lists), but about half the source, and without the
 * `sourceMappingURL` that, with source maps enabled (tsx, `--enable-source-maps`), makes Node
 * load and keep 8 MB of source maps: a thread that loads pdf.js holds 100 to 150 MB less.
 */
const PDFJS_BUILD = 'pdfjs-dist/legacy/build/pdf.min.mjs';
const PDFJS_WORKER_BUILD = 'pdfjs-dist/legacy/build/pdf.worker.min.mjs';

/**
 * Loads pdf.js once per thread. Its worker side runs in this thread (pdf.js' "fake worker"):
 * the worker module is loaded here and handed to pdf.js (`globalThis.pdfjsWorker`), so that
 * pdf.js does not import its default, unminified, worker file.
 */
export const loadPdfJs = (): Promise<PdfJs> =>
  (pdfjsModule ??= (async () => {
    const worker = (await import(PDFJS_WORKER_BUILD)) as unknown;
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return (await import(PDFJS_BUILD)) as PdfJs;
  })());

const packageDir = (() => {
  const require = createRequire(import.meta.url);
  return require.resolve('pdfjs-dist/package.json').replace(/package\.json$/, '');
})();

/** Options for {@link openPdf}. */
export interface OpenPdfOptions {
  /**
   * Longest the parse of the document structure may take, in milliseconds.
   * @default 20000
   */
  timeoutMs?: number;
}

/**
 * Rejects with `onTimeout()` when `promise` has not settled after `ms` milliseconds.
 *
 * @example
 * await withTimeout(page.getOperatorList(), 10_000, () => new Error('too slow'));
 */
export const withTimeout = <T>(
  promise: Promise<T>,
  ms: number,
  onTimeout: () => Error,
): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(onTimeout());
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
  });
};

const errorName = (error: unknown): string =>
  typeof error === 'object' && error !== null && 'name' in error && typeof error.name === 'string'
    ? error.name
    : '';

const errorMessage = (error: unknown): string =>
  error instanceof Error
    ? error.message
    : typeof error === 'object' && error !== null && 'message' in error
      ? String(error.message)
      : String(error);

/**
 * Translates a pdf.js failure into a core error.
 *
 * Password exceptions become {@link DocumentRejectedError}; anything else (invalid structure,
 * format errors, unknown failures) becomes {@link UnsupportedDocumentError}. Core errors pass
 * through unchanged.
 */
export const toDocumentError = (error: unknown): Error => {
  if (error instanceof DocumentRejectedError || error instanceof UnsupportedDocumentError) {
    return error;
  }
  const name = errorName(error);
  if (name === 'PasswordException') {
    return new DocumentRejectedError(
      'the PDF is encrypted with a user password; remove the password and upload again',
      { cause: error },
    );
  }
  const reason = errorMessage(error).replace(/\s+/g, ' ').slice(0, 200);
  return new UnsupportedDocumentError(
    `the PDF is damaged and cannot be opened (${reason || name || 'unknown error'})`,
    { cause: error },
  );
};

/**
 * Most pixels an image of a PDF may have for pdf.js to decode it (its `maxImageSize`); larger
 * images are left out of the rendering (the page still renders). 100 million pixels: 400 MB of
 * RGBA at worst, above any real scan (A3 at 600 DPI is about 70 million).
 */
export const MAX_IMAGE_PIXELS = 100_000_000;

const PDF_HEADER = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"

/** True when "%PDF-" occurs in the first KiB (readers tolerate leading junk up to there). */
export const hasPdfHeader = (data: Uint8Array): boolean => {
  const limit = Math.min(data.length - PDF_HEADER.length, 1024);
  for (let i = 0; i <= limit; i++) {
    if (PDF_HEADER.every((byte, k) => data[i + k] === byte)) return true;
  }
  return false;
};

/**
 * Opens a PDF with pdf.js from its bytes, safely: no `eval`, no font faces, no system fonts.
 *
 * The bytes are copied, since pdf.js takes ownership of (detaches) the buffer it is given.
 *
 * @returns the open document; call `destroy()` on it when done.
 * @throws {UnsupportedDocumentError} when the bytes are not a PDF or too damaged to open.
 * @throws {DocumentRejectedError} when a user password is needed, or the document has no pages.
 */
export const openPdf = async (
  bytes: Uint8Array,
  options: OpenPdfOptions = {},
): Promise<PDFDocumentProxy> => {
  if (!hasPdfHeader(bytes)) {
    throw new UnsupportedDocumentError(
      'the PDF is damaged: the file does not start with a PDF header (%PDF-)',
    );
  }
  const pdfjs = await loadPdfJs();
  const task = pdfjs.getDocument({
    data: new Uint8Array(bytes),
    standardFontDataUrl: `${packageDir}standard_fonts/`,
    cMapUrl: `${packageDir}cmaps/`,
    cMapPacked: true,
    wasmUrl: `${packageDir}wasm/`,
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    enableXfa: false,
    // Images above this many pixels are skipped rather than decoded (a 60000 × 60000 image
    // would take gigabytes); a 600 DPI scan of an A3 page has about 70 million.
    maxImageSize: MAX_IMAGE_PIXELS,
    stopAtErrors: false,
    verbosity: 0,
  });
  let document: PDFDocumentProxy;
  try {
    document = await withTimeout(
      task.promise,
      options.timeoutMs ?? 20_000,
      () =>
        new UnsupportedDocumentError('the PDF is damaged: its structure could not be read in time'),
    );
  } catch (error) {
    void task.destroy().catch(() => undefined);
    throw toDocumentError(error);
  }
  if (document.numPages < 1) {
    void document.destroy().catch(() => undefined);
    throw new DocumentRejectedError('the PDF has no pages');
  }
  return document;
};
