import type {
  PageParseRequest,
  PageProvider,
  ProviderElement,
  ProviderPageResult,
} from '../../core/ports/page-provider.js';
import { layoutPage } from '../layout/layout-page.js';
import { buildLayoutProfile } from '../layout/profile.js';
import type { PageRasterizer } from '../raster.js';
import { characterWeightedConfidence, ocrToPageText, withoutRuleGlyphs } from './ocr-page-text.js';
import { detectRuleLines } from './rule-lines.js';
import type { TesseractOcr } from './tesseract-ocr.js';

/**
 * Resolution PDF pages are rendered at for OCR when the request leaves `dpi` to us: normal print
 * recognises as well at 200 DPI as at 300 (tesseract's preprocessing resamples into 150–200
 * DPI anyway), and renders in less than half the time.
 */
export const OCR_RENDER_DPI = 200;

/**
 * The offline OCR provider: renders (PDF) or decodes (images) the page, recognises it with
 * tesseract, finds the rule lines of the image ({@link detectRuleLines}), and lays the words and
 * rules out with the same rules as the PDF text-layer engine.
 */
export class LocalOcrProvider implements PageProvider {
  readonly id = 'local-ocr';
  readonly model = 'tesseract-5-lstm';
  readonly #rasterizer: PageRasterizer;
  readonly #ocr: TesseractOcr;

  /**
   * @param rasterizer gives the page image; a dispatcher by format (PDF renderer, image decoder).
   *   With `dpi: null` it picks the resolution ({@link OCR_RENDER_DPI} for PDF pages, the image's
   *   own for images).
   * @param ocr the process's shared recogniser.
   */
  constructor(rasterizer: PageRasterizer, ocr: TesseractOcr) {
    this.#rasterizer = rasterizer;
    this.#ocr = ocr;
  }

  /**
   * Parses one page by OCR.
   *
   * @returns Markdown, elements with boxes inside the page image (`dpi`, `width`, `height` are
   *   those of the image), `ocrScore` = character-weighted mean word confidence (null when no
   *   text was found), the recognised words with their confidences (the page's `ocr_score` is
   *   computed from them), `layoutScore` = mean element confidence (1 for an empty page), no
   *   tokens and no evidence text.
   * @throws {DocumentRejectedError} when the page cannot be rendered (too large, missing).
   * @throws {UnsupportedDocumentError} when the image is corrupt.
   * @throws {ProviderUnavailableError} when the OCR worker fails (retryable).
   */
  async parsePage(request: PageParseRequest): Promise<ProviderPageResult> {
    // Automatic: PDF pages render at OCR_RENDER_DPI (scans at most at their own resolution);
    // images keep their pixels.
    const raster = await this.#rasterizer.rasterize(
      request.document,
      request.pageNumber,
      request.dpi,
    );
    const [ocr, rules] = await Promise.all([
      this.#ocr.recognize(raster.png, { dpi: raster.dpi }),
      // Table grids and form rules, for the lattice tables of the layout.
      detectRuleLines(raster.png, raster.width, raster.height),
    ]);
    // Rules read as glyphs (`|`, `[`) are cut from the words: the rules themselves bound the cells.
    const page = withoutRuleGlyphs(
      ocrToPageText(ocr, {
        pageNumber: request.pageNumber,
        width: raster.width,
        height: raster.height,
        dpi: raster.dpi,
      }),
      rules,
    );
    const layout = layoutPage(page, buildLayoutProfile([page]));
    const elements = layout.elements
      .map((element) => clipToPage(element, raster.width, raster.height))
      .filter((element): element is ProviderElement => element !== null);
    const layoutScore =
      elements.length === 0
        ? 1
        : elements.reduce((sum, element) => sum + element.confidence, 0) / elements.length;
    const ocrScore = characterWeightedConfidence(ocr.words);
    return {
      markdown: layout.markdown,
      elements,
      dpi: raster.dpi,
      width: raster.width,
      height: raster.height,
      model: this.model,
      tokens: { input: 0, output: 0 },
      ocrScore: ocrScore === null ? null : round3(ocrScore),
      layoutScore: round3(layoutScore),
      evidenceText: null,
      words: ocr.words.map((word) => ({ text: word.text, confidence: word.confidence })),
    };
  }
}

/** Keeps a box inside the page image with a positive size; drops it when nothing is left. */
function clipToPage(
  element: ProviderElement,
  width: number,
  height: number,
): ProviderElement | null {
  const x0 = Math.max(0, Math.min(width, element.bbox.x));
  const y0 = Math.max(0, Math.min(height, element.bbox.y));
  const x1 = Math.max(0, Math.min(width, element.bbox.x + element.bbox.w));
  const y1 = Math.max(0, Math.min(height, element.bbox.y + element.bbox.h));
  if (x1 - x0 <= 0 || y1 - y0 <= 0) return null;
  return { ...element, bbox: { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } };
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
