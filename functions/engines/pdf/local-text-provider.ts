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
import type { ExtractedPage } from './page-text.js';
import type { PdfPageSource } from './pdf-page-source.js';

/** The model name of the text-layer provider's answers. */
const TEXT_LAYOUT_MODEL = 'pdf-text-layout-1';

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
  readonly model = TEXT_LAYOUT_MODEL;
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
    // A reader in a worker thread lays the page out there, beside the extracted page it keeps:
    // the page does not cross threads, and this thread scores and stores other pages meanwhile.
    if (this.#source.layOut) {
      return this.#source.layOut(request.document, request.pageNumber, dpi, request.profile);
    }
    return layOutTextLayer(
      await this.#source.page(request.document, request.pageNumber),
      dpi,
      request.profile,
    );
  }
}

/**
 * The answer of the text-layer provider for an extracted page: the page laid out at `dpi` with
 * the document `profile` from `inspect` (a profile of this page alone when it has none).
 */
export function layOutTextLayer(
  extracted: ExtractedPage,
  dpi: number,
  documentProfile: unknown,
): ProviderPageResult {
  const page = scalePageText(extracted.text, dpi);
  const given = asLayoutProfile(documentProfile);
  const profile = given.pageCount > 0 ? given : buildLayoutProfile([extracted.text]);
  const { markdown, elements, formulas } = layoutPage(page, profile);
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
    model: TEXT_LAYOUT_MODEL,
    tokens: { input: 0, output: 0 },
    ocrScore: null,
    layoutScore: Math.round(layoutScore * 1000) / 1000,
    evidenceText: extracted.stats.rawText,
    tableRegionText: elements
      .filter((e) => e.label === 'table')
      .map((e) => textInside(page.runs, e.bbox)),
    // Formulas KaTeX could not read were written as text: the layout is less sure of the page.
    ...(formulas && formulas.failed > 0
      ? { layoutSignals: { mathAsText: formulas.failed / (formulas.emitted + formulas.failed) } }
      : {}),
  };
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
