import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
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
  /** API base URL, given to the vendor SDK (e.g. `https://api.openai.com/v1`). */
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
 * What the vision adapters on a vendor SDK share: their identity, settings and page renderer,
 * the page images they send (a page for `parsePage`, the first pages for `extract`), the
 * retrying `fetch` their SDK client is given, and {@link call}, which runs one SDK call under
 * the whole-call deadline and turns its failures into {@link ProviderUnavailableError}.
 *
 * The SDKs' own retries are switched off by each adapter: {@link retryingFetch} is the one
 * retry policy of every vendor, so that `max_retries` means the same for all of them.
 */
export abstract class HttpVisionProvider {
  readonly id: string;
  readonly model: string;
  protected readonly settings: RemoteProviderSettings;
  /** The `fetch` to give the SDK client: retries 429, 5xx and network errors (see {@link retryingFetch}). */
  protected readonly fetch: typeof fetch;
  readonly #rasterizer: PageRasterizer;

  /** `settings.baseUrl` is kept without trailing slashes. */
  constructor(settings: RemoteProviderSettings, rasterizer: PageRasterizer) {
    this.settings = { ...settings, baseUrl: settings.baseUrl.replace(/\/+$/, '') };
    this.id = settings.id;
    this.model = settings.model;
    this.#rasterizer = rasterizer;
    this.fetch = retryingFetch(settings);
  }

  /**
   * The client options the OpenAI and Anthropic SDKs take alike: the API root; the key, or for
   * a keyless server a placeholder (the SDKs want some key, and would otherwise look for one in
   * the environment) whose Authorization header is then removed; no retries of their own
   * ({@link fetch} retries) and the deadline as their timeout.
   */
  protected sdkClientOptions() {
    const { baseUrl, apiKey, timeoutMs } = this.settings;
    return {
      baseURL: baseUrl,
      apiKey: apiKey ?? 'none',
      ...(apiKey === undefined ? { defaultHeaders: { Authorization: null } } : {}),
      maxRetries: 0,
      timeout: timeoutMs,
      fetch: this.fetch,
    };
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

  /**
   * Runs one SDK call with the signal of the whole-call deadline (`timeoutMs`, retries
   * included), which the adapter passes to the SDK as its abort signal.
   * @throws {ProviderUnavailableError} for any failure of the call (see {@link sdkFailure}).
   */
  protected async call<T>(send: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const deadline = AbortSignal.timeout(this.settings.timeoutMs);
    try {
      return await beforeAbort(send(deadline), deadline);
    } catch (error) {
      throw sdkFailure(this.id, error, this.settings.timeoutMs, deadline);
    }
  }
}

/**
 * Settles as `work` does, or rejects with the signal's reason as soon as it aborts, whether or
 * not `work` heeds it. SDKs hand the signal on through a Request, and a Request's signal
 * follows the one it was given through an AbortController held weakly: once that is collected,
 * an abort no longer reaches the fetch in flight, which then runs past the deadline.
 */
const beforeAbort = <T>(work: Promise<T>, signal: AbortSignal): Promise<T> => {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
};

/**
 * The part of a vendor's answer an adapter reads, checked with `schema`: vendor SDKs do not check
 * answers, and compatible gateways do not all keep to their types.
 * @throws {ProviderUnavailableError} (`malformed answer: <path>: <issue>`) when `body` does not fit.
 * @example
 * const message = parsedAnswer(this.id, AnthropicMessage, body); // or throws "malformed answer: content: …"
 */
export function parsedAnswer<T>(providerId: string, schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw unavailable(providerId, `malformed answer: ${firstIssue(parsed.error)}`, parsed.error);
  }
  return parsed.data;
}

/** The first schema violation as `path: message`, short enough for an error message. */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'unexpected shape';
  const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
  return `${path}: ${issue.message}`;
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
const RETRY_STATUS_CODES: ReadonlySet<number> = new Set([
  408, 409, 425, 429, 500, 502, 503, 504, 529,
]);

/** Longest wait between two attempts, whatever `Retry-After` asks for. */
const MAX_RETRY_DELAY_MS = 10_000;

/**
 * A `fetch` that tries a request up to `maxRetries + 1` times: again after a 408, 409, 425,
 * 429, 5xx or 529 answer and after a network error, waiting what `Retry-After` (or
 * `retry-after-ms`) asks, else `minRetryDelayMs` (500 by default) doubling per attempt, at most
 * 10 s. The last answer, whatever its status, goes back to the SDK, which makes it its typed
 * error. A request whose signal has aborted (the deadline) is not tried again, and a wait ends
 * with it.
 *
 * Given to each vendor SDK as its `fetch`, with the SDK's own retries off: one policy for every
 * vendor (their SDKs count, wait and pick statuses differently), applied per HTTP exchange.
 * Request bodies are the SDKs' JSON text, so every attempt sends them again.
 */
