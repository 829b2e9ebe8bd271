import {
  AppError,
  DocumentRejectedError,
  ProviderUnavailableError,
  ValidationError,
} from '../domain/errors.js';
import { countDailyPages, dayCountExpiry } from '../domain/page-quota.js';
import type { Plan } from '../domain/request.js';
import type { StructuredBlock, StructuredResult } from '../domain/schemas.js';
import {
  OFFLINE_STRUCTURE_MODEL,
  type OpenedStructureDocument,
  type PageRegions,
  type Region,
  type RegionBox,
  type RegionCell,
  type StructureExtractor,
} from '../ports/structure-extractor.js';
import type { AppDeps } from './app-deps.js';
import { checkedUpload } from './parse-upload.js';

/** The model `POST /v1/parse/structured` uses when the form names none: the offline extractor. */
export const DEFAULT_STRUCTURED_MODEL = OFFLINE_STRUCTURE_MODEL;

/** A structured extraction request, as the handler passes it on. */
export interface StructuredRequest {
  tenant: string;
  /** The caller's plan, whose daily pages the extraction counts against; absent: not metered. */
  plan?: Plan;
  /** The `file` part, or the `upload_id` of a file sent beforehand to POST /v1/uploads. */
  document: { bytes: Uint8Array; filename: string | null } | { uploadId: string };
  /** Read at most this many pages (from the first); null: every page. */
  maxPages: number | null;
  /** The extractor model (`model` form field). */
  model: string;
}

/** Geometry and source of one processed page (an extension of the structured result). */
export interface StructuredPageView {
  page: number;
  width: number;
  height: number;
  dpi: number;
  source: PageRegions['source'];
}

/** The structured result, with the geometry of each page its boxes refer to. */
export type StructuredResponse = StructuredResult & { pages: StructuredPageView[] };

/** What {@link extractStructure} uses. */
export type StructuredDeps = Pick<
  AppDeps,
  'objects' | 'detectFormat' | 'clock' | 'limits' | 'settings' | 'usage' | 'newId' | 'structure'
>;

/**
 * Extracts tables, equations and figures from a document as typed blocks (POST
 * /v1/parse/structured):
 * 1. checks the model (the extractor's own, 422 otherwise) and reads the document: the `file`
 *    part, or the tenant's upload slot; checks its size and detects its format from the bytes;
 * 2. opens it with the extractor and selects pages 1..min(page count, `maxPages`), refusing more
 *    than the deployment's page cap (422);
 * 3. counts those pages against the tenant's daily quota (402 when it would be exceeded);
 * 4. extracts the pages' regions in parallel, `limits.pageConcurrency` at a time; a page that
 *    cannot be read becomes a warning;
 * 5. sanity-checks every region ({@link checkRegions}): boxes inside the page, tables with text
 *    and rectangular grids after spans, non-empty LaTeX; repairs or drops, with a warning each;
 * 6. numbers the blocks in page order; with none, answers 422 (plain text documents belong to
 *    POST /v1/parse/upload) and gives the pages back, as after any failure past step 3.
 *
 * Boxes are `[x0, y0, x1, y1]` in pixels of the page image at the page's DPI, origin top-left,
 * as the `grounding` boxes of a parse; `pages` gives each page's size and DPI.
 * @throws {ValidationError} (422) for an unknown model.
 * @throws {NotFoundError} (404) for an unknown, unsent or foreign upload id.
 * @throws {PayloadTooLargeError} (413), `BadRequestError` (400, empty file),
 *   `UnsupportedDocumentError` (400, not a supported format).
 * @throws {DocumentRejectedError} (422) too many pages, or no extractable region.
 * @throws {PlanLimitError} (402) when the plan's pages per day would be exceeded.
 * @throws {ProviderUnavailableError} (503) where no extractor is deployed, or it fails retryably.
 */
