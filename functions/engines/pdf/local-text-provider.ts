import type {
  PageParseRequest,
  PageProvider,
  ProviderPageResult,
} from '../../core/ports/page-provider.js';
import { layoutPage } from '../layout/layout-page.js';
import { asLayoutProfile, buildLayoutProfile } from '../layout/profile.js';
import { scalePageText } from '../layout/scale.js';
import type { PdfPageSource } from './pdf-page-source.js';

/** DPI the boxes refer to when the request leaves it to the provider. */
export const DEFAULT_TEXT_DPI = 144;

/**
 * The offline text-layer provider: lays out a PDF page from its text layer (no OCR), using the
 * document profile from `inspect`. Boxes are in pixels at the request's DPI (144 by default).
 */
export class LocalTextProvider implements PageProvider {
  readonly id = 'local-text';
  readonly model = 'pdf-text-layout-1';
  readonly #source: PdfPageSource;

  constructor(source: PdfPageSource) {
    this.#source = source;
  }

  /**
   * Parses one page.
   * @throws {DocumentRejectedError} when the page does not exist or cannot be read.
   * @throws {UnsupportedDocumentError} when the document cannot be opened.
   */
  async parsePage(request: PageParseRequest): Promise<ProviderPageResult> {
    const dpi = request.dpi ?? DEFAULT_TEXT_DPI;
    const extracted = await this.#source.page(request.document, request.pageNumber);
    const page = scalePageText(extracted.text, dpi);
    const given = asLayoutProfile(request.profile);
    const profile = given.pageCount > 0 ? given : buildLayoutProfile([extracted.text]);
    const { markdown, elements } = layoutPage(page, profile);
    const layoutScore =
      elements.length === 0
        ? 1
        : elements.reduce((sum, e) => sum + e.confidence, 0) / elements.length;
    return {
      markdown,
      elements,
      dpi,
      width: page.width,
      height: page.height,
      model: this.model,
      tokens: { input: 0, output: 0 },
      ocrScore: null,
      layoutScore: Math.round(layoutScore * 1000) / 1000,
      evidenceText: extracted.stats.rawText,
    };
  }
}
