import {
  AnalyzeDocumentCommand,
  TextractClient,
  type Block,
  type BlockType,
  type BoundingBox,
  type RelationshipType,
} from '@aws-sdk/client-textract';
import type { BBoxLabel } from '../core/domain/schemas.js';
import type {
  PageParseRequest,
  PageProvider,
  ProviderElement,
  ProviderPageResult,
} from '../core/ports/page-provider.js';
import { escapeBlockStart, escapeInline } from '../engines/layout/markdown.js';
import {
  AwsSdkProvider,
  awsClientOptions,
  type AwsSdkProviderSettings,
} from './aws-sdk-provider.js';
import { unavailable } from './remote-provider.js';

/**
 * Settings of {@link TextractProvider}: those of {@link AwsSdkProviderSettings}, which apply to
 * Textract. There is no base URL, no API key (region and credentials come from the SDK's default
 * chain or {@link textractClient}'s `region`) and no output-token limit. `model` is only the name
 * reported as `Page.model` (e.g. `textract-analyze-document-layout`): the service has no model
 * choice. `maxRetries` is applied by the SDK client ({@link textractClient}).
 */
export type TextractSettings = AwsSdkProviderSettings;

/**
 * A Textract client that makes `maxRetries + 1` attempts per call with the SDK's standard retry
 * strategy (exponential backoff with jitter on throttling, 5xx and network errors), the way
 * {@link TextractProvider} expects it.
 *
 * @param region the AWS region (e.g. `eu-west-1`); absent: the SDK's default chain.
 * @throws {Error} when `maxRetries` is not a non-negative integer.
 * @example
 * const provider = new TextractProvider(settings, textractClient(settings, 'eu-west-1'), rasterizer);
 */
export function textractClient(
  settings: Pick<TextractSettings, 'maxRetries'>,
  region?: string,
): TextractClient {
  return new TextractClient(awsClientOptions(settings, region));
}

/**
 * Amazon Textract's synchronous AnalyzeDocument with the LAYOUT and TABLES features, on the
 * rendered page (PNG bytes; the API takes at most 10 MB and 10000 px a side).
 *
 * The Markdown follows Textract's layout blocks in the order it returns them ({@link
 * textractPageLayout}); the elements carry Textract's boxes and confidences. Textract bills per
 * page, so the tokens are 0.
 */
export class TextractProvider
  extends AwsSdkProvider<TextractSettings, TextractClient>
  implements PageProvider
{
  /**
   * Analyses one page with Textract.
   *
   * @returns Markdown and elements from the layout blocks (boxes in pixels of the image, inside
   *   it), the image's `dpi`/`width`/`height`, no tokens, `ocrScore` = character-weighted mean
   *   WORD confidence (null without words), `layoutScore` = mean element confidence (1 for an
   *   empty page), no evidence text.
   * @throws {DocumentRejectedError} when the page cannot be rendered.
   * @throws {ProviderUnavailableError} when Textract fails after the client's retries or
   *   refuses the image (the reason names the SDK error, e.g. `BadDocumentException`: another
   *   provider may still read the page), no answer came within `timeoutMs` (retries included),
   *   or the answer holds no blocks.
   */
  async parsePage(request: PageParseRequest): Promise<ProviderPageResult> {
    const { id, model } = this.settings;
    const raster = await this.pageRaster(request);
    const response = await this.send(
      (abortSignal) =>
        this.client.send(
          new AnalyzeDocumentCommand({
            Document: { Bytes: raster.png },
            FeatureTypes: ['LAYOUT', 'TABLES'],
          }),
          { abortSignal },
        ),
      TEXTRACT_ERRORS,
    );
    if (!response.Blocks) throw unavailable(id, 'the answer holds no blocks');
    const layout = textractPageLayout(response.Blocks, raster.width, raster.height);
    return {
      markdown: layout.markdown,
      elements: layout.elements,
      dpi: raster.dpi,
      width: raster.width,
      height: raster.height,
      model,
      tokens: { input: 0, output: 0 },
      ocrScore: layout.ocrScore === null ? null : round3(layout.ocrScore),
      layoutScore: round3(layout.layoutScore),
      evidenceText: null,
    };
  }
}

