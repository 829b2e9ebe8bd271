import { DocumentRejectedError, UnsupportedDocumentError } from '../../core/domain/errors.js';
import { gfmTable } from './gfm-table.js';
import type { OfficeDocument, OfficeElement, OfficePage } from './office-document.js';
import {
  attr,
  child,
  children,
  descendants,
  numAttr,
  parseXml,
  path,
  relationships,
  relsPathOf,
} from './xml.js';
import { openPackage, type OfficePackage } from './zip-package.js';

/** English Metric Units per point (914,400 per inch). */
const EMU_PER_PT = 12_700;
/** The default slide, 10 × 7.5 inches (4:3), when the presentation does not say. */
const DEFAULT_SLIDE = { cx: 9_144_000, cy: 6_858_000 };
/** Overlap (EMU, 2 pt) still counted as a gap between two bands of shapes. */
const CUT_TOLERANCE = 2 * EMU_PER_PT;

const REL_SLIDE = '/slide';
const REL_LAYOUT = '/slideLayout';
const REL_MASTER = '/slideMaster';
const REL_NOTES = '/notesSlide';

/** A rectangle in EMU on the slide. */
interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

interface Placeholder {
  type: string | undefined;
  idx: string | undefined;
}

/** A placeholder shape of a layout or master: what slide placeholders inherit. */
interface TemplateShape {
  ph: Placeholder;
  rect: Rect | undefined;
  lstStyle: Element | undefined;
}

/** A slide layout or master: its placeholders, and the master's text styles. */
interface Template {
  shapes: TemplateShape[];
  /** `titleStyle`, `bodyStyle`, `otherStyle` of a master. */
  styles: { title?: Element; body?: Element; other?: Element };
  master: Template | undefined;
}

/** One piece of slide content in Markdown. */
interface SlideItem {
  kind: 'title' | 'text' | 'table' | 'figure' | 'footer';
  rect: Rect | undefined;
  markdown: string;
  text: string;
  /** Every paragraph of the shape is a list item. */
  list?: boolean;
}

/**
 * Converts a PowerPoint presentation (pptx) to one page per slide, in presentation order (hidden
 * slides included), from the slide XML read with xmldom:
 *
 * - the **title** placeholder becomes `# title`; other text shapes become paragraphs and lists
 *   (bullets and numbering resolved through the shape, its layout and master placeholders and the
 *   master's text styles, nested by level);
 * - **tables** become GFM tables with merged cells repeated;
 * - **pictures**, charts and diagrams become `![alt text](#figure-N)` placeholders;
 * - date, footer and slide-number placeholders are kept out of the Markdown and grounded as
 *   `footer`;
 * - **speaker notes** follow the slide as a block quote headed `**Notes:**`.
 *
 * Reading order: titles first, then the other shapes by recursive XY-cut of their boxes (bands
 * top to bottom, columns left to right). Boxes are the shapes' own positions (inherited from
 * the layout or master for placeholders, group transforms applied), in points on a page of the
 * slide's size: real geometry, confidence 1. Notes have no place on the slide and no box.
 *
 * @throws {UnsupportedDocumentError} when the package has no presentation part.
 * @throws {DocumentRejectedError} see `openPackage` (zip bombs, DTDs, nesting caps), or when a
 *   slide the presentation lists is missing from the package.
 */
export async function convertPptx(bytes: Uint8Array): Promise<OfficeDocument> {
  const pkg = await openPackage(bytes, 'pptx');
  const presentationPart = mainPart(pkg, 'ppt/presentation.xml');
  const xml = pkg.text(presentationPart);
  if (xml === undefined) {
    throw new UnsupportedDocumentError(
      `the pptx package has no presentation part (${presentationPart}); it is not a PowerPoint presentation`,
    );
  }
  const presentation = parseXml(xml, presentationPart).documentElement;
  const size = child(presentation, 'sldSz');
  const slideW = numAttr(size, 'cx', DEFAULT_SLIDE.cx) || DEFAULT_SLIDE.cx;
  const slideH = numAttr(size, 'cy', DEFAULT_SLIDE.cy) || DEFAULT_SLIDE.cy;
  const rels = relationships(pkg.text(relsPathOf(presentationPart)), presentationPart);
  const slideParts = children(child(presentation, 'sldIdLst'), 'sldId')
    .map((id) => rels.get(attr(id, 'r:id') ?? ''))
    .filter((rel) => rel !== undefined && rel.type.endsWith(REL_SLIDE) && !rel.external)
    .map((rel) => rel?.target ?? '');
  const missing = slideParts.filter((part) => pkg.text(part) === undefined);
  if (missing.length > 0) {
    throw new DocumentRejectedError(
      `the pptx presentation lists ${slideParts.length} slides but ${missing.length} of them are missing from the package (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', ...' : ''}); the file is damaged`,
      { details: { format: 'pptx', missing: missing.slice(0, 20) } },
    );
  }
  const templates = new Map<string, Template>();
  const figures = { count: 0 };
  const pages = slideParts.map((part) =>
    convertSlide(pkg, part, { slideW, slideH, templates, figures }),
  );
  return { format: 'pptx', geometry: 'file', pages };
}

