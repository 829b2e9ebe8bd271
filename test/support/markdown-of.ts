import { layoutPage } from '../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../functions/engines/layout/profile.js';
import { extractPage } from '../../functions/engines/pdf/page-text.js';
import { openPdf } from '../../functions/engines/pdf/pdf-document.js';
import { extractPdfiumPage } from '../../functions/engines/pdf/pdfium-page-text.js';
import { loadPdfium, PdfiumDocument } from '../../functions/engines/pdf/pdfium.js';

/** Markdown of every page of a PDF, read with PDFium and laid out as the text-layer provider does. */
export const pdfiumMarkdownOf = async (bytes: Uint8Array): Promise<string> => {
  const reader = PdfiumDocument.open(await loadPdfium(), bytes);
  try {
    const pages = Array.from({ length: reader.pageCount }, (_, i) =>
      extractPdfiumPage(reader, i + 1, 144),
    ).map((p) => p.text);
    const profile = buildLayoutProfile(pages);
    return pages.map((p) => layoutPage(p, profile).markdown).join('\n\n');
  } finally {
    reader.close();
  }
};

/** Markdown of page 1 read with pdf.js (the fallback reader). */
export const pdfjsMarkdownOf = async (bytes: Uint8Array): Promise<string> => {
  const document = await openPdf(bytes);
  try {
    const page = (await extractPage(await document.getPage(1), 144)).text;
    return layoutPage(page, buildLayoutProfile([page])).markdown;
  } finally {
    await document.destroy();
  }
};
