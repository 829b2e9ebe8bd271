import { Agent, RetryAgent, request, type Dispatcher } from 'undici';
import { ProviderUnavailableError } from '../core/domain/errors.js';
import type { PageParseRequest, ProviderPageResult } from '../core/ports/page-provider.js';
import type {
  JsonSchemaObject,
  StructuredExtractionRequest,
} from '../core/ports/structured-extractor.js';
import type { PageRasterizer, RasterPage } from '../engines/raster.js';

/**
 * Settings every remote provider takes from the provider configuration (`config/providers`):
 * where it is, how it authenticates, and how long and how often it may be tried.
 */
export interface RemoteProviderSettings {
  /** The provider id of the configuration, reported as `Page.provider` (e.g. `openai-gpt-4o`). */
  id: string;
  /** The model id sent to the API and reported as `Page.model`. */
  model: string;
  /** API base URL without a trailing slash (e.g. `https://api.openai.com/v1`). */
  baseUrl: string;
  /** The API key, from config or a secret; never from code. Absent for keyless local servers. */
  apiKey?: string;
  /** Whole-call deadline in milliseconds, retries included. */
  timeoutMs: number;
  /** Retries after the first attempt on 429, 5xx and network errors. */
  maxRetries: number;
  /** Largest answer in output tokens; an answer cut at it counts as a failure (`truncated`). */
  maxOutputTokens: number;
  /** Rendering resolution when the request leaves `dpi` to the provider. */
  defaultDpi: number;
  /** First retry delay in milliseconds (doubling up to 10 s), unless `Retry-After` says otherwise. */
  minRetryDelayMs?: number;
}

/**
 * The instruction every vision model gets with the page image: a faithful GFM transcription,
 * nothing added. Kept in one place so that providers are compared on the same task.
 */
export const PAGE_TRANSCRIPTION_PROMPT = [
  'Transcribe this document page into GitHub-flavoured Markdown.',
  'Copy every word exactly as printed, in reading order; do not summarise, translate or correct.',
  'Use # headings for headings, - or 1. for lists, GFM pipe tables for tables (one row per line,',
  'a header row and a separator row), $...$ for inline and $$...$$ for display math.',
  'Leave out running headers, footers and page numbers. Describe no images.',
  'Answer with the Markdown only, without a code fence or any comment.',
].join(' ');

/** A page image as remote providers send it. */
export interface EncodedPage {
  raster: RasterPage;
  /** The PNG as base64 (no data-URL prefix). */
  base64: string;
}

/** Renders the page at the requested DPI, or at `defaultDpi`, and encodes it for a JSON body. */
export async function encodePage(
  rasterizer: PageRasterizer,
  request: Pick<PageParseRequest, 'document' | 'pageNumber' | 'dpi'>,
  defaultDpi: number,
): Promise<EncodedPage> {
  const raster = await rasterizer.rasterize(
    request.document,
    request.pageNumber,
    request.dpi ?? defaultDpi,
  );
  return { raster, base64: Buffer.from(raster.png).toString('base64') };
}

/**
 * The instruction every remote extractor gets with the parsed document: fill the schema from
 * the document alone. Kept in one place so that extractors are compared on the same task.
 */
export const EXTRACTION_PROMPT = [
  'Fill the given JSON Schema with data from the document below: its parsed Markdown, page by',
  'page, and images of its first pages.',
  'Use only values present in the document, copied as printed and converted only to the type',
  'the schema asks for. Where the Markdown and a page image differ, trust the image.',
  'Where the document holds no value for a field, leave the field out, or set it to null where',
  'the schema allows null. Never invent, guess or compute a value the document does not show.',
].join(' ');

/** Name of the structured answer (OpenAI `json_schema.name`, the tool of Anthropic and Bedrock). */
export const EXTRACTION_TOOL_NAME = 'record_extraction';

/** What the tool of Anthropic and Bedrock is for, as the model reads it. */
export const EXTRACTION_TOOL_DESCRIPTION =
  'Records the values of the JSON Schema found in the document; fields the document does not show are left out.';