function mainPart(pkg: OfficePackage, fallback: string): string {
  const rels = relationships(pkg.text('_rels/.rels'), '');
  for (const rel of rels.values()) {
    if (rel.type.endsWith('/officeDocument')) return rel.target;
  }
  return fallback;
}

interface SlideContext {
  slideW: number;
  slideH: number;
  templates: Map<string, Template>;
  figures: { count: number };
}

function convertSlide(pkg: OfficePackage, part: string, context: SlideContext): OfficePage {
  const widthPt = context.slideW / EMU_PER_PT;
  const heightPt = context.slideH / EMU_PER_PT;
  const xml = pkg.text(part);
  if (xml === undefined) {
    return { widthPt, heightPt, markdown: '', elements: [], sourceText: '' };
  }
  const slide = parseXml(xml, part).documentElement;
  const rels = relationships(pkg.text(relsPathOf(part)), part);
  const layoutPart = [...rels.values()].find((r) => r.type.endsWith(REL_LAYOUT))?.target;
  const layout = layoutPart ? template(pkg, layoutPart, context.templates) : undefined;
  const spTree = path(slide, 'cSld', 'spTree');
  const items: SlideItem[] = [];
  collectShapes(spTree, identity(), { layout, figures: context.figures, items });

  const titles = items.filter((i) => i.kind === 'title');
  const footers = items.filter((i) => i.kind === 'footer');
  const body = items.filter((i) => i.kind !== 'title' && i.kind !== 'footer');
  const ordered = [...readingOrder(titles), ...readingOrder(body)];
  const blocks = ordered.map((i) => i.markdown).filter((m) => m !== '');

  const notesPart = [...rels.values()].find((r) => r.type.endsWith(REL_NOTES))?.target;
  const notes = notesPart ? notesParagraphs(pkg, notesPart) : [];
  if (notes.length > 0) {
    blocks.push(
      [
        '> **Notes:**',
        ...notes.flatMap((n) => ['>', `> ${escapeLineStart(escapeInline(n))}`]),
      ].join('\n'),
    );
  }
  const clip = (r: Rect) => toPoints(r, context.slideW, context.slideH);
  const elements: OfficeElement[] = [...ordered, ...footers]
    .filter(
      (i): i is SlideItem & { rect: Rect } =>
        i.rect !== undefined && (i.text !== '' || i.kind === 'figure'),
    )
    .flatMap((i) => {
      const box = clip(i.rect);
      return box === undefined ? [] : [{ text: i.text, box, ...labelOf(i), confidence: 1 }];
    });
  // The shapes' own text (a merged table cell's in every cell it covers, as the table shows it).
  const sourceText = [...ordered, ...footers]
    .map((i) => i.text)
    .concat(notes)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return { widthPt, heightPt, markdown: blocks.join('\n\n'), elements, sourceText };
}

function labelOf(item: SlideItem): Pick<OfficeElement, 'label' | 'elementType'> {
  switch (item.kind) {
    case 'title':
      return { label: 'paragraph', elementType: 'title' };
    case 'table':
      return { label: 'table', elementType: 'table' };
    case 'figure':
      return { label: 'figure', elementType: 'figure' };
    case 'footer':
      return { label: 'footer', elementType: 'footer' };
    case 'text':
      return item.list === true
        ? { label: 'list', elementType: 'list' }
        : { label: 'paragraph', elementType: 'paragraph' };
  }
}