export async function extractStructure(
  deps: StructuredDeps,
  request: StructuredRequest,
): Promise<StructuredResponse> {
  const started = deps.clock.now().getTime();
  const extractor = extractorFor(deps.structure, request.model);
  const { bytes, filename, format, hash } = await checkedUpload(deps, {
    tenant: request.tenant,
    ...request.document,
  });
  const opened = await extractor.open({ bytes, format, hash });
  try {
    const pages = selectedPages(opened.pageCount, request.maxPages, deps.settings.maxDocumentPages);
    const reservation = await reservePages(deps, request, pages.length);
    try {
      const extractStarted = deps.clock.now().getTime();
      const { read, warnings } = await readPages(deps, opened, pages);
      const checkStarted = deps.clock.now().getTime();
      const checked = checkRegions(read);
      const blocks = checked.blocks;
      if (blocks.length === 0) {
        throw new DocumentRejectedError(
          `no extractable tables, equations or figures were found in the ${pages.length === 1 ? 'page' : `${pages.length} pages`} read; for plain text documents use POST /v1/parse/upload, which returns the text as Markdown`,
        );
      }
      const ended = deps.clock.now().getTime();
      return {
        document: {
          hash,
          pages: opened.pageCount,
          format,
          cached: false,
          filename,
          size_bytes: bytes.byteLength,
        },
        blocks,
        warnings: [...warnings, ...checked.warnings],
        usage: { total_input_tokens: 0, total_output_tokens: 0, estimated_cost_usd: 0 },
        timing: {
          total_ms: ended - started,
          classification_ms: 0,
          routing_ms: 0,
          vlm_processing_ms: checkStarted - extractStarted,
          verification_ms: ended - checkStarted,
        },
        pages: read.map((p) => ({
          page: p.pageNumber,
          width: p.width,
          height: p.height,
          dpi: p.dpi,
          source: p.source,
        })),
      };
    } catch (error) {
      await refundPages(request.tenant, reservation);
      throw error;
    }
  } finally {
    await opened.close();
  }
}

/** The extractor answering to `model`. */
function extractorFor(
  extractor: StructureExtractor | undefined,
  model: string,
): StructureExtractor {
  if (!extractor) {
    throw new ProviderUnavailableError(
      'structured extraction is not available in this deployment: its function ships without the document engines',
    );
  }
  if (model === extractor.model) return extractor;
  throw new ValidationError([
    {
      loc: ['body', 'model'],
      msg: `unknown model "${model}"; the structured extractor models of this deployment are: ${extractor.model} (the default)`,
      type: 'value_error',
    },
  ]);
}

/**
 * Pages 1..min(pageCount, maxPages).
 * @throws {DocumentRejectedError} without pages, or above the page cap.
 */
function selectedPages(pageCount: number, maxPages: number | null, cap: number): number[] {
  if (pageCount < 1) throw new DocumentRejectedError('the document has no pages');
  const limit = Math.min(maxPages ?? pageCount, pageCount);
  if (limit > cap) {
    throw new DocumentRejectedError(
      `the document has ${pageCount} pages and at most ${cap} are read per request; set max_pages to ${cap} or less to read the first pages`,
    );
  }
  return Array.from({ length: limit }, (_, i) => i + 1);
}

/** Pages counted against a tenant's day. */
interface Reservation {
  usage: NonNullable<StructuredDeps['usage']>;
  day: string;
  pages: number;
  refundId: string;
}

/** Counts the pages against the plan's daily quota (unmetered without a plan or counters). */
async function reservePages(
  deps: StructuredDeps,
  request: StructuredRequest,
  pages: number,
): Promise<Reservation | undefined> {
  const { usage } = deps;
  if (!usage || request.plan === undefined) return undefined;
  const day = await countDailyPages(
    deps,
    { tenant: request.tenant, plan: request.plan },
    pages,
    request.maxPages,
  );
  if (day === undefined) return undefined;
  return { usage, day, pages, refundId: `structured#${deps.newId()}` };
}

/** Gives reserved pages back after a failed extraction. */
async function refundPages(tenant: string, reservation: Reservation | undefined): Promise<void> {
  if (!reservation) return;
  await reservation.usage.refundPages(
    tenant,
    reservation.day,
    reservation.pages,
    reservation.refundId,
    dayCountExpiry(reservation.day),
  );
}

/**
 * Extracts the pages, `limits.pageConcurrency` at a time. A page the document cannot give (422
 * or 400 from the extractor) becomes a warning; any other failure fails the request.
 */
