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

/**
 * Pages laid out ahead of their `parsePage` at most at once; further hints wait, and one of the
 * same document starts each time a page is taken. A document's pages stay with the reader worker
 * that measured them, and ParsePage asks for a few pages at a time (`PAGE_CONCURRENCY`): laying
 * out only those would leave a worker idle whenever the pages asked for were all measured by the
 * other one.
 */
const MAX_PREFETCHED_PAGES = 64;
/** Hints kept waiting for their turn at most; further ones are ignored. */
const MAX_WAITING_HINTS = 4096;
/**
 * Age (ms) after which a page laid out ahead, or a hint waiting, that was never asked for (its
 * request was cancelled or failed) is dropped, at the next hint or parse.
 */
const PREFETCHED_PAGE_TTL_MS = 60_000;

/** Options of {@link LocalTextProvider}. */
export interface LocalTextProviderOptions {
  /**
   * Act on {@link LocalTextProvider.prefetch}: lay PDF pages out when Route routes them here, so
   * that the layout runs while Route stores the routes and ParsePage charges the page. Only where
   * the stages share this process (the embedded runtime); elsewhere the work would be done in a
   * process that never answers the page.
   * @default false
   */
  prefetch?: boolean;
}

/** A page laid out ahead of its `parsePage`. */
interface PrefetchedPage {
  /** The document profile it was laid out with, as JSON. */
  profile: string;
  result: Promise<ProviderPageResult>;
  at: number;
}

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
  readonly #prefetch: boolean;
  /** Pages laid out ahead, by stored document, page and DPI ({@link prefetchKey}), oldest first. */
  readonly #prefetched = new Map<string, PrefetchedPage>();
  /** Hints beyond {@link MAX_PREFETCHED_PAGES}, by the same key, in the order they came. */
  readonly #waiting = new Map<string, { request: PageParseRequest; at: number }>();

  constructor(
    source: PdfPageSource,
    office?: TextDocumentPages,
    options: LocalTextProviderOptions = {},
  ) {
    this.#source = source;
    this.#office = office;
    this.#prefetch = options.prefetch ?? false;
  }

  /**
   * Starts laying out a PDF page that `parsePage` will be asked for with the same document, page,
   * DPI and profile (see {@link LocalTextProviderOptions.prefetch}), or queues it while
   * {@link MAX_PREFETCHED_PAGES} pages wait to be taken; a failure is left for that call to meet
   * again. Ignored when prefetching is off and for other formats.
   */
  prefetch(request: PageParseRequest): void {
    if (!this.#prefetch || !this.#source.layOut || request.document.format !== 'pdf') return;
    const now = Date.now();
    this.#dropStale(now);
    const key = prefetchKey(request);
    if (this.#prefetched.has(key) || this.#waiting.has(key)) return;
    if (this.#prefetched.size < MAX_PREFETCHED_PAGES) this.#start(key, request, now);
    else if (this.#waiting.size < MAX_WAITING_HINTS) this.#waiting.set(key, { request, at: now });
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
    const prefetched = this.#takePrefetched(request);
    // A layout started ahead that failed is tried again, as a call without the hint would be.
    const result = prefetched
      ? prefetched.catch(() => this.#layOut(request))
      : this.#layOut(request);
    // After this page's own call: a waiting hint goes behind it in the reader's queue.
    this.#startWaiting(Date.now(), request.document.key);
    return result;
  }

  /** Lays out the page of `request` ahead, kept under `key`. */
  #start(key: string, request: PageParseRequest, at: number): void {
    const result = this.#layOut(request);
    result.catch(() => undefined);
    this.#prefetched.set(key, { profile: JSON.stringify(request.profile), result, at });
  }

  /**
   * Starts waiting hints of the stored document `document`, oldest first, while fewer than the
   * most pages are laid out ahead: only a request still asking for its pages gets more laid out,
   * and the hints of one that stopped (cancelled, failed) never start.
   */
  #startWaiting(now: number, document: string): void {
    for (const [key, hint] of this.#waiting) {
      if (this.#prefetched.size >= MAX_PREFETCHED_PAGES) return;
      if (hint.request.document.key !== document) continue;
      this.#waiting.delete(key);
      this.#start(key, hint.request, now);
    }
  }

  /** The page laid out ahead for `request` (taken: a later call lays it out again), if any. */
  #takePrefetched(request: PageParseRequest): Promise<ProviderPageResult> | undefined {
    if (this.#prefetched.size === 0 && this.#waiting.size === 0) return undefined;
    this.#dropStale(Date.now());
    const key = prefetchKey(request);
    // Asked for before its turn: the caller lays it out now.
    this.#waiting.delete(key);
    const page = this.#prefetched.get(key);
    if (!page) return undefined;
    this.#prefetched.delete(key);
    return page.profile === JSON.stringify(request.profile) ? page.result : undefined;
  }

  /**
   * Drops the pages laid out ahead, and the hints waiting, since longer than
   * {@link PREFETCHED_PAGE_TTL_MS} before `now` (both maps are oldest first).
   */
  #dropStale(now: number): void {
    for (const entries of [this.#prefetched, this.#waiting]) {
      for (const [key, entry] of entries) {
        if (now - entry.at <= PREFETCHED_PAGE_TTL_MS) break;
        entries.delete(key);
      }
    }
  }

  async #layOut(request: PageParseRequest): Promise<ProviderPageResult> {
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
 * What a page laid out ahead must match to answer a `parsePage`, besides its profile: the stored
 * object (one per request), so that a page is never taken by another request's parse.
 */
const prefetchKey = (request: PageParseRequest): string =>
  [request.document.key, request.pageNumber, request.dpi ?? DEFAULT_TEXT_DPI].join('\n');

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