/** A rectangle in points clipped to the slide, or undefined when nothing of it is on the slide. */
function toPoints(r: Rect, slideW: number, slideH: number): OfficeElement['box'] | undefined {
  const x0 = Math.max(0, r.x);
  const y0 = Math.max(0, r.y);
  const x1 = Math.min(slideW, r.x + r.w);
  const y1 = Math.min(slideH, r.y + r.h);
  if (x1 <= x0 || y1 <= y0) return undefined;
  return {
    x: x0 / EMU_PER_PT,
    y: y0 / EMU_PER_PT,
    w: (x1 - x0) / EMU_PER_PT,
    h: (y1 - y0) / EMU_PER_PT,
  };
}

// ---------------------------------------------------------------------------------------------
// Layouts and masters

function template(pkg: OfficePackage, part: string, cache: Map<string, Template>): Template {
  const cached = cache.get(part);
  if (cached) return cached;
  const empty: Template = { shapes: [], styles: {}, master: undefined };
  // Set before reading, so that a layout naming itself as its master cannot loop.
  cache.set(part, empty);
  const xml = pkg.text(part);
  if (xml === undefined) return empty;
  const root = parseXml(xml, part).documentElement;
  const rels = relationships(pkg.text(relsPathOf(part)), part);
  const masterPart = [...rels.values()].find((r) => r.type.endsWith(REL_MASTER))?.target;
  const txStyles = child(root, 'txStyles');
  const result: Template = {
    shapes: descendants(path(root, 'cSld', 'spTree'), 'sp').flatMap((sp) => {
      const ph = placeholderOf(sp);
      if (!ph) return [];
      return [{ ph, rect: rectOf(child(sp, 'spPr')), lstStyle: path(sp, 'txBody', 'lstStyle') }];
    }),
    styles: {
      title: child(txStyles, 'titleStyle'),
      body: child(txStyles, 'bodyStyle'),
      other: child(txStyles, 'otherStyle'),
    },
    master: masterPart && masterPart !== part ? template(pkg, masterPart, cache) : undefined,
  };
  cache.set(part, result);
  return result;
}

function placeholderOf(shape: Element): Placeholder | undefined {
  const nv = children(shape).find((c) => c.localName.startsWith('nv'));
  const ph = path(nv, 'nvPr', 'ph');
  if (!ph) return undefined;
  return { type: attr(ph, 'type'), idx: attr(ph, 'idx') };
}

/** Placeholder types as masters know them: centred title is a title, subtitle and object are body. */
function masterType(type: string | undefined): string {
  if (type === 'ctrTitle') return 'title';
  if (type === undefined || type === 'subTitle' || type === 'obj') return 'body';
  return type;
}

const isTitle = (ph: Placeholder | undefined): boolean =>
  ph?.type === 'title' || ph?.type === 'ctrTitle';
const isFurniture = (ph: Placeholder | undefined): boolean =>
  ph?.type === 'dt' || ph?.type === 'ftr' || ph?.type === 'sldNum' || ph?.type === 'hdr';

/** The layout placeholder a slide placeholder inherits from (by index, else by type), and the master's (by type). */
function inherited(ph: Placeholder, layout: Template | undefined): TemplateShape[] {
  const chain: TemplateShape[] = [];
  const inLayout =
    (ph.idx !== undefined ? layout?.shapes.find((s) => s.ph.idx === ph.idx) : undefined) ??
    layout?.shapes.find((s) => masterType(s.ph.type) === masterType(ph.type));
  if (inLayout) chain.push(inLayout);
  const type = masterType(inLayout?.ph.type ?? ph.type);
  const inMaster = layout?.master?.shapes.find((s) => masterType(s.ph.type) === type);
  if (inMaster) chain.push(inMaster);
  return chain;
}

// ---------------------------------------------------------------------------------------------
// Shapes

/** Maps child coordinates of a group to slide coordinates. */
interface Transform {
  apply(r: Rect): Rect;
}

const identity = (): Transform => ({ apply: (r) => r });