/**
 * How many pages, from the first, an extractor sends as images with the Markdown: enough for
 * the headers, parties and totals most schemas ask for, few enough for every vendor's image cap.
 */
export const EXTRACTION_IMAGE_PAGES = 4;

/**
 * The parsed document as one text: each page's Markdown after a `<!-- page N -->` marker.
 * @example extractionMarkdown([{ pageNumber: 3, markdown: '# Total\n' }]) // '<!-- page 3 -->\n# Total'
 */
export function extractionMarkdown(pages: StructuredExtractionRequest['pages']): string {
  return pages
    .map((page) => `<!-- page ${page.pageNumber} -->\n${page.markdown.trim()}`)
    .join('\n\n');
}

/**
 * The user text of an extraction call: which pages the images show, then the document's
 * Markdown ({@link extractionMarkdown}); with `schema`, the schema too (for APIs that cannot
 * take it in a structured-output field).
 */
export function extractionUserText(
  request: StructuredExtractionRequest,
  images: readonly EncodedPage[],
  schema?: JsonSchemaObject,
): string {
  const shown = request.pages.slice(0, images.length).map((page) => page.pageNumber);
  const parts = [
    shown.length === 0
      ? 'The document has no page images.'
      : `The images show page${shown.length === 1 ? '' : 's'} ${shown.join(', ')}.`,
  ];
  if (schema !== undefined) {
    parts.push(
      `Answer with one JSON object that fills this JSON Schema, and nothing else:\n${JSON.stringify(schema)}`,
    );
  }
  parts.push(`The parsed Markdown of the document:\n\n${extractionMarkdown(request.pages)}`);
  return parts.join('\n\n');
}

/**
 * The images of the first {@link EXTRACTION_IMAGE_PAGES} pages of the request, rendered at
 * `defaultDpi` like the pages a provider parses.
 * @throws {DocumentRejectedError} from the rasterizer when a page cannot be rendered.
 */
export function encodeExtractionPages(
  rasterizer: PageRasterizer,
  request: StructuredExtractionRequest,
  defaultDpi: number,
): Promise<EncodedPage[]> {
  return Promise.all(
    request.pages
      .slice(0, EXTRACTION_IMAGE_PAGES)
      .map((page) =>
        encodePage(
          rasterizer,
          { document: request.document, pageNumber: page.pageNumber, dpi: null },
          defaultDpi,
        ),
      ),
  );
}

/**
 * What the HTTP vision adapters share: their identity, settings, JSON client and page renderer,
 * and the page images they send (a page for `parsePage`, the first pages for `extract`).
 */
export abstract class HttpVisionProvider {
  readonly id: string;
  readonly model: string;
  protected readonly settings: RemoteProviderSettings;
  protected readonly client: JsonHttpClient;
  readonly #rasterizer: PageRasterizer;

  /**
   * @param defaultBaseUrl the vendor's API, used when `settings.baseUrl` is empty (trailing
   *   slashes are dropped); without it `baseUrl` is taken as given.
   */
  constructor(
    settings: RemoteProviderSettings,
    rasterizer: PageRasterizer,
    defaultBaseUrl?: string,
  ) {
    this.settings =
      defaultBaseUrl === undefined
        ? settings
        : { ...settings, baseUrl: (settings.baseUrl || defaultBaseUrl).replace(/\/+$/, '') };
    this.id = settings.id;
    this.model = settings.model;
    this.#rasterizer = rasterizer;
    this.client = new JsonHttpClient(this.settings);
  }

