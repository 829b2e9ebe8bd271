import type {
  PageParseRequest,
  PageProvider,
  ProviderPageResult,
} from '../../core/ports/page-provider.js';
import { layoutPage } from '../layout/layout-page.js';
import { isOfficeFormat } from '../office/office-document.js';
import { asLayoutProfile, buildLayoutProfile } from '../layout/profile.js';
import { scalePageText } from '../layout/scale.js';
import type { TextRun } from '../layout/types.js';
import type { PdfPageSource } from './pdf-page-source.js';

/** DPI the boxes refer to when the request leaves it to the provider. */
export const DEFAULT_TEXT_DPI = 144;

/** Answers pages of documents that are not PDFs but carry their own text (office, HTML, Markdown). */
export interface TextDocumentPages {
  parsePage(request: PageParseRequest): Promise<ProviderPageResult>;
}

/**
 * The offline text-layer provider: lays out a PDF page from its text layer (no OCR), using the
 * document profile from `inspect`. Boxes are in pixels at the request's DPI (144 by default).
 * Pages of office, HTML and Markdown documents are answered by `office` (their converted text),
 * when given.
 */
export class LocalTextProvider implements PageProvider {
  readonly id = 'local-text';
  readonly model = 'pdf-text-layout-1';
  readonly #source: PdfPageSource;
  readonly #office: TextDocumentPages | undefined;

  constructor(source: PdfPageSource, office?: TextDocumentPages) {
    this.#source = source;
    this.#office = office;
  }

  /**
   * Parses one page.
   * @throws {DocumentRejectedError} when the page does not exist or cannot be read.
   * @throws {UnsupportedDocumentError} when the document cannot be opened.
   */
  async parsePage(request: PageParseRequest): Promise<ProviderPageResult> {
    if (this.#office && isOfficeFormat(request.document.format)) {
      return this.#office.parsePage(request);
    }
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
      tableRegionText: elements
        .filter((e) => e.label === 'table')
        .map((e) => textInside(page.runs, e.bbox)),
    };
  }
}

/** The text-layer runs whose centre lies inside `box`, in content order. */
function textInside(runs: readonly TextRun[], box: { x: number; y: number; w: number; h: number }) {
  return runs
    .filter((r) => {
      const cx = r.x + r.w / 2;
      const cy = r.y + r.h / 2;
      return cx >= box.x && cx <= box.x + box.w && cy >= box.y && cy <= box.y + box.h;
    })
    .map((r) => r.text)
    .join(' ');
}
