import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import mammoth from 'mammoth';
import { UnsupportedDocumentError } from '../../core/domain/errors.js';
import { flowLayout, markdownBlocks, type FlowPage } from './flow-layout.js';
import { spannedText } from './gfm-table.js';
import { htmlToMarkdown, PAGE_BREAK, splitPages } from './html-markdown.js';
import type { OfficeDocument, OfficePage } from './office-document.js';
import {
  cutBlocks,
  cutEvidence,
  MAX_FLOW_PAGE_CHARS,
  MAX_PAGE_CHARS,
  withoutEmptyPages,
} from './pages.js';
import { openPackage, type OfficePackage } from './zip-package.js';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/**
 * Converts a Word document (docx) to pages of Markdown with mammoth (docx → HTML, from the
 * document's own styles and numbering) and turndown (HTML → Markdown):
 *
 * - **headings**: `Heading 1`-`6` → `#`-`######`; when the document uses the `Title` style, the
 *   title is `#` and headings move one level down (`Heading 1` → `##`);
 * - **lists**: bulleted and numbered lists from Word numbering, nested by level;
 * - **tables**: GFM, spans repeated (see `htmlToMarkdown`);
 * - **images**: `![alt text](#figure-N)` placeholders (Word's automatic "Description
 *   automatically generated" suffix removed); the image bytes are not read;
 * - **pages**: a new page at every explicit page break (`<w:br w:type="page"/>`), at paragraphs
 *   set to start a page (`w:pageBreakBefore`) and after a section whose successor starts on a new
 *   page (`nextPage`, `oddPage`, `evenPage`), and where Word's own layout last started a page
 *   (`w:lastRenderedPageBreak`, written by Word when it saves; the paragraph it falls in goes to
 *   the new page whole; markers inside tables and text boxes are ignored). Files written by
 *   other tools often carry no such markers: their text flowing onto the next sheet stays on one
 *   page, until it has {@link MAX_FLOW_PAGE_CHARS} characters: the next paragraph of the body
 *   then starts a new page; a paragraph or table longer than {@link MAX_PAGE_CHARS} is cut
 *   inside (`cutBlocks`). Empty pages are left out.
 *
 * Element boxes come from the flow layout on the page size and margins of the document's last
 * section (`w:pgSz`, `w:pgMar`); Letter when absent.
 *
 * @throws {UnsupportedDocumentError} when the package has no main document part or mammoth
 *   cannot read it.
 * @throws {DocumentRejectedError} see `openPackage` (zip bombs, encryption, DTDs).
 */
