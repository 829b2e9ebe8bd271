import type { OfficeDocument, OfficeFormat } from './office-document.js';

/**
 * Converts an office document with its format's converter, loaded on first use (the readers are
 * large and functions that never see these formats need not load them). Runs in the office
 * worker thread (`office-worker.ts`); the server calls it through {@link OfficeWorkerPool}.
 * @param bytes the file's bytes.
 * @param format the declared format: docx, pptx, xlsx, xls, html or md.
 * @returns the pages as plain data (structured-clone-able: strings, numbers, arrays, objects).
 * @throws {UnsupportedDocumentError} when the bytes cannot be read as `format` (400).
 * @throws {DocumentRejectedError} for zip bombs, encrypted packages, DTDs, oversized sheets,
 *   nesting past the depth caps (422).
 * @throws any error of the underlying reader on damaged input (the caller maps it to
 *   UnsupportedDocumentError).
 */
export async function convertDocument(
  bytes: Uint8Array,
  format: OfficeFormat,
): Promise<OfficeDocument> {
  switch (format) {
    case 'docx':
      return (await import('./docx.js')).convertDocx(bytes);
    case 'pptx':
      return (await import('./pptx.js')).convertPptx(bytes);
    case 'xlsx':
      return (await import('./xlsx.js')).convertXlsx(bytes);
    case 'xls':
      return (await import('./xls.js')).convertXls(bytes);
    case 'html':
      return (await import('./html.js')).convertHtml(bytes);
    case 'md':
      return (await import('./markdown-document.js')).convertMarkdown(bytes);
  }
}

/** Loads every converter now, so that the first document of each format does not wait for it. */
export async function loadConverters(): Promise<void> {
  await Promise.all([
    import('./docx.js'),
    import('./pptx.js'),
    import('./xlsx.js'),
    import('./xls.js'),
    import('./html.js'),
    import('./markdown-document.js'),
  ]);
}
