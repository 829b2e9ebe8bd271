import { HTTPClient, Mistral } from '@mistralai/mistralai';
import type {
  OCRImageObject,
  OCRRequest,
  OCRResponse,
} from '@mistralai/mistralai/models/components';
import { ResponseValidationError } from '@mistralai/mistralai/models/errors';
import type { ZodError } from 'zod';
import type {
  PageParseRequest,
  PageProvider,
  ProviderElement,
  ProviderPageResult,
} from '../core/ports/page-provider.js';
import type {
  StructuredExtractionRequest,
  StructuredExtractionResult,
  StructuredExtractor,
} from '../core/ports/structured-extractor.js';
import type { PageRasterizer } from '../engines/raster.js';
import {
  EXTRACTION_PROMPT,
  EXTRACTION_TOOL_NAME,
  HttpVisionProvider,
  extractionFromText,
  extractionUserText,
  unavailable,
  visionPageResult,
  type RemoteProviderSettings,
} from './remote-provider.js';

/**
 * Confidence given to the figure boxes Mistral OCR reports. The API gives no score for its image
 * regions, so this is a prior, not a measurement: an extracted image region is nearly always a
 * real figure, but its extent is the model's own crop and has not been checked against the
 * pixels. Kept below 1 so that these boxes never outrank a measured detector confidence.
 */
export const MISTRAL_FIGURE_CONFIDENCE = 0.9;

/** A Markdown image whose target is an extracted image (`![img-0.jpeg](img-0.jpeg)`). */
const IMAGE_LINK = /!\[[^\]]*\]\(\s*([^)\s]+)\s*\)/g;
/** Mistral's own image ids, for links whose id is missing from `images`. */
const MISTRAL_IMAGE_ID = /^img-\d+\.[a-z0-9]+$/i;

/**
 * Mistral's document OCR API (`POST /v1/ocr`, e.g. `mistral-ocr-latest`), through the official
 * `@mistralai/mistralai` SDK, which also checks the answer's shape: the page is rendered to PNG
 * and sent as a `data:` URL; the answer is Markdown plus the boxes of the images it found.
 *
 * The image links of the Markdown are removed (this adapter asks for no image bytes, so they
 * would point at nothing); the images become `figure` elements instead. Mistral OCR bills per
 * page, so tokens are 0, and it gives no confidence, so `ocrScore` is null.
 *
 * As an extractor it uses the document annotation of the same API
 * (`document_annotation_format`, a JSON Schema): the OCR endpoint takes one image, so the first
 * page is sent as the document, and the Markdown of every page goes in
 * `document_annotation_prompt` with {@link EXTRACTION_PROMPT}.
 *
 * Settings: `baseUrl` is the API root without `/v1` (`https://api.mistral.ai`); `apiKey` is
 * sent as a Bearer token; `maxOutputTokens` does not apply (the API has no output cap). Pages
 * render at the request's DPI or `defaultDpi`. The SDK's retries are off:
 * {@link HttpVisionProvider}'s fetch retries.
 */