/** Markdown, elements and scores of one page analysed by Textract. */
export interface TextractPageLayout {
  markdown: string;
  /** Boxes in pixels of the `width` × `height` image, inside it; in reading order. */
  elements: ProviderElement[];
  /** Character-weighted mean WORD confidence in [0, 1], or null without words. */
  ocrScore: number | null;
  /** Mean element confidence in [0, 1]; 1 without elements. */
  layoutScore: number;
}

/**
 * Builds the page from AnalyzeDocument's blocks (LAYOUT and TABLES features), in the order
 * Textract gives its LAYOUT_* blocks:
 *
 * - LAYOUT_TITLE → `# text`, LAYOUT_SECTION_HEADER → `## text`, LAYOUT_TEXT → a paragraph
 *   (the block's LINE children joined with spaces), LAYOUT_KEY_VALUE → a paragraph with one
 *   line per LINE.
 * - LAYOUT_LIST → one `- item` per child (LAYOUT_TEXT, or LINE); a printed bullet glyph is
 *   replaced by `- `, a printed number (`3.`, `3)`) is kept as the ordered-list marker. One
 *   element per item.
 * - LAYOUT_TABLE → a GFM table from the TABLE block whose box overlaps it most (Textract gives
 *   the layout block LINE children and the TABLE separately): first row as header, a spanning
 *   cell's text (a CELL with spans, or a MERGED_CELL, whose text is its CELLs' text) in its
 *   top-left cell and the covered cells empty. Without a TABLE, its lines, one per line.
 * - LAYOUT_FIGURE → a figure element with no text; LAYOUT_HEADER, LAYOUT_FOOTER and
 *   LAYOUT_PAGE_NUMBER → elements only, kept out of the Markdown.
 * - LINEs that no layout block claims (Textract normally assigns every line) → one paragraph
 *   each, after the layout blocks.
 *
 * Text is escaped for Markdown like the offline engines' ({@link escapeInline}).
 *
 * @param blocks the `Blocks` of one page.
 * @param width the image width in pixels (Textract boxes are shares of the page).
 * @param height the image height in pixels.
 */