export async function convertDocx(bytes: Uint8Array): Promise<OfficeDocument> {
  const pkg = await openPackage(bytes, 'docx');
  const mainPart = mainDocumentPart(pkg);
  const xml = pkg.text(mainPart);
  if (xml === undefined) {
    throw new UnsupportedDocumentError(
      `the docx package has no main document part (${mainPart}); it is not a Word document`,
    );
  }
  const prepared = withExplicitBreaks(xml);
  const zip = pkg.storedZip(prepared === null ? undefined : new Map([[mainPart, prepared]]));
  const usesTitle = /<w:pStyle w:val="Title"\s*\/>/.test(xml);
  const sourcePages: string[][] = [[]];
  let figures = 0;
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength) },
      {
        styleMap: styleMap(usesTitle),
        ignoreEmptyParagraphs: true,
        externalFileAccess: false,
        convertImage: mammoth.images.imgElement(() =>
          Promise.resolve({ src: `#figure-${String(++figures)}` }),
        ),
        transformDocument: (document: unknown) =>
          markPageBreaks(breakLongPages(document as MammothElement), sourcePages),
      },
    );
    html = result.value;
  } catch (error) {
    throw new UnsupportedDocumentError(
      `the docx document cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const page = pageGeometry(prepared ?? xml);
  const split = splitPages(htmlToMarkdown(html, { figures: { count: figures } }));
  const pages = split.flatMap((whole, i): OfficePage[] => {
    const evidence = (sourcePages[i] ?? []).join('').replace(/\s+/g, ' ').trim();
    // One paragraph or table longer than a page can hold is cut inside it.
    const pieces = whole.length > MAX_PAGE_CHARS ? cutBlocks(whole) : [whole];
    const evidences = pieces.length > 1 ? cutEvidence(evidence, pieces) : [evidence];
    return pieces.map((markdown, k) => ({
      widthPt: page.widthPt,
      heightPt: page.heightPt,
      markdown,
      elements: flowLayout(markdownBlocks(markdown), page),
      sourceText: evidences[k] ?? '',
    }));
  });
  return { format: 'docx', geometry: 'flow', pages: withoutEmptyPages(pages) };
}

/** The main document part named by the package relationships (`word/document.xml` usually). */
function mainDocumentPart(pkg: OfficePackage): string {
  const rels = pkg.text('_rels/.rels') ?? '';
  const target = /<Relationship\b[^>]*Type="[^"]*\/officeDocument"[^>]*>/.exec(rels)?.[0];
  const path = target && /Target="([^"]+)"/.exec(target)?.[1];
  return path ? path.replace(/^\//, '') : 'word/document.xml';
}

function styleMap(usesTitle: boolean): string[] {
  const shift = usesTitle ? 1 : 0;
  const headings = [1, 2, 3, 4, 5, 6].flatMap((n) => {
    const level = Math.min(6, n + shift);
    return [
      `p.Heading${String(n)} => h${String(level)}:fresh`,
      `p[style-name='heading ${String(n)}'] => h${String(level)}:fresh`,
    ];
  });
  return [
    "p[style-name='Title'] => h1:fresh",
    'p.Title => h1:fresh',
    ...headings,
    "p[style-name='Quote'] => blockquote > p:fresh",
    "p[style-name='Intense Quote'] => blockquote > p:fresh",
  ];
}

/** The parts of mammoth's document model this module reads. */
interface MammothElement {
  type: string;
  children?: MammothElement[];
  value?: string;
  breakType?: string;
  colSpan?: number;
  rowSpan?: number;
}

/**
 * The document with a page break before each body paragraph that follows
 * {@link MAX_FLOW_PAGE_CHARS} characters of text since the last page break (a table is not
 * cut).
 */
function breakLongPages(document: MammothElement): MammothElement {
  if (document.children === undefined) return document;
  const state = { chars: 0 };
  const children = document.children.map((child) => {
    const block =
      state.chars >= MAX_FLOW_PAGE_CHARS && child.type === 'paragraph'
        ? { ...child, children: [{ type: 'break', breakType: 'page' }, ...(child.children ?? [])] }
        : child;
    countSincePageBreak(block, state);
    return block;
  });
  return { ...document, children };
}

/** Adds the characters of text in `element` to `state.chars`, back to 0 at each page break. */
function countSincePageBreak(element: MammothElement, state: { chars: number }): void {
  if (element.type === 'break' && element.breakType === 'page') state.chars = 0;
  else if (element.type === 'text') state.chars += element.value?.length ?? 0;
  for (const child of element.children ?? []) countSincePageBreak(child, state);
}

/**
 * Replaces page breaks in mammoth's document model with {@link PAGE_BREAK} text, and collects the
 * text of each page straight from the model's runs (the verification evidence); a table's text
 * is collected cell by cell, a merged cell's in every grid cell it covers (as the tables show
 * it).
 */
function markPageBreaks(
  element: MammothElement,
  pages: string[][],
  collect = true,
): MammothElement {
  if (element.type === 'break' && element.breakType === 'page') {
    pages.push([]);
    return { type: 'text', value: PAGE_BREAK };
  }
  if (collect && element.type === 'text' && element.value !== undefined) {
    pages.at(-1)?.push(element.value);
  }
  if (element.children === undefined) return element;
  const table = collect && element.type === 'table';
  if (table) pages.at(-1)?.push(' ', tableText(element), ' ');
  const children = element.children.map((c) => markPageBreaks(c, pages, collect && !table));
  if (collect && element.type === 'paragraph') pages.at(-1)?.push(' ');
  return { ...element, children };
}

/** A table's text, row by row, a spanning cell's text as its tables show it (`spannedText`). */
function tableText(table: MammothElement): string {
  const grid: (string | undefined)[][] = [];
  const rows = (table.children ?? []).filter((r) => r.type === 'tableRow');
  rows.forEach((row, r) => {
    let c = 0;
    for (const cell of (row.children ?? []).filter((x) => x.type === 'tableCell')) {
      const current = (grid[r] ??= []);
      while (current[c] !== undefined) c++;
      const text = textOf(cell);
      const rowSpan = Math.max(1, Math.min(cell.rowSpan ?? 1, rows.length - r));
      const colSpan = Math.max(1, Math.min(cell.colSpan ?? 1, 1000));
      for (let dr = 0; dr < rowSpan; dr++) {
        const target = (grid[r + dr] ??= []);
        for (let dc = 0; dc < colSpan; dc++) {
          target[c + dc] = spannedText(text, rowSpan, colSpan, dr, dc);
        }
      }
      c += colSpan;
    }
  });
  return grid.map((row) => Array.from(row, (t) => t ?? '').join(' ')).join(' ');
}

function textOf(element: MammothElement): string {
  if (element.type === 'text') return element.value ?? '';
  const inner = (element.children ?? []).map(textOf).join('');
  return element.type === 'paragraph' ? `${inner} ` : inner;
}

const DTD_FREE_PARSER = () =>
  new DOMParser({
    errorHandler: {
      warning: () => undefined,
      error: (message: string) => {
        throw new Error(message);
      },
      fatalError: (message: string) => {
        throw new Error(message);
      },
    },
  });

/**
 * The document part with explicit page breaks added where Word starts a page without one:
 * before a paragraph with `w:pageBreakBefore`, and after the last paragraph of a section when the
 * next section starts on a new page (its `w:type` is absent, `nextPage`, `oddPage` or
 * `evenPage`). Null when there is nothing to add (one section, no `pageBreakBefore`), or when the
 * part is not well-formed XML (mammoth then reports the damage).
 */
export function withExplicitBreaks(xml: string): string | null {
  const sections = (xml.match(/<w:sectPr\b/g) ?? []).length;
  if (sections < 2 && !/<w:(pageBreakBefore|lastRenderedPageBreak)\b/.test(xml)) return null;
  let doc: Document;
  try {
    doc = DTD_FREE_PARSER().parseFromString(xml, 'text/xml');
  } catch {
    return null;
  }
  const pageBreakRun = () => {
    const run = doc.createElementNS(W, 'w:r');
    const br = doc.createElementNS(W, 'w:br');
    br.setAttributeNS(W, 'w:type', 'page');
    run.appendChild(br);
    return run;
  };
  const sectPrs = Array.from(doc.getElementsByTagNameNS(W, 'sectPr'));
  sectPrs.forEach((sectPr, k) => {
    const pPr = sectPr.parentNode as Element | null;
    const paragraph = pPr?.parentNode as Element | null;
    if (pPr?.localName !== 'pPr' || paragraph?.localName !== 'p') return;
    const next = sectPrs[k + 1];
    const type = next ? childOf(next, 'type')?.getAttributeNS(W, 'val') : null;
    if (type === 'continuous' || type === 'nextColumn') return;
    paragraph.appendChild(pageBreakRun());
  });
  for (const flag of Array.from(doc.getElementsByTagNameNS(W, 'pageBreakBefore'))) {
    const value = flag.getAttributeNS(W, 'val');
    if (value === 'false' || value === '0' || value === 'off') continue;
    const pPr = flag.parentNode as Element | null;
    const paragraph = pPr?.parentNode as Element | null;
    if (pPr?.localName !== 'pPr' || paragraph?.localName !== 'p') continue;
    paragraph.insertBefore(pageBreakRun(), pPr.nextSibling);
  }
  // Where Word's own layout last started a new page: the paragraph goes to that page whole (a
  // Markdown paragraph is not cut), tables and text boxes keep their content together.
  const rendered = new Set<Element>();
  for (const marker of Array.from(doc.getElementsByTagNameNS(W, 'lastRenderedPageBreak'))) {
    const paragraph = enclosing(marker, 'p');
    if (!paragraph || enclosing(marker, 'tbl') || enclosing(marker, 'txbxContent')) continue;
    if (rendered.has(paragraph)) continue;
    rendered.add(paragraph);
    const pPr = childOf(paragraph, 'pPr');
    paragraph.insertBefore(pageBreakRun(), pPr ? pPr.nextSibling : paragraph.firstChild);
  }
  return new XMLSerializer().serializeToString(doc);
}

/** The nearest ancestor of `node` in the WordprocessingML namespace named `localName`. */
function enclosing(node: Node, localName: string): Element | undefined {
  for (let n = node.parentNode; n; n = n.parentNode) {
    const element = n as Element;
    if (n.nodeType === 1 && element.localName === localName && element.namespaceURI === W) {
      return element;
    }
  }
  return undefined;
}

function childOf(element: Element, localName: string): Element | undefined {
  return Array.from(element.childNodes).find(
    (n): n is Element => n.nodeType === 1 && (n as Element).localName === localName,
  );
}

/** Page size and margins of the last section (`w:pgSz`, `w:pgMar` in twips); Letter otherwise. */
function pageGeometry(xml: string): FlowPage {
  const tail = xml.slice(xml.lastIndexOf('<w:sectPr'));
  const twips = (tag: string, attr: string, fallback: number) => {
    const element = new RegExp(`<w:${tag}\\b[^>]*>`).exec(tail)?.[0] ?? '';
    const value = Number(new RegExp(`w:${attr}="(-?\\d+)"`).exec(element)?.[1]);
    return Number.isFinite(value) && value > 0 ? value / 20 : fallback;
  };
  const widthPt = Math.min(twips('pgSz', 'w', 612), 1584 * 2);
  const heightPt = Math.min(twips('pgSz', 'h', 792), 1584 * 2);
  const margin = (attr: string) => Math.min(twips('pgMar', attr, 72), widthPt / 4, heightPt / 4);
  return {
    widthPt,
    heightPt,
    margins: {
      top: margin('top'),
      right: margin('right'),
      bottom: margin('bottom'),
      left: margin('left'),
    },
  };
}