function groupTransform(grpSpPr: Element | undefined, outer: Transform): Transform {
  const xfrm = child(grpSpPr, 'xfrm');
  if (!xfrm) return outer;
  const off = child(xfrm, 'off');
  const ext = child(xfrm, 'ext');
  const chOff = child(xfrm, 'chOff');
  const chExt = child(xfrm, 'chExt');
  const sx = numAttr(chExt, 'cx') > 0 ? numAttr(ext, 'cx') / numAttr(chExt, 'cx') : 1;
  const sy = numAttr(chExt, 'cy') > 0 ? numAttr(ext, 'cy') / numAttr(chExt, 'cy') : 1;
  return {
    apply: (r) =>
      outer.apply({
        x: numAttr(off, 'x') + (r.x - numAttr(chOff, 'x')) * sx,
        y: numAttr(off, 'y') + (r.y - numAttr(chOff, 'y')) * sy,
        w: r.w * sx,
        h: r.h * sy,
      }),
  };
}

function rectOf(container: Element | undefined): Rect | undefined {
  const xfrm = child(container, 'xfrm');
  const off = child(xfrm, 'off');
  const ext = child(xfrm, 'ext');
  if (!off || !ext) return undefined;
  return {
    x: numAttr(off, 'x'),
    y: numAttr(off, 'y'),
    w: Math.max(0, numAttr(ext, 'cx')),
    h: Math.max(0, numAttr(ext, 'cy')),
  };
}

interface CollectContext {
  layout: Template | undefined;
  figures: { count: number };
  items: SlideItem[];
}

function collectShapes(tree: Element | undefined, transform: Transform, context: CollectContext) {
  for (const shape of children(tree)) {
    if (isHidden(shape)) continue;
    switch (shape.localName) {
      case 'sp':
        textShape(shape, transform, context);
        break;
      case 'grpSp':
        collectShapes(shape, groupTransform(child(shape, 'grpSpPr'), transform), context);
        break;
      case 'graphicFrame':
        graphicFrame(shape, transform, context);
        break;
      case 'pic':
        context.items.push(figure(shape, rectOf(child(shape, 'spPr')), transform, context));
        break;
      case 'AlternateContent': {
        const branch = child(shape, 'Fallback') ?? child(shape, 'Choice');
        collectShapes(branch, transform, context);
        break;
      }
      default:
        break;
    }
  }
}

function isHidden(shape: Element): boolean {
  const nv = children(shape).find((c) => c.localName.startsWith('nv'));
  const hidden = attr(child(nv, 'cNvPr'), 'hidden');
  return hidden === '1' || hidden === 'true';
}

function textShape(sp: Element, transform: Transform, context: CollectContext) {
  const ph = placeholderOf(sp);
  const chain = ph ? inherited(ph, context.layout) : [];
  const own = rectOf(child(sp, 'spPr'));
  const base = own ?? chain.find((s) => s.rect !== undefined)?.rect;
  const rect = base && transform.apply(base);
  const txBody = child(sp, 'txBody');
  if (!txBody) return;
  const master = context.layout?.master;
  const textStyle = !ph
    ? master?.styles.other
    : isTitle(ph)
      ? master?.styles.title
      : isFurniture(ph)
        ? master?.styles.other
        : master?.styles.body;
  const styles = [child(txBody, 'lstStyle'), ...chain.map((s) => s.lstStyle), textStyle].filter(
    (s): s is Element => s !== undefined,
  );
  const paragraphs = children(txBody, 'p');
  if (isTitle(ph)) {
    const text = paragraphs
      .map(paragraphText)
      .filter((t) => t.trim() !== '')
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();
    if (text === '') return;
    context.items.push({ kind: 'title', rect, markdown: `# ${escapeInline(text)}`, text });
    return;
  }
  const rendered = renderParagraphs(paragraphs, styles);
  if (rendered.text === '') return;
  context.items.push({
    kind: isFurniture(ph) ? 'footer' : 'text',
    rect,
    markdown: isFurniture(ph) ? '' : rendered.markdown,
    text: rendered.text,
    list: rendered.list,
  });
}

function graphicFrame(frame: Element, transform: Transform, context: CollectContext) {
  const rect = rectOf(frame);
  const data = path(frame, 'graphic', 'graphicData');
  const table = child(data, 'tbl');
  if (table) {
    const grid = tableGrid(table);
    if (grid.length === 0) return;
    context.items.push({
      kind: 'table',
      rect: rect && transform.apply(rect),
      markdown: gfmTable(
        grid.map((row) => row.map((cell) => escapeInline(cell).replace(/\n/g, '<br>'))),
      ),
      text: grid
        .flat()
        .filter((c) => c !== '')
        .join(' '),
    });
    return;
  }
  // Charts, diagrams (SmartArt) and embedded objects: a figure in their frame.
  context.items.push(figure(frame, rect, transform, context));
}