  /** The page at the request's DPI (else `defaultDpi`), as PNG and base64. */
  protected pageImage(
    request: Pick<PageParseRequest, 'document' | 'pageNumber' | 'dpi'>,
  ): Promise<EncodedPage> {
    return encodePage(this.#rasterizer, request, this.settings.defaultDpi);
  }

  /** The first pages of an extraction request (see {@link encodeExtractionPages}). */
  protected extractionImages(request: StructuredExtractionRequest): Promise<EncodedPage[]> {
    return encodeExtractionPages(this.#rasterizer, request, this.settings.defaultDpi);
  }

  /** Closes the client's connections. */
  close(): Promise<void> {
    return this.client.close();
  }
}

/**
 * An extractor's answer as the object it must be. Not checked against the schema: the service
 * does that, and reports each violation itself.
 * @throws {ProviderUnavailableError} (`malformed answer`) for anything but a JSON object.
 */
export function extractionObject(providerId: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const found = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    throw unavailable(
      providerId,
      `malformed answer: the extraction is ${found}, not a JSON object`,
    );
  }
  return value as Record<string, unknown>;
}

/**
 * An extraction answered as text (a JSON response format): the object it holds. A Markdown code
 * fence around the JSON, which some servers add in JSON mode, is tolerated.
 * @throws {ProviderUnavailableError} (`malformed answer`) when the text is absent, is not JSON or
 *   is not a JSON object. The message never quotes the text (it holds document content), and
 *   the parser's error, which does, is not kept as the cause.
 */
export function extractionFromText(
  providerId: string,
  text: string | null | undefined,
): Record<string, unknown> {
  if (text === null || text === undefined || !text.trim()) {
    throw unavailable(providerId, 'malformed answer: the extraction is empty');
  }
  const json = text
    .trim()
    .replace(/^```(?:json)?\s*\n([\s\S]*?)\n?```$/i, '$1')
    .trim();
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw unavailable(providerId, 'malformed answer: the extraction is not JSON');
  }
  return extractionObject(providerId, value);
}

/** HTTP status codes worth another attempt (rate limits and server-side failures). */
const RETRY_STATUS_CODES = [408, 409, 425, 429, 500, 502, 503, 504, 529];

/** A JSON answer of a remote API. */
export interface JsonResponse {
  statusCode: number;
  body: unknown;
}

/**
 * A JSON-over-HTTPS client with retries (undici's RetryAgent: exponential backoff from
 * `minRetryDelayMs` doubling to 10 s, `Retry-After` honoured, on the status codes above and on
 * network errors) and one deadline for the whole call.
 */
export class JsonHttpClient {
  readonly #dispatcher: Dispatcher;
  readonly #settings: RemoteProviderSettings;

  constructor(settings: RemoteProviderSettings) {
    this.#settings = settings;
    this.#dispatcher = new RetryAgent(new Agent({ connections: 16 }), {
      maxRetries: settings.maxRetries,
      minTimeout: settings.minRetryDelayMs ?? 500,
      maxTimeout: 10_000,
      timeoutFactor: 2,
      retryAfter: true,
      methods: ['POST', 'GET'],
      statusCodes: RETRY_STATUS_CODES,
    });
  }

  /**
   * POSTs `body` as JSON to `baseUrl + path` and parses the JSON answer.
   * @throws {ProviderUnavailableError} on a non-2xx status after the retries (with `status`
   *   and the API's own error message in `details`), a deadline, a network error, or a body
   *   that is not JSON.
   */
  async postJson(
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<JsonResponse> {
    const { id, baseUrl, timeoutMs } = this.#settings;
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${baseUrl}${path}`, {
        method: 'POST',
        dispatcher: this.#dispatcher,
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (error) {
      // undici's RetryAgent gives up with RequestRetryError, which carries the last status.
      const status = (error as { statusCode?: unknown }).statusCode;
      if (typeof status === 'number') {
        throw new ProviderUnavailableError(
          `provider ${id} answered HTTP ${status} after ${this.#settings.maxRetries} retries`,
          { cause: error, details: { provider: id, status } },
        );
      }
      throw unavailable(id, describeFailure(error, timeoutMs), error);
    }
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      throw unavailable(id, describeFailure(error, timeoutMs), error);
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      throw new ProviderUnavailableError(
        `provider ${id} answered HTTP ${response.statusCode}: ${apiMessage(text)}`,
        { details: { provider: id, status: response.statusCode } },
      );
    }
    try {
      return { statusCode: response.statusCode, body: JSON.parse(text) as unknown };
    } catch (error) {
      throw unavailable(id, 'the answer is not JSON', error);
    }
  }

  /** Closes the connections. */
  close(): Promise<void> {
    return this.#dispatcher.close();
  }
}