export function textractPageLayout(
  blocks: readonly Block[],
  width: number,
  height: number,
): TextractPageLayout {
  const byId = new Map<string, Block>();
  for (const block of blocks) if (block.Id !== undefined) byId.set(block.Id, block);
  const related = (block: Block, type: RelationshipType = 'CHILD'): Block[] =>
    (block.Relationships ?? [])
      .filter((r) => r.Type === type)
      .flatMap((r) => r.Ids ?? [])
      .flatMap((childId) => byId.get(childId) ?? []);
  const linesOf = (block: Block): string[] =>
    related(block)
      .filter((b) => b.BlockType === 'LINE')
      .map((b) => (b.Text ?? '').trim())
      .filter((t) => t !== '');
  const element = (
    block: Block,
    text: string,
    label: BBoxLabel,
    elementType: string,
  ): ProviderElement[] => {
    const bbox = pixelBox(block.Geometry?.BoundingBox, width, height);
    if (!bbox) return [];
    return [{ text, bbox, label, elementType, confidence: unitConfidence(block.Confidence) }];
  };

  const layouts = blocks.filter(isLayout);
  // A list's items are LAYOUT_TEXT blocks of their own, also listed among the blocks.
  const listItemIds = new Set(
    layouts
      .filter((b) => b.BlockType === 'LAYOUT_LIST')
      .flatMap((list) => related(list).flatMap((item) => item.Id ?? [])),
  );
  const claimedLines = new Set<Block>();
  for (const layout of layouts) {
    for (const child of related(layout)) if (child.BlockType === 'LINE') claimedLines.add(child);
  }
  const tables = blocks.filter((b) => b.BlockType === 'TABLE');
  const pairedTables = new Set<Block>();

  const parts: string[] = [];
  const elements: ProviderElement[] = [];
  const paragraph = (block: Block, lines: readonly string[], elementType: string) => {
    const text = lines.join(' ');
    if (text === '') return;
    parts.push(escapeBlockStart(escapeInline(text)));
    elements.push(...element(block, text, 'paragraph', elementType));
  };

  for (const block of layouts) {
    if (block.Id !== undefined && listItemIds.has(block.Id)) continue;
    const lines = linesOf(block);
    const text = lines.join(' ');
    switch (block.BlockType) {
      case 'LAYOUT_TITLE':
      case 'LAYOUT_SECTION_HEADER': {
        if (text === '') break;
        const title = block.BlockType === 'LAYOUT_TITLE';
        parts.push(`${title ? '#' : '##'} ${escapeInline(text)}`);
        elements.push(...element(block, text, 'paragraph', title ? 'title' : 'heading'));
        break;
      }
      case 'LAYOUT_TEXT':
        paragraph(block, lines, 'paragraph');
        break;
      case 'LAYOUT_KEY_VALUE': {
        if (text === '') break;
        // One pair per printed line: soft breaks keep them apart in the source.
        parts.push(lines.map((line) => escapeBlockStart(escapeInline(line))).join('\n'));
        elements.push(...element(block, lines.join('\n'), 'paragraph', 'key_value'));
        break;
      }
      case 'LAYOUT_LIST': {
        const items: string[] = [];
        for (const item of related(block)) {
          const itemText =
            item.BlockType === 'LINE' ? (item.Text ?? '').trim() : linesOf(item).join(' ');
          if (itemText === '') continue;
          items.push(listItemMarkdown(itemText));
          elements.push(...element(item, itemText, 'list', 'list_item'));
        }
        if (items.length > 0) parts.push(items.join('\n'));
        break;
      }
      case 'LAYOUT_TABLE': {
        const table = pairTable(block, tables, pairedTables);
        const rendered = table ? renderTextractTable(table, related) : null;
        if (rendered) {
          pairedTables.add(rendered.table);
          parts.push(rendered.markdown);
          elements.push(...element(block, rendered.text, 'table', 'table'));
        } else if (lines.length > 0) {
          parts.push(lines.map((line) => escapeBlockStart(escapeInline(line))).join('\n'));
          elements.push(...element(block, lines.join('\n'), 'table', 'table'));
        }
        break;
      }
      case 'LAYOUT_FIGURE':
        elements.push(...element(block, '', 'figure', 'figure'));
        break;
      case 'LAYOUT_HEADER':
        if (text !== '') elements.push(...element(block, text, 'header', 'header'));
        break;
      case 'LAYOUT_FOOTER':
        if (text !== '') elements.push(...element(block, text, 'footer', 'footer'));
        break;
      case 'LAYOUT_PAGE_NUMBER': {
        if (text === '') break;
        const box = block.Geometry?.BoundingBox;
        const top = (box?.Top ?? 1) + (box?.Height ?? 0) / 2 < 0.5;
        elements.push(...element(block, text, top ? 'header' : 'footer', 'page_number'));
        break;
      }
    }
  }
  for (const line of blocks) {
    if (line.BlockType === 'LINE' && !claimedLines.has(line)) {
      paragraph(line, [(line.Text ?? '').trim()], 'paragraph');
    }
  }

  const layoutScore =
    elements.length === 0
      ? 1
      : elements.reduce((sum, e) => sum + e.confidence, 0) / elements.length;
  return { markdown: parts.join('\n\n'), elements, ocrScore: wordConfidence(blocks), layoutScore };
}

/** The layout kinds of AnalyzeDocument's LAYOUT feature. */
type LayoutBlockType = Extract<BlockType, `LAYOUT_${string}`>;