function figure(
  shape: Element,
  rect: Rect | undefined,
  transform: Transform,
  context: CollectContext,
): SlideItem {
  const nv = children(shape).find((c) => c.localName.startsWith('nv'));
  const alt = (attr(child(nv, 'cNvPr'), 'descr') ?? '')
    .replace(/\s*Description automatically generated.*$/i, '')
    .replace(/\s+/g, ' ')
    .trim();
  context.figures.count++;
  return {
    kind: 'figure',
    rect: rect && transform.apply(rect),
    markdown: `![${alt.replace(/[[\]]/g, '\\$&')}](#figure-${String(context.figures.count)})`,
    text: alt,
  };
}

/**
 * A table's cells as a grid of plain text: each cell's paragraphs on their own lines; a cell merged into the one
 * to its left (`hMerge`) or above (`vMerge`) repeats that cell's text.
 */
function tableGrid(table: Element): string[][] {
  const grid: string[][] = [];
  children(table, 'tr').forEach((tr, r) => {
    const row: string[] = [];
    children(tr, 'tc').forEach((tc, c) => {
      if (attr(tc, 'hMerge') === '1' || attr(tc, 'hMerge') === 'true') {
        row.push(row[c - 1] ?? '');
      } else if (attr(tc, 'vMerge') === '1' || attr(tc, 'vMerge') === 'true') {
        row.push(grid[r - 1]?.[c] ?? '');
      } else {
        row.push(
          children(child(tc, 'txBody'), 'p')
            .map((p) => paragraphText(p).replace(/\s+/g, ' ').trim())
            .filter((t) => t !== '')
            .join('\n'),
        );
      }
    });
    grid.push(row);
  });
  return grid;
}

// ---------------------------------------------------------------------------------------------
// Text

/** The text of a paragraph: runs and fields in order, line breaks as spaces. */
function paragraphText(p: Element): string {
  let text = '';
  for (const c of children(p)) {
    if (c.localName === 'r' || c.localName === 'fld') text += child(c, 't')?.textContent ?? '';
    else if (c.localName === 'br') text += ' ';
  }
  return text;
}

type Bullet = { kind: 'none' } | { kind: 'bullet' } | { kind: 'number'; startAt: number };

/**
 * The bullet of a paragraph at `level` (0-based): its own properties first, then the level's
 * properties in each list style of the inheritance chain (shape, layout, master placeholder,
 * master text style). No bullet when nothing says.
 */
function bulletOf(pPr: Element | undefined, level: number, styles: readonly Element[]): Bullet {
  const own = bulletIn(pPr);
  if (own) return own;
  for (const style of styles) {
    const found = bulletIn(child(style, `lvl${String(level + 1)}pPr`));
    if (found) return found;
  }
  return { kind: 'none' };
}

function bulletIn(properties: Element | undefined): Bullet | undefined {
  for (const c of children(properties)) {
    if (c.localName === 'buNone') return { kind: 'none' };
    if (c.localName === 'buChar' || c.localName === 'buBlip') return { kind: 'bullet' };
    if (c.localName === 'buAutoNum') {
      return { kind: 'number', startAt: Math.max(1, numAttr(c, 'startAt', 1)) };
    }
  }
  return undefined;
}

/**
 * A text body's paragraphs as Markdown: bulleted paragraphs as list items (`- `, or `N. ` for
 * automatic numbering, counted per level), nested by level under their parent's text; other
 * paragraphs as paragraphs. Empty paragraphs end a list.
 */