async function readPages(
  deps: StructuredDeps,
  opened: OpenedStructureDocument,
  pages: readonly number[],
): Promise<{ read: PageRegions[]; warnings: string[] }> {
  const outcomes = await mapBounded(pages, deps.limits.pageConcurrency, async (pageNumber) => {
    try {
      return await opened.extractPage(pageNumber);
    } catch (error) {
      if (
        error instanceof AppError &&
        (error.kind === 'unprocessable' || error.kind === 'invalid')
      ) {
        return `page ${pageNumber}: the page could not be read and was skipped (${error.message})`;
      }
      throw error;
    }
  });
  const read: PageRegions[] = [];
  const warnings: string[] = [];
  for (const outcome of outcomes) {
    if (typeof outcome === 'string') warnings.push(outcome);
    else read.push(outcome);
  }
  return { read, warnings };
}

/**
 * Runs `fn` over `items` with at most `limit` calls in flight, keeping the order of `items`.
 * After a failure no further item is started; the first failure is thrown once the calls in
 * flight have settled.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(limit), items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  if (failure) throw failure.error;
  return results;
}

/**
 * Sanity-checks the regions of the pages and turns them into numbered blocks (`table_1`,
 * `equation_1`, `figure_1`, ... in page order). Each repair or drop adds a warning naming the
 * page (and the block, by its id); a page's own notes come first, one warning each.
 */
export function checkRegions(pages: readonly PageRegions[]): {
  blocks: StructuredBlock[];
  warnings: string[];
} {
  const blocks: StructuredBlock[] = [];
  const warnings: string[] = [];
  const counters = { table: 0, equation: 0, figure: 0 };
  const sorted = [...pages].sort((a, b) => a.pageNumber - b.pageNumber);
  for (const page of sorted) {
    const warn = (text: string) => warnings.push(`page ${page.pageNumber}: ${text}`);
    for (const note of page.notes) warn(note);
    for (const region of page.regions) {
      const what = region.kind;
      const box = checkedBox(region.bbox, page.width, page.height);
      if (!box) {
        warn(`a ${what} was dropped: its box is empty or outside the page`);
        continue;
      }
      if (box.clamped) warn(`a ${what} box reached outside the page and was clipped to it`);
      const block = checkedBlock(region, box.box, warn, page.pageNumber, counters);
      if (block) blocks.push(block);
    }
  }
  return { blocks, warnings };
}

/** The block of one region, numbered; null (with a warning) when it fails its checks. */
function checkedBlock(
  region: Region,
  bbox: RegionBox,
  warn: (text: string) => void,
  page: number,
  counters: { table: number; equation: number; figure: number },
): StructuredBlock | null {
  switch (region.kind) {
    case 'table': {
      const table = checkedTable(region.cells);
      if ('dropped' in table) {
        warn(`a table was dropped: ${table.dropped}`);
        return null;
      }
      for (const repair of table.repairs) warn(`table_${counters.table + 1}: ${repair}`);
      return {
        type: 'table',
        table_id: `table_${++counters.table}`,
        page,
        cells: table.cells.map((c) => ({
          row: c.row,
          col: c.col,
          text: c.text,
          row_span: c.rowSpan,
          col_span: c.colSpan,
        })),
        bbox,
      };
    }
    case 'equation': {
      const latex = region.latex.trim();
      if (latex === '') {
        warn('an equation was dropped: no LaTeX was read for it');
        return null;
      }
      if (!bracesBalanced(latex)) {
        warn('an equation was dropped: its LaTeX has unbalanced braces');
        return null;
      }
      for (const note of region.notes ?? []) warn(`equation_${counters.equation + 1}: ${note}`);
      return {
        type: 'equation',
        equation_id: `equation_${++counters.equation}`,
        page,
        latex,
        bbox,
      };
    }
    case 'figure':
      return {
        type: 'figure',
        figure_id: `figure_${++counters.figure}`,
        page,
        caption: region.caption.replace(/\s+/g, ' ').trim(),
        bbox,
      };
  }
}

/** Whether `{` and `}` (other than `\{`, `\}`) pair up. */
function bracesBalanced(latex: string): boolean {
  let depth = 0;
  for (const token of latex.replace(/\\./g, '').split('')) {
    if (token === '{') depth++;
    else if (token === '}' && --depth < 0) return false;
  }
  return depth === 0;
}

/**
 * A box inside a `width` × `height` page, rounded to hundredths of a pixel.
 * @returns the box and whether it had to be clipped (by more than half a pixel), or null when it
 *   is not a box (non-finite, inverted) or nothing of it is on the page.
 */