export function retryingFetch(
  settings: Pick<RemoteProviderSettings, 'maxRetries' | 'minRetryDelayMs'>,
  inner: typeof fetch = globalThis.fetch,
): typeof fetch {
  const firstDelay = settings.minRetryDelayMs ?? 500;
  return async (input, init) => {
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt >= settings.maxRetries;
      const backoff = Math.min(firstDelay * 2 ** attempt, MAX_RETRY_DELAY_MS);
      let response: Response;
      try {
        response = await inner(input instanceof Request ? input.clone() : input, init);
      } catch (error) {
        if (last || signal?.aborted) throw error;
        await sleep(backoff, undefined, { signal: signal ?? undefined });
        continue;
      }
      if (last || !RETRY_STATUS_CODES.has(response.status)) return response;
      const wait = retryAfterMs(response.headers) ?? backoff;
      await response.body?.cancel();
      await sleep(Math.min(wait, MAX_RETRY_DELAY_MS), undefined, { signal: signal ?? undefined });
    }
  };
}

/** The wait an answer asks for (`retry-after-ms`, or `Retry-After` in seconds or as a date). */
function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds)) return seconds > 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
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

/** The error names with which the SDKs report an aborted or timed-out call. */
const DEADLINE_ERRORS = new Set([
  'AbortError',
  'TimeoutError',
  'APIUserAbortError',
  'APIConnectionTimeoutError',
  'RequestAbortedError',
  'RequestTimeoutError',
]);

/**
 * A failed SDK call as a {@link ProviderUnavailableError}, whichever SDK threw it:
 * - an HTTP error (`status` of the OpenAI, Anthropic and Gemini SDKs, `statusCode` of
 *   Mistral's): `answered HTTP <status>: <the API's own message, shortened>`, with `status`
 *   in `details` (the adapters fall back on some 400s);
 * - the deadline, or the SDK's timeout or abort: `no answer within <timeoutMs> ms`;
 * - a body that is not JSON: `the answer is not JSON`;
 * - anything else: `network error <code>` (from the cause chain), else the error's name.
 * A {@link ProviderUnavailableError} (thrown by the adapter itself) passes through.
 */
export function sdkFailure(
  providerId: string,
  error: unknown,
  timeoutMs: number,
  deadline?: AbortSignal,
): ProviderUnavailableError {
  if (error instanceof ProviderUnavailableError) return error;
  const fields = (error ?? {}) as {
    name?: unknown;
    status?: unknown;
    statusCode?: unknown;
  };
  const status = typeof fields.status === 'number' ? fields.status : fields.statusCode;
  if (typeof status === 'number' && status >= 400) {
    return new ProviderUnavailableError(
      `provider ${providerId} answered HTTP ${status}: ${apiMessage(error)}`,
      { cause: error, details: { provider: providerId, status } },
    );
  }
  if (deadline?.aborted || DEADLINE_ERRORS.has(String(fields.name))) {
    return unavailable(providerId, `no answer within ${timeoutMs} ms`, error);
  }
  if (error instanceof SyntaxError) {
    // The parser's message quotes the body, which may hold document content.
    return unavailable(providerId, 'the answer is not JSON');
  }
  const code = errorCode(error);
  if (code) return unavailable(providerId, `network error ${code}`, error);
  const root = rootCause(error);
  const reason =
    root !== error && root instanceof Error
      ? `network error: ${root.message}`
      : `request failed (${error instanceof Error ? error.name : typeof error})`;
  return unavailable(providerId, reason, error);
}

/** The first `code` (e.g. `ECONNREFUSED`) along an error's `cause` chain. */
function errorCode(error: unknown): string | undefined {
  for (let at = error, depth = 0; at && depth < 5; depth += 1) {
    const { code, cause } = at as { code?: unknown; cause?: unknown };
    if (typeof code === 'string') return code;
    at = cause;
  }
  return undefined;
}

/** The last error of a `cause` chain (a fetch failure's reason lies under two wrappers). */
function rootCause(error: unknown): unknown {
  let at = error;
  for (let depth = 0; depth < 5; depth += 1) {
    const cause = (at as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) break;
    at = cause;
  }
  return at;
}

/**
 * The API's own message of an SDK's HTTP error, shortened: from the raw body (Mistral's
 * `body`), the parsed body (`error` of the OpenAI and Anthropic SDKs) or the message (the
 * Gemini SDK's is the body as JSON); never the whole body.
 */
function apiMessage(error: unknown): string {
  const {
    body,
    error: parsed,
    message,
  } = error as {
    body?: unknown;
    error?: unknown;
    message?: unknown;
  };
  const found = messageIn(typeof body === 'string' ? body : (parsed ?? message));
  return found.length > 200 ? `${found.slice(0, 200)}…` : found || '(empty body)';
}

function messageIn(value: unknown, depth = 0): string {
  if (typeof value === 'string') {
    if (depth > 2 || !/^\s*[{[]/.test(value)) return value.trim();
    try {
      return messageIn(JSON.parse(value) as unknown, depth + 1);
    } catch {
      return value.trim();
    }
  }
  if (typeof value !== 'object' || value === null) return '';
  const { error, message } = value as { error?: unknown; message?: unknown };
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && depth < 3) return messageIn(error, depth + 1);
  if (typeof message === 'string') return message;
  return JSON.stringify(value);
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