function renderParagraphs(
  paragraphs: readonly Element[],
  styles: readonly Element[],
): { markdown: string; text: string; list: boolean } {
  const blocks: string[] = [];
  let items = 0;
  const texts: string[] = [];
  let list: string[] = [];
  let counters: number[] = [];
  let indents: number[] = [];
  const endList = () => {
    if (list.length > 0) blocks.push(list.join('\n'));
    list = [];
    counters = [];
    indents = [];
  };
  for (const p of paragraphs) {
    const text = paragraphText(p).replace(/\s+/g, ' ').trim();
    if (text === '') {
      endList();
      continue;
    }
    texts.push(text);
    const pPr = child(p, 'pPr');
    const level = Math.min(8, Math.max(0, numAttr(pPr, 'lvl')));
    const bullet = bulletOf(pPr, level, styles);
    if (bullet.kind === 'none') {
      endList();
      blocks.push(escapeLineStart(escapeInline(text)));
      continue;
    }
    // The deepest level so far may be deeper than this item: forget what is below it.
    const depth = Math.min(level, counters.length);
    counters = counters.slice(0, depth + 1);
    indents = indents.slice(0, depth + 1);
    let marker = '-';
    if (bullet.kind === 'number') {
      // A numbered item continues the numbering of the item before it at its level, if numbered.
      const previous = counters[depth] ?? -1;
      const n = previous < 0 ? bullet.startAt : previous + 1;
      counters[depth] = n;
      marker = `${String(n)}.`;
    } else {
      counters[depth] = -1;
    }
    const indent = indents.slice(0, depth).reduce((sum, w) => sum + w, 0);
    indents[depth] = marker.length + 1;
    list.push(`${' '.repeat(indent)}${marker} ${escapeLineStart(escapeInline(text))}`);
    items++;
  }
  endList();
  return {
    markdown: blocks.join('\n\n'),
    text: texts.join(' '),
    list: items > 0 && items === texts.length,
  };
}

/** Speaker notes: the paragraphs of the notes slide's body placeholder. */
function notesParagraphs(pkg: OfficePackage, part: string): string[] {
  const xml = pkg.text(part);
  if (xml === undefined) return [];
  const root = parseXml(xml, part).documentElement;
  const bodies = descendants(path(root, 'cSld', 'spTree'), 'sp').filter(
    (sp) => placeholderOf(sp)?.type === 'body',
  );
  return bodies
    .flatMap((sp) => children(child(sp, 'txBody'), 'p'))
    .map((p) => paragraphText(p).replace(/\s+/g, ' ').trim())
    .filter((t) => t !== '');
}

/** Inline Markdown syntax in plain text escaped: emphasis markers, brackets, pipes, backticks. */
function escapeInline(text: string): string {
  return text.replace(/([\\`*_[\]<>|])/g, '\\$1');
}

/** Text that would start a block construct (`#`, `-`, `1.`, `>`, `+`) escaped at the line start. */
function escapeLineStart(text: string): string {
  return text.replace(/^(#{1,6}\s|[-+]\s|(\d+)([.)])\s|>)/, (m, _all, digits?: string) =>
    digits === undefined ? `\\${m}` : m.replace(/[.)]/, '\\$&'),
  );
}

// ---------------------------------------------------------------------------------------------
// Reading order

/**
 * Recursive XY-cut over the items' boxes: split into horizontal bands where no box spans the gap
 * (top to bottom), else into columns (left to right), recursing into each; a group that cannot be
 * cut is read by top, then left. Items without a box follow in slide order.
 */
function readingOrder(items: readonly SlideItem[]): SlideItem[] {
  const placed = items.filter((i): i is SlideItem & { rect: Rect } => i.rect !== undefined);
  return [...xyCut(placed), ...items.filter((i) => i.rect === undefined)];
}

function xyCut<T extends { rect: Rect }>(items: readonly T[]): T[] {
  if (items.length <= 1) return [...items];
  const bands = splitAlong(items, (r) => [r.y, r.y + r.h]);
  if (bands.length > 1) return bands.flatMap((band) => xyCut(band));
  const columns = splitAlong(items, (r) => [r.x, r.x + r.w]);
  if (columns.length > 1) return columns.flatMap((column) => xyCut(column));
  return [...items].sort((a, b) => a.rect.y - b.rect.y || a.rect.x - b.rect.x);
}

function splitAlong<T extends { rect: Rect }>(
  items: readonly T[],
  extent: (r: Rect) => [number, number],
): T[][] {
  const sorted = [...items].sort((a, b) => extent(a.rect)[0] - extent(b.rect)[0]);
  const groups: T[][] = [];
  let end = -Infinity;
  for (const item of sorted) {
    const [start, stop] = extent(item.rect);
    if (groups.length === 0 || start > end - CUT_TOLERANCE) groups.push([]);
    groups.at(-1)?.push(item);
    end = Math.max(end, stop);
  }
  return groups;
}