export function checkedBox(
  box: RegionBox,
  width: number,
  height: number,
): { box: RegionBox; clamped: boolean } | null {
  const [x0, y0, x1, y1] = box;
  if (![x0, y0, x1, y1].every(Number.isFinite) || x1 <= x0 || y1 <= y0) return null;
  const clip = (v: number, max: number) => Math.min(Math.max(v, 0), max);
  const out: RegionBox = [clip(x0, width), clip(y0, height), clip(x1, width), clip(y1, height)];
  if (out[2] - out[0] < 0.5 || out[3] - out[1] < 0.5) return null;
  const moved = [out[0] - x0, out[1] - y0, out[2] - x1, out[3] - y1];
  const clamped = moved.some((d) => Math.abs(d) > 0.5);
  return {
    box: out.map((v) => Math.round(v * 100) / 100) as RegionBox,
    clamped,
  };
}

/**
 * A table's cells as a rectangular grid: every grid slot covered by exactly one cell.
 *
 * Cells with an impossible position or span are dropped; a cell whose first slot is taken
 * already has its text appended to the cell there; a span that runs into another cell is
 * shortened; slots no cell covers get empty cells.
 * @returns the cells in row then column order with what was repaired, or why the table is
 *   dropped: no cell with text, or fewer than two grid slots.
 */
export function checkedTable(
  input: readonly RegionCell[],
): { cells: RegionCell[]; repairs: string[] } | { dropped: string } {
  const repairs: string[] = [];
  const valid = input.filter(
    (c) =>
      [c.row, c.col].every((v) => Number.isInteger(v) && v >= 0) &&
      [c.rowSpan, c.colSpan].every((v) => Number.isInteger(v) && v >= 1),
  );
  if (valid.length < input.length) {
    repairs.push(`${input.length - valid.length} cells with an impossible position were dropped`);
  }
  if (!valid.some((c) => c.text.trim() !== '')) return { dropped: 'no cell has text' };
  const rows = Math.max(...valid.map((c) => c.row + c.rowSpan));
  const cols = Math.max(...valid.map((c) => c.col + c.colSpan));
  if (rows * cols < 2) return { dropped: 'it has fewer than two cells' };
  const owner: (RegionCell | undefined)[][] = Array.from({ length: rows }, () =>
    Array.from({ length: cols }, (): RegionCell | undefined => undefined),
  );
  // Rows and columns asked for are inside the grid: spans end at `rows` and `cols` at most.
  const slots = (r: number) => owner[r] as (RegionCell | undefined)[];
  const free = (r: number, c: number) => slots(r)[c] === undefined;
  const cells: RegionCell[] = [];
  let merged = 0;
  let shortened = 0;
  for (const cell of [...valid].sort((a, b) => a.row - b.row || a.col - b.col)) {
    const occupant = slots(cell.row)[cell.col];
    if (occupant) {
      const text = cell.text.trim();
      if (text !== '')
        occupant.text = occupant.text.trim() === '' ? text : `${occupant.text} ${text}`;
      merged++;
      continue;
    }
    let colSpan = 1;
    while (colSpan < cell.colSpan && free(cell.row, cell.col + colSpan)) colSpan++;
    let rowSpan = 1;
    const rowFree = (r: number) =>
      Array.from({ length: colSpan }, (_, k) => free(r, cell.col + k)).every(Boolean);
    while (rowSpan < cell.rowSpan && rowFree(cell.row + rowSpan)) rowSpan++;
    if (rowSpan !== cell.rowSpan || colSpan !== cell.colSpan) shortened++;
    const placed = { row: cell.row, col: cell.col, rowSpan, colSpan, text: cell.text.trim() };
    for (let r = cell.row; r < cell.row + rowSpan; r++) {
      for (let c = cell.col; c < cell.col + colSpan; c++) slots(r)[c] = placed;
    }
    cells.push(placed);
  }
  if (merged > 0) repairs.push(`${merged} cells overlapping another were merged into it`);
  if (shortened > 0) repairs.push(`${shortened} cell spans overlapping other cells were shortened`);
  let holes = 0;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (!free(r, c)) continue;
      cells.push({ row: r, col: c, rowSpan: 1, colSpan: 1, text: '' });
      holes++;
    }
  }
  if (holes > 0) repairs.push(`${holes} grid slots no cell covered were filled with empty cells`);
  cells.sort((a, b) => a.row - b.row || a.col - b.col);
  return { cells, repairs };
}