function isLayout(block: Block): block is Block & { BlockType: LayoutBlockType } {
  return block.BlockType?.startsWith('LAYOUT_') === true;
}

/** A list item's Markdown line: `- text`, or the printed number as an ordered-list marker. */
function listItemMarkdown(text: string): string {
  const [, marker, rest = ''] = /^(\d{1,9}[.)])\s+(.*)$/s.exec(text) ?? [];
  if (marker !== undefined) return `${marker} ${escapeBlockStart(escapeInline(rest))}`;
  // ASCII markers only before a space: `-5 °C` keeps its minus.
  const bare = text.replace(/^(?:[•●○◦▪▫■□‣⁃∙·–—]\s*|[-*]\s+)/u, '');
  return `- ${escapeBlockStart(escapeInline(bare))}`;
}

/**
 * The not yet used TABLE block that overlaps the LAYOUT_TABLE most (intersection over union),
 * provided half of the smaller box lies inside the other; undefined when none does.
 */
function pairTable(
  layout: Block,
  tables: readonly Block[],
  paired: ReadonlySet<Block>,
): Block | undefined {
  const a = layout.Geometry?.BoundingBox;
  if (!a) return undefined;
  let best: { table: Block; iou: number } | undefined;
  for (const table of tables) {
    const b = table.Geometry?.BoundingBox;
    if (paired.has(table) || !b) continue;
    const overlap = intersection(a, b);
    const areaA = area(a);
    const areaB = area(b);
    if (overlap <= 0 || overlap < 0.5 * Math.min(areaA, areaB)) continue;
    const iou = overlap / (areaA + areaB - overlap);
    if (!best || iou > best.iou) best = { table, iou };
  }
  return best?.table;
}

/** A TABLE block as a GFM table, with the plain text of its cells; null without cells. */
function renderTextractTable(
  table: Block,
  related: (block: Block, type?: RelationshipType) => Block[],
): { table: Block; markdown: string; text: string } | null {
  const cells = related(table).filter((b) => b.BlockType === 'CELL');
  const merged = related(table, 'MERGED_CELL').filter((b) => b.BlockType === 'MERGED_CELL');
  const wordsOf = (cell: Block) =>
    related(cell)
      .filter((b) => b.BlockType === 'WORD')
      .map((b) => (b.Text ?? '').trim())
      .filter((t) => t !== '')
      .join(' ');
  const spans = [...cells, ...merged].flatMap((cell) => {
    const row = cell.RowIndex ?? 0;
    const col = cell.ColumnIndex ?? 0;
    if (row < 1 || col < 1) return [];
    return [{ cell, row, col, rowSpan: cell.RowSpan ?? 1, colSpan: cell.ColumnSpan ?? 1 }];
  });
  if (spans.length === 0) return null;
  const rowCount = Math.max(...spans.map((s) => s.row + Math.max(1, s.rowSpan) - 1));
  const colCount = Math.max(...spans.map((s) => s.col + Math.max(1, s.colSpan) - 1));
  const grid = Array.from({ length: rowCount }, () => Array.from({ length: colCount }, () => ''));
  const covered: [row: number, col: number][] = [];
  for (const { cell, row, col, rowSpan, colSpan } of spans) {
    // A MERGED_CELL's words are those of the CELLs it joins, in reading order.
    const text =
      cell.BlockType === 'MERGED_CELL'
        ? related(cell)
            .filter((b) => b.BlockType === 'CELL')
            .sort(
              (p, q) =>
                (p.RowIndex ?? 0) - (q.RowIndex ?? 0) ||
                (p.ColumnIndex ?? 0) - (q.ColumnIndex ?? 0),
            )
            .map(wordsOf)
            .filter((t) => t !== '')
            .join(' ')
        : wordsOf(cell);
    const gridRow = grid[row - 1];
    if (gridRow) gridRow[col - 1] = text;
    for (let r = row; r < row + rowSpan; r++) {
      for (let c = col; c < col + colSpan; c++) {
        if (r !== row || c !== col) covered.push([r, c]);
      }
    }
  }
  // After the loop: the CELLs under a MERGED_CELL carry their own words too.
  for (const [r, c] of covered) {
    const gridRow = grid[r - 1];
    if (gridRow && c - 1 < gridRow.length) gridRow[c - 1] = '';
  }
  const line = (row: readonly string[]) =>
    `| ${row.map((text) => escapeInline(text)).join(' | ')} |`;
  const [header = [], ...body] = grid;
  const markdown = [line(header), `| ${header.map(() => '---').join(' | ')} |`, ...body.map(line)];
  const text = grid
    .flat()
    .filter((t) => t !== '')
    .join(' ');
  return { table, markdown: markdown.join('\n'), text };
}

