import type { DocumentRef } from '../../functions/core/ports/document-engine.js';
import type { ProviderPageResult } from '../../functions/core/ports/page-provider.js';
import type { LocalTextProvider } from '../../functions/engines/pdf/local-text-provider.js';
import type { PdfEngine } from '../../functions/engines/pdf/pdf-engine.js';

/**
 * Every page of `document` as the service lays it out: `engine` opens it and inspects all its
 * pages (for the document's layout profile), then `provider` parses them one by one.
 */
export async function* laidOutPages(
  engine: PdfEngine,
  provider: LocalTextProvider,
  document: DocumentRef,
): AsyncGenerator<{ pageNumber: number; result: ProviderPageResult }> {
  const { pageCount } = await engine.open(document);
  const pageNumbers = Array.from({ length: pageCount }, (_, i) => i + 1);
  const { profile } = await engine.inspect(document, pageNumbers);
  for (const pageNumber of pageNumbers) {
    const result = await provider.parsePage({
      document,
      pageNumber,
      dpi: null,
      profile,
      maintainFormat: true,
    });
    yield { pageNumber, result };
  }
}