export class MistralOcrProvider
  extends HttpVisionProvider
  implements PageProvider, StructuredExtractor
{
  readonly #client: Mistral;

  constructor(settings: RemoteProviderSettings, rasterizer: PageRasterizer) {
    super(settings, rasterizer);
    this.#client = new Mistral({
      serverURL: this.settings.baseUrl,
      ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }),
      retryConfig: { strategy: 'none' },
      timeoutMs: settings.timeoutMs,
      httpClient: new HTTPClient({ fetcher: this.fetch }),
    });
  }

  /**
   * OCRs one page.
   *
   * @returns the Markdown of `pages[0]` without image links (an empty string is a valid answer
   *   for a blank or picture-only page), one `figure` element per located image with its box
   *   scaled from `dimensions` to the raster and clipped inside it, the raster's
   *   `dpi`/`width`/`height`, tokens 0, `ocrScore` null, `layoutScore` = structure score of
   *   the Markdown.
   * @throws {ProviderUnavailableError} on HTTP failure after the retries, the deadline, or a body
   *   that is not an OCR answer with at least one page.
   * @throws {DocumentRejectedError} from the rasterizer when the page cannot be rendered.
   */
  async parsePage(request: PageParseRequest): Promise<ProviderPageResult> {
    const { raster, base64 } = await this.pageImage(request);
    const answer = await this.#process({
      model: this.model,
      document: { type: 'image_url', imageUrl: `data:image/png;base64,${base64}` },
      includeImageBase64: false,
      // The SDK asks for layout blocks by default; this adapter reads the Markdown and images.
      includeBlocks: false,
    });
    const page = answer.pages[0];
    if (!page) throw unavailable(this.id, 'the answer has no pages');
    const images = page.images;
    const result = visionPageResult({
      markdown: withoutImageLinks(page.markdown, images),
      raster,
      model: this.model,
      tokens: { input: 0, output: 0 },
      ocrScore: null,
    });
    const scale = {
      x: page.dimensions ? raster.width / page.dimensions.width : 1,
      y: page.dimensions ? raster.height / page.dimensions.height : 1,
    };
    return {
      ...result,
      elements: images
        .map((image) => figureElement(image, scale, raster.width, raster.height))
        .filter((element): element is ProviderElement => element !== null),
    };
  }

  /**
   * Fills the request's schema with a document annotation of the first page's image, the
   * Markdown of every page in the annotation prompt.
   *
   * @returns the parsed `document_annotation` (not checked against the schema), the model, and
   *   tokens 0 (annotations are billed per page).
   * @throws {ProviderUnavailableError} on HTTP failure after the retries, the deadline, a request
   *   without pages, or an annotation that is absent or not a JSON object (`malformed answer`).
   * @throws {DocumentRejectedError} from the rasterizer when the page cannot be rendered.
   */
  async extract(request: StructuredExtractionRequest): Promise<StructuredExtractionResult> {
    const first = request.pages[0];
    if (!first) throw unavailable(this.id, 'the document has no page to annotate');
    const image = await this.pageImage({
      document: request.document,
      pageNumber: first.pageNumber,
      dpi: null,
    });
    const answer = await this.#process({
      model: this.model,
      document: { type: 'image_url', imageUrl: `data:image/png;base64,${image.base64}` },
      includeImageBase64: false,
      includeBlocks: false,
      documentAnnotationFormat: {
        type: 'json_schema',
        jsonSchema: { name: EXTRACTION_TOOL_NAME, schemaDefinition: request.schema, strict: false },
      },
      documentAnnotationPrompt: `${EXTRACTION_PROMPT}\n\n${extractionUserText(request, [image])}`,
    });
    return {
      data: extractionFromText(this.id, answer.documentAnnotation),
      model: this.model,
      tokens: { input: 0, output: 0 },
    };
  }

  /**
   * One OCR call under the deadline. An answer that is not an OCR result is reported with the
   * paths that differ, never their values (they are page content).
   */
  #process(request: OCRRequest): Promise<OCRResponse> {
    return this.call(async (signal) => {
      try {
        return await this.#client.ocr.process(request, { signal });
      } catch (error) {
        if (!(error instanceof ResponseValidationError)) throw error;
        const issues = (error.cause as Partial<ZodError> | undefined)?.issues ?? [];
        const where = [...new Set(issues.map((issue) => issue.path.join('.') || '(root)'))];
        throw unavailable(
          this.id,
          `the answer is not an OCR result (unexpected ${where.slice(0, 3).join(', ') || 'shape'})`,
        );
      }
    });
  }
}

/**
 * Removes the links to extracted images, the lines they leave blank and the blank lines that
 * then follow a blank line; other images (e.g. `![logo](https://…)`) and all other text stay.
 * @param images the page's images; a link counts as extracted when its target is one of their
 *   ids or has Mistral's id form (`img-<n>.<ext>`).
 * @example withoutImageLinks('# A\n\n![img-0.jpeg](img-0.jpeg)\n\nText', []) // '# A\n\nText'
 */
export function withoutImageLinks(
  markdown: string,
  images: readonly Pick<OCRImageObject, 'id'>[],
): string {
  const ids = new Set(images.map((image) => image.id));
  const lines: string[] = [];
  let skipBlank = false;
  for (const line of markdown.split('\n')) {
    if (skipBlank && !line.trim()) continue;
    skipBlank = false;
    const kept = line.replace(IMAGE_LINK, (link, target: string) =>
      ids.has(target) || MISTRAL_IMAGE_ID.test(target) ? '' : link,
    );
    // Other links come back as they were, so any change is a removal.
    const removed = kept !== line;
    if (removed && !kept.trim()) {
      // The blank line before the image already separates what came before from what follows.
      skipBlank = !lines.at(-1)?.trim();
      continue;
    }
    lines.push(removed ? kept.trimEnd() : kept);
  }
  return lines.join('\n');
}

/** An image region as a figure element in raster pixels, or null when unlocated or empty. */
function figureElement(
  image: OCRImageObject,
  scale: { x: number; y: number },
  width: number,
  height: number,
): ProviderElement | null {
  const { topLeftX: left, topLeftY: top, bottomRightX: right, bottomRightY: bottom } = image;
  if (left == null || top == null || right == null || bottom == null) return null;
  const x0 = clamp(Math.min(left, right) * scale.x, width);
  const y0 = clamp(Math.min(top, bottom) * scale.y, height);
  const x1 = clamp(Math.max(left, right) * scale.x, width);
  const y1 = clamp(Math.max(top, bottom) * scale.y, height);
  if (x1 - x0 <= 0 || y1 - y0 <= 0) return null;
  return {
    text: '',
    bbox: { x: x0, y: y0, w: x1 - x0, h: y1 - y0 },
    label: 'figure',
    elementType: 'figure',
    confidence: MISTRAL_FIGURE_CONFIDENCE,
  };
}

function clamp(value: number, max: number): number {
  return Math.max(0, Math.min(max, value));
}