/** Character-weighted mean of the WORD confidences in [0, 1]; null without characters. */
function wordConfidence(blocks: readonly Block[]): number | null {
  let chars = 0;
  let sum = 0;
  for (const block of blocks) {
    if (block.BlockType !== 'WORD') continue;
    const n = Array.from(block.Text ?? '').length;
    chars += n;
    sum += n * unitConfidence(block.Confidence);
  }
  return chars === 0 ? null : sum / chars;
}

const PIXEL_TOLERANCE = 1e-6;

/** A Textract box (shares of the page) in whole pixels, clipped to the image; null when empty. */
function pixelBox(
  box: BoundingBox | undefined,
  width: number,
  height: number,
): ProviderElement['bbox'] | null {
  if (!box) return null;
  const left = box.Left ?? 0;
  const top = box.Top ?? 0;
  // Outward to whole pixels; the tolerance keeps float noise (0.1 * 200 = 20.000000000000004)
  // from adding a pixel.
  const x0 = clamp(Math.floor(left * width + PIXEL_TOLERANCE), 0, width);
  const y0 = clamp(Math.floor(top * height + PIXEL_TOLERANCE), 0, height);
  const x1 = clamp(Math.ceil((left + (box.Width ?? 0)) * width - PIXEL_TOLERANCE), 0, width);
  const y1 = clamp(Math.ceil((top + (box.Height ?? 0)) * height - PIXEL_TOLERANCE), 0, height);
  if (x1 - x0 <= 0 || y1 - y0 <= 0) return null;
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

function intersection(a: BoundingBox, b: BoundingBox): number {
  const w =
    Math.min((a.Left ?? 0) + (a.Width ?? 0), (b.Left ?? 0) + (b.Width ?? 0)) -
    Math.max(a.Left ?? 0, b.Left ?? 0);
  const h =
    Math.min((a.Top ?? 0) + (a.Height ?? 0), (b.Top ?? 0) + (b.Height ?? 0)) -
    Math.max(a.Top ?? 0, b.Top ?? 0);
  return w > 0 && h > 0 ? w * h : 0;
}

function area(box: BoundingBox): number {
  return Math.max(0, box.Width ?? 0) * Math.max(0, box.Height ?? 0);
}

/** Textract's 0–100 confidence in [0, 1]; 0 when absent. */
function unitConfidence(confidence: number | undefined): number {
  return clamp((confidence ?? 0) / 100, 0, 1);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** What each Textract error means, for the failure reason. */
const TEXTRACT_ERRORS: Readonly<Record<string, string>> = {
  ProvisionedThroughputExceededException: 'over the provisioned throughput',
  ThrottlingException: 'throttled',
  LimitExceededException: 'over the concurrency limit',
  InternalServerError: 'internal error of the service',
  AccessDeniedException: 'access denied: the role may not call textract:AnalyzeDocument',
  InvalidParameterException: 'the request was refused as invalid',
  UnsupportedDocumentException: 'the image format is not supported',
  BadDocumentException: 'Textract could not read the image',
  DocumentTooLargeException:
    'the image is larger than AnalyzeDocument accepts (10 MB, 10000 px a side); lower the DPI',
};