/** A failure of a remote provider that the router may fall over from. */
export function unavailable(
  providerId: string,
  reason: string,
  cause?: unknown,
): ProviderUnavailableError {
  return new ProviderUnavailableError(`provider ${providerId} failed: ${reason}`, {
    cause,
    details: { provider: providerId, reason },
  });
}

function describeFailure(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError' || /Timeout/.test(String(name))) {
    return `no answer within ${timeoutMs} ms`;
  }
  const code = (error as { code?: string }).code;
  return code ? `network error ${code}` : `network error: ${String(error)}`;
}

/** The API's own error message, shortened: never the whole body. */
function apiMessage(text: string): string {
  let message = text;
  try {
    const parsed = JSON.parse(text) as {
      error?: { message?: unknown } | string;
      message?: unknown;
    };
    const candidate =
      typeof parsed.error === 'string'
        ? parsed.error
        : (parsed.error?.message ?? parsed.message ?? text);
    message = typeof candidate === 'string' ? candidate : JSON.stringify(candidate);
  } catch {
    // Not JSON: the raw text, shortened.
  }
  return message.length > 200 ? `${message.slice(0, 200)}…` : message || '(empty body)';
}

/**
 * The answer of a vision model for one page, as the port's result. Vision models give no
 * element boxes, so `elements` is empty (grounding then comes from the pipeline's own layout of
 * the page); `layoutScore` is {@link markdownStructureScore} of the answer.
 * @param ocrScore mean token probability (exp of the mean log-probability) when the API gives
 *   log-probabilities, else null.
 */
export function visionPageResult(args: {
  markdown: string;
  raster: RasterPage;
  model: string;
  tokens: { input: number; output: number };
  ocrScore: number | null;
}): ProviderPageResult {
  const markdown = args.markdown.trim();
  return {
    markdown,
    elements: [],
    dpi: args.raster.dpi,
    width: args.raster.width,
    height: args.raster.height,
    model: args.model,
    tokens: args.tokens,
    ocrScore: args.ocrScore === null ? null : round3(args.ocrScore),
    layoutScore: markdownStructureScore(markdown),
    evidenceText: null,
  };
}

/**
 * Structural soundness of generated Markdown in [0, 1]: 1 minus the share of GFM table rows
 * whose cell count differs from their table's header, minus 0.25 for an unclosed code fence,
 * minus the share of non-blank lines that repeat an earlier line more than twice (repetition
 * loops, the commonest failure of generative OCR).
 */
export function markdownStructureScore(markdown: string): number {
  const lines = markdown.split('\n');
  let rows = 0;
  let raggedRows = 0;
  let headerCells: number | null = null;
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed.startsWith('|')) {
      const cells = trimmed.replace(/^\||\|$/g, '').split(/(?<!\\)\|/).length;
      if (headerCells === null) headerCells = cells;
      else if (cells !== headerCells) raggedRows += 1;
      rows += 1;
    } else {
      headerCells = null;
    }
  }
  const fences = lines.filter((l) => /^\s*(```|~~~)/.test(l)).length;
  const seen = new Map<string, number>();
  let looping = 0;
  let nonBlank = 0;
  for (const line of lines) {
    const key = line.trim();
    if (!key || /^\|?[\s:|-]+\|?$/.test(key)) continue;
    nonBlank += 1;
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    if (count > 2) looping += 1;
  }
  const score =
    1 -
    (rows > 0 ? raggedRows / rows : 0) -
    (fences % 2 === 1 ? 0.25 : 0) -
    (nonBlank > 0 ? looping / nonBlank : 0);
  return round3(Math.min(1, Math.max(0, score)));
}

/** exp(mean log-probability), the mean per-token probability on the geometric scale. */
export function meanTokenProbability(logprobs: readonly number[]): number | null {
  const finite = logprobs.filter(Number.isFinite);
  if (finite.length === 0) return null;
  return Math.exp(finite.reduce((sum, lp) => sum + lp, 0) / finite.length);
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
