import type { Format } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { decodeHTML } from 'entities';
import { distance } from 'fastest-levenshtein';
import type {
  ExtractionPage,
  JsonSchemaObject,
  StructuredExtractionRequest,
  StructuredExtractionResult,
  StructuredExtractor,
} from '../../ports/structured-extractor.js';
import { safeRegExp, type SafeRegExp, UnsupportedPatternError } from './safe-regex.js';

/**
 * The offline extractor of the embedded default: fills an `extraction_schema` from the Markdown of
 * the parsed pages, without a model. No token is spent.
 */
export class OfflineExtractor implements StructuredExtractor {
  readonly id = 'local-extract';
  readonly model = 'docparse-extract-1';
  readonly #sliceMs: number;

  /**
   * @param options.sliceMs longest the extractor works before it lets other callbacks of the
   *   event loop run (it goes on in a later turn).
   *   @default 10
   */
  constructor(options: { sliceMs?: number } = {}) {
    this.#sliceMs = options.sliceMs ?? 10;
  }

  async extract(request: StructuredExtractionRequest): Promise<StructuredExtractionResult> {
    const steps = fillSchemaSteps(request.schema, request.pages);
    let sliceStart = performance.now();
    for (;;) {
      const step = steps.next();
      if (step.done === true) {
        return { data: step.value, model: this.model, tokens: { input: 0, output: 0 } };
      }
      if (performance.now() - sliceStart >= this.#sliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
  }
}

/**
 * Fills `schema` (an object schema) from the pages' Markdown.
 *
 * 1. The Markdown becomes candidate facts: labelled values (`**Label:** value`, `Label: value`,
 *    `**Label** value`, several per line), key/value table rows, tables, checkboxes, lists, and
 *    the sections opened by headings (and by bold or colon-terminated lines standing alone).
 * 2. Each schema property is matched to labels by its normalised name, `title` and a short
 *    `description` (token overlap with synonyms, and edit distance against OCR slips).
 * 3. The best candidate whose value converts to the property's type and format wins, one within
 *    the schema's numeric bounds first; a value outside them is still given (validation reports
 *    it), and table rows are never dropped for a cell out of bounds. A value of the wrong format
 *    is never given (formats as validation checks them), and a string property named as a date
 *    takes no amount; a column whose cells do not convert is not matched to the property.
 *    Nothing found means the property is left out: no value is invented, defaults are not
 *    filled, and `null` is only given for an explicit "N/A" where the schema allows null.
 * 4. Nested objects are searched within the section whose heading matches them; arrays of
 *    objects come from the best matching table, arrays of scalars from a list or a column.
 *
 * @example
 * fillSchema(
 *   { type: 'object', properties: { invoiceNumber: { type: 'string' }, total: { type: 'number' } } },
 *   [{ pageNumber: 1, markdown: '**Invoice No.:** A-17\n\nTotal due: $1,250.00' }],
 * ); // { invoiceNumber: 'A-17', total: 1250 }
 */
export function fillSchema(
  schema: JsonSchemaObject,
  pages: readonly ExtractionPage[],
): Record<string, unknown> {
  const steps = fillSchemaSteps(schema, pages);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * {@link fillSchema} in steps: the generator pauses after each property and every
 * {@link FACTS_PER_STEP} labelled values searched, so that a caller can let other work run
 * between steps (a large schema against a long document is seconds of work). Returns the filled
 * object once done. Exported for tests.
 */
export function* fillSchemaSteps(
  schema: JsonSchemaObject,
  pages: readonly ExtractionPage[],
): Generator<void, Record<string, unknown>, void> {
  const doc = parseDocument(pages);
  yield;
  const context: FillContext = { root: schema, doc, depth: 0 };
  const whole: Scope = { start: 0, end: doc.lines.length, section: null, prefix: [] };
  return (yield* fillObject(resolveSchema(schema, schema), whole, context)) ?? {};
}

/**
 * How many properties {@link fillSchema} searches the document for with `schema`: each property
 * of each object, nested objects (to {@link MAX_DEPTH} levels) and objects inside arrays included,
 * counted once per place where a `$ref`, `allOf`, `anyOf` or `oneOf` brings it in. Counting stops
 * past `limit`, so the count itself is bounded. The extractor's work is this count times the size
 * of the document.
 *
 * @example
 * countSearchedProperties({ type: 'object', properties: { a: { type: 'string' } } }, 500); // 1
 */
export function countSearchedProperties(schema: JsonSchemaObject, limit: number): number {
  let count = 0;
  const visit = (shape: Shape, depth: number): void => {
    for (const raw of Object.values(asJson(shape.node.properties))) {
      if (++count > limit) return;
      const property = resolveSchema(raw, schema);
      const [kind] = property.types;
      if (kind === 'object' && depth < MAX_DEPTH) visit(property, depth + 1);
      if (kind === 'array') {
        const items = resolveSchema(property.node.items, schema);
        if (items.types[0] === 'object') visit(items, MAX_DEPTH);
      }
      if (count > limit) return;
    }
  };
  visit(resolveSchema(schema, schema), 0);
  return count;
}

/** How many labelled values (or lines) a property's search goes through between two steps. */
const FACTS_PER_STEP = 256;

type Steps<T> = Generator<void, T, void>;

// ---------------------------------------------------------------------------------------------
// Schema access

type Json = Record<string, unknown>;

/** A schema node with `$ref`, `allOf` and nullable `anyOf`/`oneOf` folded in. */
interface Shape {
  node: Json;
  /** Declared (or implied) JSON types, `null` excluded. */
  types: string[];
  nullable: boolean;
  /**
   * A string property without `format` whose name says it holds a date (`date`, `ship_date`):
   * it takes no value that reads as an amount (see {@link datedByName}).
   */
  dateByName?: boolean;
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const MAX_REF_HOPS = 16;

/** Follows a local `$ref` (`#`, `#/$defs/x`, `#/definitions/x`) from the root schema. */
function followRef(ref: string, root: Json): Json | undefined {
  if (!ref.startsWith('#')) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  let node: unknown = root;
  for (const token of path.split('/').slice(1)) {
    if (!isObject(node)) return undefined;
    node = node[token.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return isObject(node) ? node : undefined;
}

/** Shapes already resolved, by schema node, for each root schema. */
const resolvedShapes = new WeakMap<Json, WeakMap<Json, Shape>>();

/**
 * The shape of schema node `input`, its local `$ref`s resolved against `root`.
 *
 * Each node is resolved once per root (the shape is remembered), so a schema whose `allOf` or
 * `anyOf` branches point to the same definitions again and again costs time linear in its size,
 * not exponential in its depth. A node met again while it is being resolved (a `$ref` cycle
 * through `allOf`/`anyOf`/`oneOf`) counts as empty there.
 */
function resolveSchema(input: unknown, root: Json): Shape {
  let memo = resolvedShapes.get(root);
  if (!memo) {
    memo = new WeakMap();
    resolvedShapes.set(root, memo);
  }
  return resolveNode(input, root, memo, new Set());
}

function resolveNode(
  input: unknown,
  root: Json,
  memo: WeakMap<Json, Shape>,
  active: Set<Json>,
): Shape {
  if (!isObject(input)) return shapeOf({}, false);
  const known = memo.get(input);
  if (known) return known;
  if (active.has(input)) return { node: {}, types: [], nullable: false };
  active.add(input);
  let node: Json = input;
  for (let hop = 0; typeof node.$ref === 'string' && hop < MAX_REF_HOPS; hop++) {
    node = { ...(followRef(node.$ref, root) ?? {}), ...without(node, '$ref') };
  }
  let nullable = false;
  if (Array.isArray(node.allOf)) {
    const parts = node.allOf.map((part) => resolveNode(part, root, memo, active).node);
    node = parts.reduce<Json>(
      (merged, part) =>
        isObject(merged.properties) && isObject(part.properties)
          ? { ...merged, ...part, properties: { ...merged.properties, ...part.properties } }
          : { ...merged, ...part, properties: merged.properties ?? part.properties },
      without(node, 'allOf'),
    );
  }
  const branches = Array.isArray(node.anyOf) ? node.anyOf : node.oneOf;
  if (Array.isArray(branches)) {
    const shapes = branches.map((branch) => resolveNode(branch, root, memo, active));
    nullable = shapes.some((shape) => shape.nullable || isNullOnly(shape.node));
    const chosen = shapes.find((shape) => !isNullOnly(shape.node));
    if (chosen) {
      node = { ...chosen.node, ...without(node, 'anyOf', 'oneOf') };
      nullable ||= chosen.nullable;
    }
  }
  active.delete(input);
  const shape = shapeOf(node, nullable);
  memo.set(input, shape);
  return shape;
}

function shapeOf(node: Json, nullable: boolean): Shape {
  const declared = Array.isArray(node.type)
    ? node.type.filter((type): type is string => typeof type === 'string')
    : typeof node.type === 'string'
      ? [node.type]
      : impliedTypes(node);
  const isNullable =
    nullable || declared.includes('null') || (Array.isArray(node.enum) && node.enum.includes(null));
  return { node, types: declared.filter((type) => type !== 'null'), nullable: isNullable };
}

const asJson = (value: unknown): Json => (isObject(value) ? value : {});

const without = (node: Json, ...keys: string[]): Json =>
  Object.fromEntries(Object.entries(node).filter(([key]) => !keys.includes(key)));

const isNullOnly = (node: Json): boolean =>
  node.type === 'null' || (Array.isArray(node.enum) && node.enum.every((v) => v === null));

function impliedTypes(node: Json): string[] {
  if (isObject(node.properties)) return ['object'];
  if (node.items !== undefined || node.prefixItems !== undefined) return ['array'];
  const sample =
    node.const !== undefined ? [node.const] : Array.isArray(node.enum) ? node.enum : [];
  const types = new Set(sample.filter((v) => v !== null).map((v) => typeof v));
  return types.size > 0 ? [...types] : ['string'];
}

// ---------------------------------------------------------------------------------------------
// Markdown → document model

interface DocLine {
  index: number;
  page: number;
  raw: string;
  /** Plain text: list markers, emphasis, links and tags removed. */
  text: string;
  kind: 'blank' | 'heading' | 'rule' | 'table' | 'list' | 'text';
  /** Paragraph number: consecutive non-blank lines share it. */
  block: number;
}

interface Section {
  title: string;
  tokens: string[];
  /** 1-6 for headings, 7 for a bold or colon-terminated line standing alone. */
  level: number;
  /** A colon-terminated line (`Seal Number:`): maybe an empty field rather than a title. */
  label: boolean;
  line: number;
  /** First line after the section. */
  end: number;
}

/** A labelled value found in the text. */
export interface Fact {
  label: string;
  /** {@link labelTokens} of the label. */
  tokens: string[];
  value: string;
  line: number;
  /** How much the form of the fact is trusted (1 for `Label: value`). */
  weight: number;
}

export interface Table {
  line: number;
  page: number;
  header: string[];
  rows: string[][];
  /** The short line before the table (often its caption, e.g. "Attendees:"), or ''. */
  caption: string;
}

interface Checkbox {
  label: string;
  checked: boolean;
  line: number;
}

interface CheckboxGroup {
  line: number;
  boxes: Checkbox[];
  /** The line before the group, usually the question or field the boxes answer. */
  context: string;
}

interface ListBlock {
  line: number;
  items: string[];
  caption: string;
}

/** The facts of a document, with line numbers counted across its pages. */
export interface ParsedDocument {
  lines: DocLine[];
  /** Lines holding `Label: value` facts (outside tables). */
  labelled: Set<number>;
  /** The innermost section holding each line (not the line opening it). */
  sectionOf: (Section | undefined)[];
  sections: Section[];
  facts: Fact[];
  tables: Table[];
  groups: CheckboxGroup[];
  lists: ListBlock[];
}

const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;
const SETEXT = /^\s{0,3}(=+|-+)\s*$/;
const LIST_ITEM = /^\s*(?:[-*+•]|\d{1,3}[.)])\s+(.*)$/;
const GFM_ROW = /^\s*\|.*\|\s*$/;
const GFM_SEPARATOR = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;
const BOLD_ONLY = /^\s*(?:\*\*([^*]+)\*\*|__([^_]+)__)\s*:?\s*$/;

/**
 * Splits the pages' Markdown into lines, sections, labelled facts, tables, checkbox groups and
 * lists. Exported for tests.
 */
export function parseDocument(pages: readonly ExtractionPage[]): ParsedDocument {
  const lines: DocLine[] = [];
  const tables: Table[] = [];
  const headings: { line: number; level: number; title: string }[] = [];
  let block = 0;
  for (const page of pages) {
    const source = page.markdown.replace(/\r\n?/g, '\n').split('\n');
    for (let i = 0; i < source.length; i++) {
      const raw = source[i] ?? '';
      const add = (kind: DocLine['kind'], text: string, rawText = raw) => {
        const previous = lines.at(-1);
        if (kind !== 'blank' && (!previous || previous.kind === 'blank')) block++;
        lines.push({ index: lines.length, page: page.pageNumber, raw: rawText, text, kind, block });
      };
      if (/^\s*<table[\s>]/i.test(raw)) {
        // Only the line just added can close the table: testing the whole text each time would
        // be quadratic in the lines of a table left open.
        const parts = [raw];
        while (!/<\/table>/i.test(parts.at(-1) ?? '') && i + 1 < source.length) {
          parts.push(source[++i] ?? '');
        }
        const html = parts.join('\n');
        const grid = htmlTableGrid(html);
        if (grid.length > 0) tables.push(toTable(grid, lines.length, page.pageNumber, lines));
        add('table', '', html);
        continue;
      }
      if (GFM_ROW.test(raw) && GFM_SEPARATOR.test(source[i + 1] ?? '')) {
        const start = lines.length;
        const grid = [gfmCells(raw)];
        add('table', '');
        add('table', '', source[++i] ?? '');
        while (i + 1 < source.length && GFM_ROW.test(source[i + 1] ?? '')) {
          grid.push(gfmCells(source[++i] ?? ''));
          add('table', '');
        }
        tables.push(toTable(grid, start, page.pageNumber, lines.slice(0, start)));
        continue;
      }
      if (raw.trim() === '') {
        add('blank', '');
        continue;
      }
      const heading = HEADING.exec(raw);
      if (heading) {
        headings.push({
          line: lines.length,
          level: heading[1]?.length ?? 1,
          title: plain(heading[2] ?? ''),
        });
        add('heading', plain(heading[2] ?? ''));
        continue;
      }
      const previous = lines.at(-1);
      if (SETEXT.test(raw) && previous?.kind === 'text' && previous.page === page.pageNumber) {
        previous.kind = 'heading';
        headings.push({
          line: previous.index,
          level: raw.includes('=') ? 1 : 2,
          title: previous.text,
        });
        add('rule', '');
        continue;
      }
      if (RULE.test(raw)) {
        add('rule', '');
        continue;
      }
      const item = LIST_ITEM.exec(raw);
      if (item) {
        add('list', plain(item[1] ?? ''));
        continue;
      }
      add('text', plain(raw));
    }
  }
  const sections = buildSections(lines, headings);
  const facts = buildFacts(lines, tables);
  const tableLines = new Set(lines.filter((line) => line.kind === 'table').map((l) => l.index));
  const sectionOf: (Section | undefined)[] = lines.map(() => undefined);
  // Sections come in document order and nest, so a later section containing a line is inner.
  for (const section of sections) {
    for (let i = section.line + 1; i < section.end; i++) sectionOf[i] = section;
  }
  return {
    lines,
    sectionOf,
    labelled: new Set(facts.map((fact) => fact.line).filter((line) => !tableLines.has(line))),
    sections,
    facts,
    tables,
    groups: buildCheckboxGroups(lines),
    lists: buildLists(lines),
  };
}

/** Removes Markdown inline syntax and HTML tags, keeping the words. */
export function plain(text: string): string {
  return decodeHTML(
    text
      .replace(/<br\s*\/?>/gi, ' ')
      // Each class excludes the opening character too, so that a scan from one opener ends at the
      // next: with `[^>]` alone, a line of `<a@<a@…` or `[a[a…` takes time quadratic or cubic
      // in its length.
      .replace(/<[^<>@]+@[^<>@]+>/g, (m) => m.slice(1, -1))
      .replace(/<\/?[a-z][^<>]*>/gi, ' ')
      .replace(/!\[([^[\]]*)\]\([^()[\]]*\)/g, '$1')
      .replace(/\[([^[\]]+)\]\([^()[\]]*\)/g, '$1')
      .replace(/<(https?:[^<>]+)>/g, '$1')
      .replace(/(\*\*|__)(.+?)\1/g, '$2')
      .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,:;!?]|$)/g, '$1$2')
      .replace(/~~(.+?)~~/g, '$1')
      .replace(/`([^`]*)`/g, '$1')
      .replace(/\\([\\`*_{}[\]()#+\-.!|~])/g, '$1'),
  )
    .replace(/\s+/g, ' ')
    .trim();
}

function gfmCells(row: string): string[] {
  const cells: string[] = [];
  let current = '';
  const body = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let i = 0; i < body.length; i++) {
    const char = body.charAt(i);
    if (char === '\\' && body[i + 1] === '|') {
      current += '|';
      i++;
    } else if (char === '|') {
      cells.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  cells.push(current);
  return cells.map(plain);
}

/** Cells that `colspan`/`rowspan` may fill in one HTML table; past it, spans count as 1. */
const MAX_SPREAD_CELLS = 100_000;

/**
 * An HTML table as a grid of cell texts, with `colspan`/`rowspan` spread over the cells they cover.
 * A header cell spanning as many columns as it has words (OCR merging neighbouring headers, such
 * as "Cubic Weight" over two columns) is split into one word per column.
 */
function htmlTableGrid(html: string): string[][] {
  const grid: string[][] = [];
  const pending = new Map<string, string>();
  // A row or cell ends before the next one opens: an unclosed `<tr>` or `<td>` then costs one
  // scan to the next opener, not one to the end of the table for each of them.
  const rows = html.match(/<tr[\s>](?:(?!<tr[\s>])[\s\S])*?<\/tr>/gi) ?? [];
  // Spans spread at most this many cells over a table: `rowspan="50"` on every cell of a long
  // table would otherwise fill a grid of rows × 50 × 50.
  let spread = MAX_SPREAD_CELLS;
  rows.forEach((row, r) => {
    const out: string[] = [];
    grid.push(out);
    let c = 0;
    const skipSpanned = () => {
      while (pending.has(`${String(r)}:${String(c)}`)) {
        out[c] = pending.get(`${String(r)}:${String(c)}`) ?? '';
        c++;
      }
    };
    for (const cell of row.matchAll(/<(t[hd])([^<>]*)>((?:(?!<t[hdr][\s>])[\s\S])*?)<\/\1>/gi)) {
      skipSpanned();
      const attributes = cell[2] ?? '';
      const span = (name: string) =>
        Math.min(
          50,
          Math.max(1, Number(new RegExp(`${name}="?(\\d+)`, 'i').exec(attributes)?.[1] ?? 1)),
        );
      const colspan = spread > 0 ? span('colspan') : 1;
      // A span past the last row covers nothing.
      const rowspan = spread > 0 ? Math.min(span('rowspan'), rows.length - r) : 1;
      spread -= colspan * rowspan;
      const text = plain(cell[3] ?? '');
      const words = text.split(' ');
      const isHeader = cell[1]?.toLowerCase() === 'th';
      const pieces =
        colspan > 1 && isHeader && words.length >= colspan
          ? [...words.slice(0, colspan - 1), words.slice(colspan - 1).join(' ')]
          : Array.from({ length: colspan }, () => text);
      for (let k = 0; k < colspan; k++) {
        const piece = pieces[k] ?? '';
        out[c] = piece;
        for (let down = 1; down < rowspan; down++)
          pending.set(`${String(r + down)}:${String(c)}`, piece);
        c++;
      }
    }
    skipSpanned();
  });
  // Rows may have holes where a malformed table skipped cells.
  return grid.map((row) => Array.from({ length: row.length }, (_, i) => row[i] ?? ''));
}

function toTable(grid: string[][], line: number, page: number, before: readonly DocLine[]): Table {
  const width = Math.max(...grid.map((row) => row.length));
  const pad = (row: string[]) => Array.from({ length: width }, (_, i) => row[i] ?? '');
  const [header = [], ...rows] = grid.map(pad);
  return { line, page, header, rows, caption: captionBefore(before, before.length) };
}

/** The short text line just before `index` (at most one blank line away), or ''. */
function captionBefore(lines: readonly DocLine[], index: number): string {
  for (let i = index - 1, blanks = 0; i >= 0 && blanks <= 1; i--) {
    const line = lines[i];
    if (!line) break;
    if (line.kind === 'blank') {
      blanks++;
      continue;
    }
    if ((line.kind === 'text' || line.kind === 'heading') && line.text.split(' ').length <= 12) {
      return line.text.replace(/:\s*$/, '');
    }
    return '';
  }
  return '';
}

function buildSections(
  lines: readonly DocLine[],
  headings: readonly { line: number; level: number; title: string }[],
): Section[] {
  const marks = headings.map((heading) => ({ ...heading, label: false }));
  for (const line of lines) {
    if (line.kind !== 'text') continue;
    const bold = BOLD_ONLY.exec(line.raw);
    const title = bold
      ? plain(bold[1] ?? bold[2] ?? '').replace(/:$/, '')
      : /^[^:]{2,80}:$/.test(line.text) && line.text.split(' ').length <= 8
        ? line.text.slice(0, -1)
        : undefined;
    const label = !bold || /:\s*(?:\*\*|__)?\s*$/.test(line.raw);
    if (title) marks.push({ line: line.index, level: 7, title, label });
  }
  marks.sort((a, b) => a.line - b.line);
  // Linear passes rather than a search per mark, which is quadratic in documents made of labels:
  // `ends[k]` is the line of the next mark at the same or a higher level (a smaller number) than
  // mark k, found with a stack from the end; `stopAfter[i]` the first rule or heading after line i.
  const ends: number[] = [];
  const open: number[] = [];
  for (let k = marks.length - 1; k >= 0; k--) {
    const level = marks[k]?.level ?? 0;
    while (open.length > 0 && (marks[open.at(-1) ?? 0]?.level ?? 0) > level) open.pop();
    const next = open.at(-1);
    ends[k] = next === undefined ? lines.length : (marks[next]?.line ?? lines.length);
    open.push(k);
  }
  const stopAfter: number[] = new Array<number>(lines.length + 1).fill(lines.length);
  for (let i = lines.length - 1; i >= 0; i--) {
    const after = lines[i + 1];
    stopAfter[i] =
      after && (after.kind === 'rule' || after.kind === 'heading')
        ? after.index
        : (stopAfter[i + 1] ?? lines.length);
  }
  return marks.map((mark, k) => {
    let end = ends[k] ?? lines.length;
    if (mark.level === 7) end = Math.min(end, stopAfter[mark.line] ?? lines.length);
    return {
      label: mark.label,
      title: mark.title,
      tokens: labelTokens(mark.title),
      level: mark.level,
      line: mark.line,
      end,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Labelled values

/** Words that often make up form labels; they help tell where a label starts within a line. */
const LABEL_WORDS = new Set(
  (
    'account address amount balance bill birth business carrier cell city class code company ' +
    'contact country customer date delivery department description due email fax first freight ' +
    'handling hours invoice issue item last location method middle mobile name number order ' +
    'payment person phone pickup place po postal price pro quantity quote rate receipt reference ' +
    'seal ship shipping special state status street subtotal tax telephone terms time title total ' +
    'tracking trailer type unit vat vendor weight zip'
  ).split(' '),
);
const CONNECTORS = new Set(['of', 'and', '&', 'to', 'for', '/']);

const isTitleWord = (word: string) =>
  /^[A-Z][a-z][\w'.()#/-]*:?$/.test(word) || /^[A-Z]{1,4}[#.]?$/.test(word) || /#/.test(word);
const isLabelWord = (word: string) =>
  LABEL_WORDS.has(
    word
      .toLowerCase()
      .replace(/[^a-z]/g, '')
      .replace(/s$/, ''),
  ) || /#$/.test(word);

/**
 * Where the label before a colon starts, within `words` (the words before the colon): the word
 * next to the colon, one more when it reads as part of the label (a known label word, or a
 * capitalised word after a value that is not), and words joined by "of"/"and".
 */
function labelStart(words: readonly string[]): number {
  let start = words.length - 1;
  const before = (i: number) => words[i] ?? '';
  if (start < 0) return 0;
  const second = before(start - 1);
  const third = before(start - 2);
  if (
    start >= 1 &&
    (isLabelWord(second) ||
      (isTitleWord(second) && (start === 1 || !isTitleWord(third) || /[,;.]$/.test(third))))
  ) {
    start--;
  }
  while (
    start >= 2 &&
    CONNECTORS.has(before(start - 1).toLowerCase()) &&
    isTitleWord(before(start - 2))
  ) {
    start -= 2;
  }
  return start;
}

/**
 * The labelled values of one line of text: `Label: value` (several per line), `**Label:** value`
 * and `**Label** value`. Exported for tests.
 */
export function labelledValues(raw: string): { label: string; value: string; weight: number }[] {
  const body = raw
    .replace(/^\s*(?:[-*+•]|\d{1,3}[.)])\s+/, '')
    .replace(/^\s*#{1,6}\s+/, '')
    .replace(/_{3,}/g, ' ');
  if (/^\s*(?:\*\*|__)/.test(body)) return boldLabelled(body);
  return colonLabelled(plain(body));
}

function boldLabelled(body: string): { label: string; value: string; weight: number }[] {
  const spans = [...body.matchAll(/(\*\*|__)(.+?)\1/g)];
  const out: { label: string; value: string; weight: number }[] = [];
  spans.forEach((span, i) => {
    const start = span.index + span[0].length;
    const end = spans[i + 1]?.index ?? body.length;
    const rawLabel = plain(span[2] ?? '');
    const rest = body.slice(start, end);
    const colon = rawLabel.endsWith(':') || /^\s*:/.test(rest);
    const label = rawLabel.replace(/:$/, '').trim();
    const value = cleanValue(plain(rest.replace(/^\s*:/, '')));
    if (label && value) out.push({ label, value, weight: colon ? 1 : 0.95 });
  });
  // A bold label may be followed by plain `Label: value` pairs on the same line.
  const [only] = out;
  const colon = only && spans.length === 1 ? /(?<=\S):(?=\s|$)/.exec(only.value) : null;
  if (only && colon) {
    const words = only.value.slice(0, colon.index).split(' ');
    const cut = labelStart(words);
    if (cut > 0) {
      const own = words.slice(0, cut).join(' ');
      const inner = colonLabelled(only.value.slice(own.length + 1));
      only.value = cleanValue(own);
      return out.concat(inner);
    }
  }
  return out;
}

function colonLabelled(text: string): { label: string; value: string; weight: number }[] {
  const colons = [...text.matchAll(/(?<=\S):(?=\s|$)/g)].map((m) => m.index);
  if (colons.length === 0) return [];
  const labels: { start: number; end: number }[] = [];
  let from = 0;
  colons.forEach((colon, k) => {
    const before = text.slice(from, colon);
    const words = before.trim().split(/\s+/).filter(Boolean);
    // At the start of a line the whole text before the colon is the label, unless it reads as
    // a value or a sentence ("Toronto, ON M1B, Canada Location Type:").
    const wholeIsLabel =
      k === 0 && words.length <= 6 && !/[.!?]\s|[,;]/.test(before) && /[A-Za-z]/.test(before);
    const start = wholeIsLabel ? from : colon - words.slice(labelStart(words)).join(' ').length;
    labels.push({ start, end: colon });
    from = colon + 1;
  });
  return labels.flatMap((label, k) => {
    const next = labels[k + 1];
    const value = cleanValue(text.slice(label.end + 1, next ? next.start : text.length));
    const name = text.slice(label.start, label.end).trim();
    if (!/[A-Za-z]/.test(name) || name.split(' ').length > 8) return [];
    return [{ label: name, value, weight: 1 }];
  });
}

/** Trims a value and drops fill-in blanks (`_____`, `.....`) and stray separators. */
function cleanValue(value: string): string {
  return value
    .replace(/[_.]{3,}/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/^(?:[\s|:;,]|-(?![\d$€£.]))+|[\s|:;,]+$/g, '')
    .trim();
}

function buildFacts(lines: readonly DocLine[], tables: readonly Table[]): Fact[] {
  const facts: Omit<Fact, 'tokens'>[] = [];
  for (const line of lines) {
    if (line.kind !== 'text' && line.kind !== 'list' && line.kind !== 'heading') continue;
    const found = labelledValues(line.raw);
    for (const fact of found) {
      if (fact.value) facts.push({ ...fact, line: line.index });
    }
    // `Label:` alone on its line, value on the next line.
    const last = found.at(-1);
    const next = lines[line.index + 1];
    if (
      last &&
      !last.value &&
      next?.kind === 'text' &&
      labelledValues(next.raw).length === 0 &&
      !BOLD_ONLY.test(next.raw)
    ) {
      facts.push({
        label: last.label,
        value: cleanValue(next.text),
        line: next.index,
        weight: 0.85,
      });
    }
  }
  for (const table of tables) facts.push(...tableFacts(table));
  return facts
    .filter((fact) => fact.value !== '')
    .map((fact) => ({ ...fact, tokens: labelTokens(fact.label) }));
}

const looksNumeric = (text: string) => /\d/.test(text) && !/[A-Za-z]{4,}/.test(text);
const looksLikeLabel = (text: string) =>
  /^[^\d\s]/.test(text) && /[A-Za-z]{2}/.test(text) && text.split(' ').length <= 6;

/**
 * Key/value facts in tables: every row of a two-column table (its header row too), header/value
 * pairs of a one-row table, `Label: value` inside cells, and in narrow tables (up to four columns)
 * a label cell followed by a numeric cell.
 */
function tableFacts(table: Table): Omit<Fact, 'tokens'>[] {
  const facts: Omit<Fact, 'tokens'>[] = [];
  const all = [table.header, ...table.rows];
  const width = table.header.length;
  all.forEach((row, r) => {
    const line = table.line + (r === 0 ? 0 : r + 1);
    const cells = row.map((cell) => cell.trim()).filter(Boolean);
    for (const cell of row) {
      for (const fact of colonLabelled(cell))
        if (fact.value) facts.push({ ...fact, line, weight: 0.9 });
    }
    const [first, second] = cells;
    // A header row such as "| Field | Value |" names columns; "| SUBTOTAL | 155.00 |" is a pair.
    const pair = r > 0 || !looksLikeLabel(second ?? '') || /\d/.test(second ?? '');
    if (width === 2 && cells.length === 2 && first && second && pair && looksLikeLabel(first)) {
      facts.push({ label: first.replace(/:$/, ''), value: second, line, weight: 1 });
    } else if (width <= 4) {
      // "GST | 10% | 15.50": of the numbers after a label, the last is the amount.
      for (let i = 0; i + 1 < cells.length; i++) {
        const label = cells[i] ?? '';
        let last = i;
        while (last + 1 < cells.length && looksNumeric(cells[last + 1] ?? '')) last++;
        if (last > i && looksLikeLabel(label) && !label.includes(':')) {
          facts.push({ label, value: cells[last] ?? '', line, weight: 0.8 });
        }
      }
    }
  });
  if (table.rows.length === 1) {
    table.header.forEach((label, i) => {
      const value = table.rows[0]?.[i] ?? '';
      if (label && value && looksLikeLabel(label)) {
        facts.push({ label, value, line: table.line + 2, weight: 0.9 });
      }
    });
  }
  return facts;
}

// ---------------------------------------------------------------------------------------------
// Checkboxes and lists

const BOX = /(?:\[{1,2}([^[\]]{0,3})\]{1,2}|([☐☑☒□■✓✔]))/gu;
const CHECKED_MARK = /^[xX✓✔✗✘*/\\vV•●■¢#+-]{1,3}$/u;

/** The boxes of a line: `- [x] Label`, `[ ] A [x] B`, `☐ A ☑ B` (OCR variants such as `[[]` too). */
export function checkboxesOf(text: string): { label: string; checked: boolean }[] {
  const boxes: { at: number; end: number; checked: boolean }[] = [];
  for (const match of text.matchAll(BOX)) {
    const inner = match[1];
    const glyph = match[2];
    let checked: boolean;
    if (glyph !== undefined) checked = !['☐', '□'].includes(glyph);
    else if ((inner ?? '').trim() === '') checked = false;
    else if (CHECKED_MARK.test((inner ?? '').trim())) checked = true;
    else continue;
    boxes.push({ at: match.index, end: match.index + match[0].length, checked });
  }
  const first = boxes[0];
  if (!first) return [];
  const lead = text.slice(0, first.at).trim();
  if (boxes.length === 1 && lead !== '' && !/^(?:[-*+•]|\d{1,3}[.)])$/.test(lead)) return [];
  return boxes.map((box, i) => ({
    label: cleanValue(plain(text.slice(box.end, boxes[i + 1]?.at ?? text.length))),
    checked: box.checked,
  }));
}

function buildCheckboxGroups(lines: readonly DocLine[]): CheckboxGroup[] {
  const groups: CheckboxGroup[] = [];
  let current: CheckboxGroup | undefined;
  let gap = 0;
  for (const line of lines) {
    const boxes =
      line.kind === 'text' || line.kind === 'list'
        ? checkboxesOf(line.raw.replace(/^\s*[-*+•]\s+/, ''))
        : [];
    if (boxes.length === 0) {
      if (line.kind === 'blank' && current && gap === 0) {
        gap++;
        continue;
      }
      current = undefined;
      continue;
    }
    gap = 0;
    if (!current) {
      current = { line: line.index, boxes: [], context: captionBefore(lines, line.index) };
      groups.push(current);
    }
    current.boxes.push(...boxes.map((box) => ({ ...box, line: line.index })));
  }
  return groups;
}

function buildLists(lines: readonly DocLine[]): ListBlock[] {
  const lists: ListBlock[] = [];
  let current: ListBlock | undefined;
  for (const line of lines) {
    if (line.kind === 'list') {
      if (!current) {
        current = { line: line.index, items: [], caption: captionBefore(lines, line.index) };
        lists.push(current);
      }
      current.items.push(line.text);
    } else if (line.kind !== 'blank' || lines[line.index + 1]?.kind !== 'list') {
      current = undefined;
    }
  }
  return lists;
}

// ---------------------------------------------------------------------------------------------
// Label matching

const SINGLE_SYNONYMS: Readonly<Record<string, string>> = {
  no: 'number',
  nr: 'number',
  num: 'number',
  nbr: 'number',
  id: 'number',
  identifier: 'number',
  tel: 'phone',
  telephone: 'phone',
  mobile: 'phone',
  cell: 'phone',
  qty: 'quantity',
  amt: 'amount',
  desc: 'description',
  descr: 'description',
  descrip: 'description',
  ref: 'reference',
  cust: 'customer',
  client: 'customer',
  addr: 'address',
  inv: 'invoice',
  wt: 'weight',
  acct: 'account',
  dt: 'date',
  supplier: 'vendor',
  seller: 'vendor',
  sender: 'shipper',
  consignor: 'shipper',
  recipient: 'consignee',
  receiver: 'consignee',
  zip: 'postcode',
  postal: 'postcode',
  vat: 'tax',
  gst: 'tax',
  sig: 'signature',
  business: 'company',
  organization: 'company',
  organisation: 'company',
  firm: 'company',
  mail: 'email',
};

const MULTI_SYNONYMS: readonly [RegExp, string][] = [
  // A postal box, not a purchase order ("P.O. Box", "PO Box").
  [/\bp ?o box\b/g, 'pobox'],
  [/\bbill of lading\b/g, 'bol'],
  [/\bb l\b/g, 'bol'],
  [/\bpurchase order\b/g, 'po'],
  [/\b(?:amount|balance|total) due\b/g, 'total'],
  [/\b(?:grand total|total amount|amount payable)\b/g, 'total'],
  [/\bsub total\b/g, 'subtotal'],
  [/\be email\b/g, 'email'],
  [/\bphone number\b/g, 'phone'],
  [/\bship(?:ped)? from\b/g, 'shipper'],
  [/\bship(?:ped)? to\b/g, 'consignee'],
  [/\bdeliver(?:ed)? to\b/g, 'consignee'],
  [/\bpick up\b/g, 'pickup'],
  [/\bpostcode code\b/g, 'postcode'],
  [/\bdate of birth\b/g, 'birthdate'],
  [/\ba c\b/g, 'account'],
];

const STOP_WORDS = new Set(
  'a an the of and or for in on at by is are please your our this with'.split(' '),
);

const stem = (token: string) =>
  token.length > 4 && token.endsWith('ies')
    ? `${token.slice(0, -3)}y`
    : token.length > 3 && token.endsWith('s') && !/(?:ss|us|is)$/.test(token)
      ? token.slice(0, -1)
      : token;

/**
 * Normalised tokens of a label or property name: identifiers split (camelCase, snake_case,
 * kebab-case), parentheses dropped, `#` read as "number", synonyms mapped to one word
 * ("No." / "#" / "ID" → number, "Tel" → phone, "Bill of Lading" → bol...), plurals folded.
 * Exported for tests.
 */
export function labelTokens(text: string): string[] {
  const words = text
    // Innermost parentheses: `[^)]` alone rescans to the end from every "(" of "((((…".
    .replace(/\([^()]*\)/g, ' ')
    .replace(/\d+(?:[.,]\d+)?\s*%/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .replace(/e-mail/g, 'email')
    .replace(/#/g, ' number ')
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((word) => SINGLE_SYNONYMS[word] ?? word);
  let joined = words.join(' ');
  for (const [pattern, replacement] of MULTI_SYNONYMS)
    joined = joined.replace(pattern, replacement);
  const tokens = joined.split(' ').filter(Boolean).map(stem);
  const meaningful = tokens.filter((token) => !STOP_WORDS.has(token));
  return meaningful.length > 0 ? meaningful : tokens;
}

function tokenSimilarity(a: string, b: string, partial: boolean): number {
  if (a === b) return 1;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length >= 4 && long.startsWith(short)) return 0.85;
  // The edit distance is at least the difference in length: skip it when that alone rules the
  // pair out (most pairs of a long label list and a large schema).
  if (short.length >= 4 && short.length >= 0.75 * long.length) {
    const similarity = 1 - distance(a, b) / long.length;
    if (similarity >= 0.75) return similarity;
  }
  if (partial && short.length >= 3 && long.includes(short))
    return 0.5 + (0.5 * short.length) / long.length;
  return 0;
}

/**
 * How well `label` tokens match `phrase` tokens, in [0, 1]: the Dice overlap of the tokens (fuzzy
 * per token), or the edit similarity of the joined words when that is higher (OCR slips). With
 * `partial`, a token found inside another counts (truncated table headers).
 */
export function matchScore(
  phrase: readonly string[],
  label: readonly string[],
  partial = false,
): number {
  if (phrase.length === 0 || label.length === 0) return 0;
  if (phrase.join(' ') === label.join(' ')) return 1;
  const used = new Set<number>();
  let sum = 0;
  let strong = 0;
  for (const p of phrase) {
    let best = 0;
    let bestIndex = -1;
    label.forEach((l, i) => {
      if (used.has(i)) return;
      const similarity = tokenSimilarity(p, l, partial);
      if (similarity > best) {
        best = similarity;
        bestIndex = i;
      }
    });
    if (bestIndex >= 0) {
      used.add(bestIndex);
      sum += best;
      if (best === 1) strong++;
    }
  }
  const dice = (2 * sum) / (phrase.length + label.length);
  // "QAC Auditor" for auditor: every word of a specific name, and one qualifier more.
  const qualified =
    strong === phrase.length &&
    label.length === phrase.length + 1 &&
    !phrase.every((t) => GENERIC_WORDS.has(t))
      ? 0.75
      : 0;
  const a = phrase.join('');
  const b = label.join('');
  const [shorter, longer] = a.length <= b.length ? [a.length, b.length] : [b.length, a.length];
  const whole = shorter >= 4 && shorter >= 0.8 * longer ? 1 - distance(a, b) / longer : 0;
  return Math.max(dice, qualified, whole >= 0.8 ? whole * 0.95 : 0);
}

/** Heading match: like {@link matchScore}, but a heading containing every word of the phrase counts. */
function headingScore(phrase: readonly string[], heading: readonly string[]): number {
  const direct = matchScore(phrase, heading);
  if (phrase.length === 0 || heading.length === 0) return direct;
  const covered = phrase.filter((p) => heading.some((h) => tokenSimilarity(p, h, false) >= 0.85));
  const coverage = covered.length / phrase.length;
  return Math.max(direct, coverage === 1 && (phrase.length >= 2 || heading.length <= 3) ? 0.8 : 0);
}

interface Phrase {
  tokens: string[];
  weight: number;
}

/** The names a property goes by: its key, its `title`, and a short `description`. */
function phrasesOf(name: string, node: Json, prefix: readonly string[]): Phrase[] {
  const phrases: Phrase[] = [{ tokens: labelTokens(name), weight: 1 }];
  if (typeof node.title === 'string') phrases.push({ tokens: labelTokens(node.title), weight: 1 });
  if (typeof node.description === 'string') {
    const tokens = labelTokens(node.description);
    if (tokens.length <= 6) phrases.push({ tokens, weight: 0.9 });
  }
  if (prefix.length === 0) return phrases;
  const prefixed = phrases.map((phrase) => ({
    tokens: [...prefix, ...phrase.tokens.filter((t) => !prefix.includes(t))],
    weight: phrase.weight,
  }));
  // Outside its own section, a nested field keeps its plain names only when they are specific.
  const specific = phrases
    .filter((phrase) => !phrase.tokens.every((t) => GENERIC_WORDS.has(t)))
    .map((phrase) => ({ tokens: phrase.tokens, weight: phrase.weight * 0.9 }));
  return [...prefixed, ...specific];
}

/** Field words too common to be matched without the name of the object they belong to. */
const GENERIC_WORDS = new Set(
  'name address phone email fax date number type city state country postcode street company contact title time code status'.split(
    ' ',
  ),
);

const scoreLabel = (phrases: readonly Phrase[], label: readonly string[], partial = false) =>
  Math.max(0, ...phrases.map((p) => p.weight * matchScore(p.tokens, label, partial)));

const scoreHeading = (phrases: readonly Phrase[], heading: readonly string[]) =>
  Math.max(0, ...phrases.map((p) => p.weight * headingScore(p.tokens, heading)));

// ---------------------------------------------------------------------------------------------
// Filling

const THRESHOLD = 0.7;
const MAX_DEPTH = 8;

interface FillContext {
  root: Json;
  doc: ParsedDocument;
  depth: number;
}

/** The lines searched for a value: a section of the document or all of it. */
interface Scope {
  start: number;
  end: number;
  /** The section the scope was narrowed to, if any. */
  section: Section | null;
  /** Tokens of the enclosing object's name, when its fields are searched outside a section. */
  prefix: string[];
}

const within = (scope: Scope, line: number) => line >= scope.start && line < scope.end;

function* fillObject(
  shape: Shape,
  scope: Scope,
  context: FillContext,
): Steps<Record<string, unknown> | undefined> {
  const properties = asJson(shape.node.properties);
  const result: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(properties)) {
    const property = datedByName(name, resolveSchema(raw, context.root));
    const phrases = phrasesOf(name, property.node, scope.prefix);
    const value = yield* fillProperty(name, property, phrases, scope, context);
    if (value !== undefined) result[name] = value;
    yield;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

function* fillProperty(
  name: string,
  shape: Shape,
  phrases: Phrase[],
  scope: Scope,
  context: FillContext,
): Steps<unknown> {
  const [kind] = shape.types;
  if (kind === 'object') {
    if (context.depth >= MAX_DEPTH) return undefined;
    const inner = { ...context, depth: context.depth + 1 };
    const section = bestSection(phrases, scope, context.doc);
    if (section) {
      const narrowed = { start: section.line + 1, end: section.end, section, prefix: [] };
      return yield* fillObject(shape, narrowed, inner);
    }
    const prefix = [...scope.prefix, ...labelTokens(name)];
    return yield* fillObject(shape, { ...scope, section: null, prefix }, inner);
  }
  if (kind === 'array') return fillArray(shape, phrases, scope, context);
  return yield* fillScalar(name, shape, phrases, scope, context);
}

function bestSection(
  phrases: readonly Phrase[],
  scope: Scope,
  doc: ParsedDocument,
): Section | undefined {
  let best: Section | undefined;
  let bestScore = THRESHOLD;
  for (const section of doc.sections) {
    if (!within(scope, section.line) || section.line + 1 >= section.end) continue;
    const score = scoreHeading(phrases, section.tokens);
    if (score > bestScore + 1e-9) {
      best = section;
      bestScore = score;
    }
  }
  return best;
}

interface Candidate {
  value: string;
  score: number;
  line: number;
}

const sectionAt = (doc: ParsedDocument, line: number) => doc.sectionOf[line];

function* fillScalar(
  name: string,
  shape: Shape,
  phrases: Phrase[],
  scope: Scope,
  context: FillContext,
): Steps<unknown> {
  const { doc } = context;
  const candidates: Candidate[] = [];
  const facts = doc.facts.filter((fact) => within(scope, fact.line));
  const ambiguous = ambiguousLabels(facts, scope);
  const phraseWords = new Set(phrases.flatMap((phrase) => phrase.tokens));
  let searched = 0;
  for (const fact of facts) {
    if (++searched % FACTS_PER_STEP === 0) yield;
    let score = scoreLabel(phrases, fact.tokens);
    const section = sectionAt(doc, fact.line);
    // A label under a heading reads with it ("## Carrier" + "Name:" for carrier_name), provided the
    // label itself names part of the property.
    if (section && section !== scope.section && fact.tokens.some((t) => phraseWords.has(t))) {
      score = Math.max(score, 0.9 * scoreLabel(phrases, [...section.tokens, ...fact.tokens]));
    }
    if (score < THRESHOLD || ambiguous(fact)) continue;
    candidates.push({ value: fact.value, score: score * fact.weight, line: fact.line });
  }
  candidates.push(...(yield* prefixCandidates(phrases, scope, doc)));
  candidates.push(...checkboxCandidates(shape, phrases, scope, doc));
  candidates.push(...fallbackCandidates(name, shape, phrases, scope, doc));
  candidates.sort((a, b) => b.score - a.score || a.line - b.line);
  // The best candidate within the schema's bounds, else the best one at all.
  let outOfBounds: { value: unknown } | undefined;
  for (const candidate of candidates) {
    const coerced = coerce(candidate.value, shape);
    if (!coerced.ok) continue;
    if (coerced.fits) return coerced.value;
    outOfBounds ??= { value: coerced.value };
  }
  return outOfBounds?.value;
}

/**
 * Outside its own section, a nested object's field cannot tell apart a label that appears
 * several times with different values (the "Name:" of the shipper and of the consignee), unless
 * the label names the object too.
 */
function ambiguousLabels(facts: readonly Fact[], scope: Scope): (fact: Fact) => boolean {
  if (scope.prefix.length === 0) return () => false;
  const values = new Map<string, Set<string>>();
  for (const fact of facts) {
    const key = fact.tokens.join(' ');
    values.set(key, (values.get(key) ?? new Set()).add(fact.value));
  }
  return (fact) =>
    !fact.tokens.some((t) => scope.prefix.includes(t)) &&
    (values.get(fact.tokens.join(' '))?.size ?? 0) > 1;
}

/** `Label value` with no colon: a line starting with the property's name. */
function* prefixCandidates(
  phrases: readonly Phrase[],
  scope: Scope,
  doc: ParsedDocument,
): Steps<Candidate[]> {
  const out: Candidate[] = [];
  for (let i = scope.start; i < scope.end; i++) {
    if ((i - scope.start) % FACTS_PER_STEP === FACTS_PER_STEP - 1) yield;
    const line = doc.lines[i];
    // Lines with `Label: value` pairs were read as such already.
    if (!line || (line.kind !== 'text' && line.kind !== 'list') || doc.labelled.has(i)) continue;
    const words = line.text.split(' ');
    const prefixes = prefixTokens(line);
    let best = 0;
    let bestLength = 0;
    for (let k = 1; k <= prefixes.length; k++) {
      const score = scoreLabel(phrases, prefixes[k - 1] ?? []);
      if (score > best) {
        best = score;
        bestLength = k;
      }
    }
    if (best >= 0.9) {
      const value = cleanValue(words.slice(bestLength).join(' '));
      if (value) out.push({ value, score: best * 0.8, line: i });
    }
  }
  return out;
}

const prefixCache = new WeakMap<DocLine, string[][]>();

/**
 * Tokens of the first 1..6 words of a line (all but the last word), computed once per line;
 * empty for a prefix that ends inside a multi-word term.
 */
function prefixTokens(line: DocLine): string[][] {
  const cached = prefixCache.get(line);
  if (cached) return cached;
  const words = line.text.split(' ');
  const whole = labelTokens(line.text);
  // A prefix that cuts a multi-word term ("PO" of "PO Box") is no label: its tokens must begin
  // the line's own.
  const prefixes = Array.from({ length: Math.min(words.length - 1, 6) }, (_, k) => {
    const tokens = labelTokens(words.slice(0, k + 1).join(' '));
    return tokens.every((token, i) => whole[i] === token) ? tokens : [];
  });
  prefixCache.set(line, prefixes);
  return prefixes;
}

/** Booleans from a box labelled with the property's name; enums from a group of boxes naming its values. */
function checkboxCandidates(
  shape: Shape,
  phrases: readonly Phrase[],
  scope: Scope,
  doc: ParsedDocument,
): Candidate[] {
  const out: Candidate[] = [];
  const options = enumOptions(shape);
  for (const group of doc.groups) {
    if (!within(scope, group.line)) continue;
    if (shape.types.includes('boolean')) {
      for (const box of group.boxes) {
        const score = scoreHeading(phrases, labelTokens(box.label));
        if (score >= THRESHOLD)
          out.push({ value: box.checked ? 'yes' : 'no', score, line: box.line });
      }
    }
    if (options.length > 0) {
      const naming = group.boxes.filter((box) => matchEnum(box.label, options) !== undefined);
      const checked = naming.filter((box) => box.checked);
      const about = scoreLabel(phrases, labelTokens(group.context)) >= THRESHOLD;
      const [only] = checked;
      if (only && checked.length === 1 && (naming.length >= 2 || about)) {
        out.push({ value: only.label, score: about ? 1 : 0.9, line: only.line });
      }
    }
  }
  return out;
}

const enumOptions = (shape: Shape): unknown[] =>
  Array.isArray(shape.node.enum) ? shape.node.enum.filter((v) => v !== null) : [];

// The lookbehind starts a match only at the start of a run of address characters: from every
// position inside a long run, the scan would be quadratic in its length.
const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/;
const PHONE = /(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)|\d{3})[\s.-]?\d{3}[\s.-]?\d{4}\b/;

/**
 * Values found without a label, inside a section matched to the enclosing object only: its first
 * line as a name, the lines after it as an address, the first phone number or email. Plus the
 * first heading for a document title.
 */
function fallbackCandidates(
  name: string,
  shape: Shape,
  phrases: readonly Phrase[],
  scope: Scope,
  doc: ParsedDocument,
): Candidate[] {
  const out: Candidate[] = [];
  const tokens = new Set(phrases.flatMap((p) => p.tokens));
  const own = labelTokens(name);
  if (scope.section === null && scope.prefix.length === 0) {
    if (own.join(' ') === 'title' || own.join(' ') === 'document title') {
      const first =
        doc.lines.find((line) => line.kind === 'heading' && HEADING.exec(line.raw)?.[1] === '#') ??
        doc.lines.find((line) => line.kind === 'heading');
      if (first) out.push({ value: first.text, score: 0.5, line: first.index });
    }
    const section = shape.types.includes('string') ? bestSection(phrases, scope, doc) : undefined;
    const text = section && !section.label ? firstParagraph(doc, section) : undefined;
    if (section && text) out.push({ value: text, score: 0.5, line: section.line + 1 });
    return out;
  }
  if (scope.section === null) return out;
  const nameLine = firstContentLine(doc, scope);
  if (nameLine && own.every((t) => t === 'name' || t === 'company')) {
    out.push({ value: nameLine.text, score: 0.5, line: nameLine.index });
  }
  if (nameLine && own.includes('address')) {
    const address = addressAfter(doc, nameLine, scope);
    if (address) out.push({ value: address, score: 0.5, line: nameLine.index + 1 });
  }
  const pattern =
    tokens.has('email') || shape.node.format === 'email'
      ? EMAIL
      : tokens.has('phone') || tokens.has('fax')
        ? PHONE
        : undefined;
  if (pattern) {
    for (let i = scope.start; i < scope.end; i++) {
      const found = pattern.exec(doc.lines[i]?.text ?? '');
      if (found) {
        out.push({ value: found[0], score: 0.45, line: i });
        break;
      }
    }
  }
  return out;
}

/** The text of the first paragraph or list of a section, for a string named like the section. */
function firstParagraph(doc: ParsedDocument, section: Section): string | undefined {
  const parts: string[] = [];
  let block: number | undefined;
  for (let i = section.line + 1; i < section.end; i++) {
    const line = doc.lines[i];
    if (!line || line.kind === 'blank') continue;
    if (line.kind !== 'text' && line.kind !== 'list') break;
    block ??= line.block;
    if (line.block !== block && line.kind !== 'list') break;
    parts.push(line.text);
  }
  return parts.length > 0 ? parts.join(' ') : undefined;
}

/** The first short plain line of a scope that is not a labelled value. */
function firstContentLine(doc: ParsedDocument, scope: Scope): DocLine | undefined {
  for (let i = scope.start; i < scope.end; i++) {
    const line = doc.lines[i];
    if (!line || line.kind === 'blank' || line.kind === 'rule') continue;
    if (
      line.kind !== 'text' ||
      labelledValues(line.raw).length > 0 ||
      checkboxesOf(line.raw).length > 0
    ) {
      return undefined;
    }
    return line.text.split(' ').length <= 10 ? line : undefined;
  }
  return undefined;
}

/** The plain lines after a name: the rest of its paragraph, or the next paragraph when it stands alone. */
function addressAfter(doc: ParsedDocument, nameLine: DocLine, scope: Scope): string | undefined {
  const parts: string[] = [];
  let block: number | undefined;
  for (let i = nameLine.index + 1; i < scope.end && parts.length < 3; i++) {
    const line = doc.lines[i];
    if (!line) break;
    if (line.kind === 'blank') {
      if (parts.length > 0 || block !== undefined) break;
      continue;
    }
    if (line.block !== nameLine.block && parts.length === 0 && block === undefined)
      block = line.block;
    if (line.block !== nameLine.block && line.block !== block) break;
    if (line.kind !== 'text' || labelledValues(line.raw).length > 0 || BOLD_ONLY.test(line.raw))
      break;
    const text = line.text.replace(PHONE, ' ').replace(EMAIL, ' ');
    const cleaned = cleanValue(text.replace(/\([^)]*\)\s*$/, ''));
    if (cleaned) parts.push(cleaned);
  }
  return parts.length > 0 ? parts.join(', ') : undefined;
}

// ---------------------------------------------------------------------------------------------
// Arrays

function fillArray(
  shape: Shape,
  phrases: Phrase[],
  scope: Scope,
  context: FillContext,
): unknown[] | undefined {
  const items = resolveSchema(shape.node.items, context.root);
  const [kind] = items.types;
  if (kind === 'object') return arrayFromTables(items, phrases, scope, context);
  if (kind === 'array' || kind === undefined) return undefined;
  return arrayOfScalars(items, phrases, scope, context.doc);
}

interface ColumnPlan {
  table: Table;
  columns: Map<string, { index: number; shape: Shape }>;
  score: number;
  signature: string;
}

function arrayFromTables(
  items: Shape,
  phrases: readonly Phrase[],
  scope: Scope,
  context: FillContext,
): unknown[] | undefined {
  const { doc } = context;
  const properties = Object.entries(asJson(items.node.properties)).map(([name, raw]) => {
    const shape = datedByName(name, resolveSchema(raw, context.root));
    return { name, shape, phrases: phrasesOf(name, shape.node, []) };
  });
  const scalar = properties.filter(
    ({ shape }) => !['object', 'array'].includes(shape.types[0] ?? ''),
  );
  if (scalar.length === 0) return undefined;
  const plans: ColumnPlan[] = [];
  for (const table of doc.tables) {
    if (!within(scope, table.line) || table.rows.length === 0) continue;
    const plan = planColumns(table, scalar);
    const section = sectionAt(doc, table.line);
    const about = Math.max(
      scoreHeading(phrases, labelTokens(table.caption)),
      section ? scoreHeading(phrases, section.tokens) : 0,
    );
    const coverage = plan.score / scalar.length;
    if (plan.columns.size === 0 || (coverage < 0.25 && about < THRESHOLD)) continue;
    plans.push({ ...plan, score: coverage + (about >= THRESHOLD ? 0.5 * about : 0) });
  }
  plans.sort((a, b) => b.score - a.score);
  const [best] = plans;
  if (!best) return undefined;
  // A table continued on the next pages repeats its header there, under no other caption.
  const chosen = [best];
  for (const table of doc.tables) {
    const last = chosen.at(-1)?.table ?? best.table;
    if (
      table.page > last.page &&
      within(scope, table.line) &&
      signatureOf(table) === best.signature &&
      (table.caption === '' || table.caption === best.table.caption)
    ) {
      chosen.push({ ...best, table });
    }
  }
  const rows: unknown[] = [];
  for (const plan of chosen) {
    for (const row of plan.table.rows) {
      if (row.every((cell, i) => cell === (plan.table.header[i] ?? ''))) continue;
      const item: Record<string, unknown> = {};
      for (const [name, column] of plan.columns) {
        const coerced = coerce(row[column.index] ?? '', column.shape);
        if (coerced.ok) item[name] = coerced.value;
      }
      if (Object.keys(item).length > 0) rows.push(item);
    }
  }
  return rows.length > 0 ? rows : undefined;
}

const signatureOf = (table: Table) => table.header.map((h) => labelTokens(h).join(' ')).join('|');

/**
 * Assigns item properties to table columns: by header name (a truncated header counts, weighed by
 * how many of the column's cells convert to the property's type), then, for dates and emails left
 * over, by the shape of the cells in a column no property claimed.
 */
function planColumns(
  table: Table,
  properties: readonly { name: string; shape: Shape; phrases: Phrase[] }[],
): ColumnPlan {
  const pairs: { name: string; index: number; score: number; shape: Shape }[] = [];
  const fit = (shape: Shape, index: number, test: (cell: string, shape: Shape) => boolean) => {
    const cells = table.rows.map((row) => row[index] ?? '').filter((cell) => cell.trim() !== '');
    return cells.length === 0 ? 0 : cells.filter((cell) => test(cell, shape)).length / cells.length;
  };
  for (const property of properties) {
    table.header.forEach((header, index) => {
      const score = scoreLabel(property.phrases, labelTokens(header), true);
      if (score < 0.6) return;
      const compatible = fit(property.shape, index, (cell, shape) => coerce(cell, shape).ok);
      const combined = score * (0.5 + 0.5 * compatible);
      if (combined >= 0.6)
        pairs.push({ name: property.name, index, score: combined, shape: property.shape });
    });
  }
  pairs.sort((a, b) => b.score - a.score);
  const columns = new Map<string, { index: number; shape: Shape }>();
  const taken = new Set<number>();
  let score = 0;
  for (const pair of pairs) {
    if (columns.has(pair.name) || taken.has(pair.index)) continue;
    columns.set(pair.name, { index: pair.index, shape: pair.shape });
    taken.add(pair.index);
    score += pair.score;
  }
  if (columns.size > 0) {
    for (const property of properties) {
      if (columns.has(property.name)) continue;
      const shapeTest = shapeTestFor(property.name, property.shape);
      if (!shapeTest) continue;
      const fits = table.header
        .map((_, index) => ({
          index,
          share: taken.has(index) ? 0 : fit(property.shape, index, shapeTest),
        }))
        .filter((column) => column.share >= 0.6)
        .sort((a, b) => b.share - a.share);
      const [first, second] = fits;
      if (first && (!second || second.share < first.share)) {
        columns.set(property.name, { index: first.index, shape: property.shape });
        taken.add(first.index);
        score += 0.5;
      }
    }
  }
  return { table, columns, score, signature: signatureOf(table) };
}

/**
 * Digits that look like a date whose separators OCR lost or misread ("11172017", "4/412017"):
 * six to nine digits with at most two separators, and not a decimal number.
 */
function dateShaped(cell: string): boolean {
  const text = cell.trim();
  const digits = text.replace(/\D/g, '').length;
  return (
    /^[\d/.-]{6,10}$/.test(text) &&
    digits >= 6 &&
    digits <= 9 &&
    (text.match(/[/.-]/g) ?? []).length <= 2 &&
    !/^\d+\.\d+$/.test(text)
  );
}

/** A test of cell shape for properties recognisable by their values: dates and emails. */
function shapeTestFor(name: string, shape: Shape): ((cell: string) => boolean) | undefined {
  const format = shape.node.format;
  if (format === 'email') return (cell) => EMAIL.test(cell);
  if (format === 'date' || format === 'date-time' || labelTokens(name).includes('date')) {
    return (cell) => toIsoDate(cell) !== undefined || dateShaped(cell);
  }
  return undefined;
}

function arrayOfScalars(
  items: Shape,
  phrases: readonly Phrase[],
  scope: Scope,
  doc: ParsedDocument,
): unknown[] | undefined {
  const sources: { score: number; values: string[] }[] = [];
  for (const list of doc.lists) {
    if (!within(scope, list.line)) continue;
    const section = sectionAt(doc, list.line);
    const score = Math.max(
      scoreHeading(phrases, labelTokens(list.caption)),
      section ? scoreHeading(phrases, section.tokens) : 0,
    );
    if (score >= THRESHOLD) sources.push({ score, values: list.items });
  }
  for (const table of doc.tables) {
    if (!within(scope, table.line)) continue;
    table.header.forEach((header, index) => {
      const score = scoreLabel(phrases, labelTokens(header));
      if (score >= THRESHOLD)
        sources.push({ score, values: table.rows.map((row) => row[index] ?? '') });
    });
  }
  const options = enumOptions(items);
  if (options.length > 0) {
    for (const group of doc.groups) {
      if (!within(scope, group.line)) continue;
      const naming = group.boxes.filter((box) => matchEnum(box.label, options) !== undefined);
      if (naming.length >= 2) {
        sources.push({
          score: 0.9,
          values: naming.filter((box) => box.checked).map((box) => box.label),
        });
      }
    }
  }
  sources.sort((a, b) => b.score - a.score);
  for (const source of sources) {
    const values = source.values.flatMap((value) => {
      const coerced = coerce(value, items);
      return coerced.ok && coerced.value !== null ? [coerced.value] : [];
    });
    if (values.length > 0) return values;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Values

/**
 * The result of converting text to a schema type. `fits` is false for a number outside the
 * schema's bounds: such a value is still the document's (a total over a maximum is extracted and
 * reported by validation), but a candidate that fits is preferred to it.
 */
export type Coerced = { ok: true; value: unknown; fits: boolean } | { ok: false };

const NOT_APPLICABLE = /^(?:n\/?a|none|nil|null|not applicable|-+|—|–)$/i;

/**
 * Converts extracted text to the type of a property `schema` (its local `$ref`s resolved against
 * `root`), honouring `const`, `enum`,
 * `format` (date → ISO `YYYY-MM-DD`, the address in a text for email and uri; then every format
 * Ajv defines, checked as validation checks it), `pattern` and lengths. Numeric bounds
 * are left to validation. "N/A" gives null when the schema allows it and nothing otherwise. Exported for tests.
 */
export function coerceValue(text: string, schema: JsonSchemaObject, root = schema): Coerced {
  return coerce(text, resolveSchema(schema, root));
}

function coerce(text: string, shape: Shape): Coerced {
  const value = cleanValue(plain(text));
  if (value === '') return { ok: false };
  if (NOT_APPLICABLE.test(value)) {
    return shape.nullable ? { ok: true, value: null, fits: true } : { ok: false };
  }
  const { node } = shape;
  if (node.const !== undefined) {
    const expected = node.const;
    const found = matchEnum(value, [expected]);
    return found === undefined ? { ok: false } : { ok: true, value: expected, fits: true };
  }
  const options = enumOptions(shape);
  if (options.length > 0) {
    const found = matchEnum(value, options);
    return found === undefined ? { ok: false } : { ok: true, value: found, fits: true };
  }
  const order = ['integer', 'number', 'boolean', 'string'].filter((type) =>
    shape.types.includes(type),
  );
  for (const type of order) {
    const converted = convert(value, type, node);
    if (shape.dateByName === true && typeof converted === 'string' && readsAsAmount(converted)) {
      continue;
    }
    if (converted !== undefined) {
      return {
        ok: true,
        value: converted,
        fits: typeof converted !== 'number' || inBounds(converted, node),
      };
    }
  }
  return { ok: false };
}

function convert(value: string, type: string, node: Json): unknown {
  switch (type) {
    case 'integer': {
      const number = parseNumber(value);
      return number !== undefined && Number.isInteger(number) ? number : undefined;
    }
    case 'number': {
      const number = parseNumber(value);
      return number;
    }
    case 'boolean':
      return parseBoolean(value);
    default:
      return toStringValue(value, node);
  }
}

/**
 * `shape` for the property `name`, marked {@link Shape.dateByName} when it is a plain string
 * (no `format`, `enum` or `const`) whose name has the word "date": a "Rate" column or label,
 * which the name matches as an OCR slip of "Date", then fills it with nothing rather than with
 * an amount.
 */
function datedByName(name: string, shape: Shape): Shape {
  const { node, types } = shape;
  const plainString =
    types.length === 1 &&
    types[0] === 'string' &&
    node.format === undefined &&
    node.enum === undefined &&
    node.const === undefined;
  return plainString && labelTokens(name).includes('date') ? { ...shape, dateByName: true } : shape;
}

/**
 * Text that reads as an amount or a count ("$11.00", "187", "4PCS") and not as a date, a date
 * whose separators OCR lost ("11172017"), or a year.
 */
function readsAsAmount(text: string): boolean {
  return (
    parseNumber(text) !== undefined &&
    toIsoDate(text) === undefined &&
    !dateShaped(text) &&
    !/^\d{4}$/.test(text)
  );
}

function inBounds(number: number, node: Json): boolean {
  const n = (key: string) => (typeof node[key] === 'number' ? node[key] : undefined);
  const minimum = n('minimum');
  const maximum = n('maximum');
  const exclusiveMinimum = n('exclusiveMinimum');
  const exclusiveMaximum = n('exclusiveMaximum');
  return (
    (minimum === undefined || number >= minimum) &&
    (maximum === undefined || number <= maximum) &&
    (exclusiveMinimum === undefined || number > exclusiveMinimum) &&
    (exclusiveMaximum === undefined || number < exclusiveMaximum)
  );
}

function toStringValue(value: string, node: Json): string | undefined {
  let text = value.replace(/[,;:]+$/, '').trim();
  switch (node.format) {
    case 'date': {
      const iso = toIsoDate(text);
      if (iso === undefined) return undefined;
      text = iso;
      break;
    }
    case 'email': {
      const email = EMAIL.exec(text);
      if (!email) return undefined;
      text = email[0];
      break;
    }
    case 'uri':
    case 'url': {
      const url = /\bhttps?:\/\/[^\s<>"]+/i.exec(text);
      if (!url) return undefined;
      text = url[0].replace(/[.,;)]+$/, '');
      break;
    }
    default:
      break;
  }
  if (!satisfiesFormat(text, node.format)) return undefined;
  if (typeof node.pattern === 'string') {
    const pattern = schemaPattern(node.pattern);
    if (pattern && !pattern.test(text)) {
      const token = text.split(/\s+/).find((word) => pattern.test(word.replace(/[,;.]+$/, '')));
      if (token === undefined) return undefined;
      text = token.replace(/[,;.]+$/, '');
    }
  }
  // JSON Schema counts code points, not UTF-16 units.
  const length = text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '_').length;
  if (typeof node.minLength === 'number' && length < node.minLength) return undefined;
  if (typeof node.maxLength === 'number' && length > node.maxLength) return undefined;
  return text;
}

const STRING_FORMATS: Readonly<Record<string, ((text: string) => boolean) | undefined>> =
  Object.fromEntries(
    Object.entries(fullFormats).map(([name, format]) => [name, formatTest(format)]),
  );

/**
 * The test of one of Ajv's format definitions on a string; undefined for the formats that
 * constrain no string (number formats, `password`, `binary`).
 */
function formatTest(format: Format): ((text: string) => boolean) | undefined {
  if (format instanceof RegExp) return (text) => format.test(text);
  if (typeof format === 'function') return format;
  if (typeof format !== 'object' || format.type === 'number') return undefined;
  // The date and time formats: a function each (Ajv's definitions may also be a pattern).
  const validate = format.validate as (text: string) => unknown;
  return (text) => validate(text) === true;
}

/**
 * Whether `text` is valid for the string `format` as the answer's validation checks it (Ajv's
 * formats in full mode, the same definitions): a value of the wrong format is never given, even
 * when its label or column names the property. A format Ajv does not define constrains nothing.
 */
function satisfiesFormat(text: string, format: unknown): boolean {
  if (typeof format !== 'string' || !Object.hasOwn(STRING_FORMATS, format)) return true;
  return STRING_FORMATS[format]?.(text) ?? true;
}

/**
 * The schema's `pattern` on the linear-time engine; undefined for a pattern it refuses (request
 * validation refuses those first, so only for records written by another version).
 */
function schemaPattern(pattern: string): SafeRegExp | undefined {
  try {
    return safeRegExp(pattern);
  } catch (error) {
    if (error instanceof UnsupportedPatternError) return undefined;
    throw error;
  }
}

/**
 * A number from text such as "$1,234.50", "1.234,50 €", "(12.00)", "10%", "300 lb".
 *
 * With both `.` and `,` the last one is the decimal mark; a lone `,` followed by three digits is a
 * thousands separator, otherwise a decimal mark; spaces and `'` between digit groups are
 * thousands separators. Exported for tests.
 */
export function parseNumber(text: string): number | undefined {
  let value = text
    .trim()
    .replace(/^(?:[A-Z]{3}\s?)?[$€£¥₹]\s?/, '')
    .replace(/^(?:USD|EUR|GBP|AUD|CAD|NZD|CHF|JPY|INR)\s?/i, '')
    .replace(/\s?(?:USD|EUR|GBP|AUD|CAD|NZD|CHF|JPY|INR)$/i, '')
    .replace(/\s?[$€£¥₹]$/, '');
  let negative = false;
  const parenthesised = /^\((.*)\)$/.exec(value);
  if (parenthesised) {
    negative = true;
    value = parenthesised[1] ?? '';
  }
  const match = /^([-+−]?)\s*[$€£¥₹]?\s*(\d[\d.,' ]*)\s*(%|[A-Za-z]{1,5}\.?)?$/.exec(value.trim());
  if (!match) return undefined;
  if (match[1] === '-' || match[1] === '−') negative = !negative;
  let digits = (match[2] ?? '').trim().replace(/(\d)[' ](?=\d{3}\b)/g, '$1');
  if (/[' ]/.test(digits)) return undefined;
  const lastDot = digits.lastIndexOf('.');
  const lastComma = digits.lastIndexOf(',');
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const thousands = decimal === '.' ? ',' : '.';
    digits = digits.split(thousands).join('').replace(decimal, '.');
  } else if (lastComma >= 0) {
    digits = /^\d{1,3}(?:,\d{3})+$/.test(digits)
      ? digits.replace(/,/g, '')
      : digits.replace(',', '.');
  } else if (/^\d{1,3}(?:\.\d{3}){2,}$/.test(digits)) {
    digits = digits.replace(/\./g, '');
  }
  if (!/^\d+(?:\.\d+)?$/.test(digits)) return undefined;
  const number = Number(digits);
  return negative ? -number : number;
}

const TRUE_WORDS = new Set([
  'yes',
  'y',
  'true',
  't',
  'x',
  'checked',
  'on',
  '1',
  '✓',
  '✔',
  '☑',
  '☒',
]);
const FALSE_WORDS = new Set(['no', 'n', 'false', 'f', 'unchecked', 'off', '0', '☐', '□']);

/** yes/no, true/false, x, checked/unchecked, 1/0, and box glyphs. Exported for tests. */
export function parseBoolean(text: string): boolean | undefined {
  const word = text.trim().toLowerCase().replace(/[.!]$/, '');
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

const normalise = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '');

/** The allowed value `text` names: equal ignoring case and punctuation, else the unique close one. */
function matchEnum(text: string, options: readonly unknown[]): unknown {
  const wanted = normalise(text);
  for (const option of options) {
    if (typeof option === 'string' && normalise(option) === wanted && wanted !== '') return option;
    if (typeof option === 'number' && parseNumber(text) === option) return option;
    if (typeof option === 'boolean' && parseBoolean(text) === option) return option;
  }
  let best: unknown;
  let bestScore = 0.8;
  let tie = false;
  for (const option of options) {
    if (typeof option !== 'string') continue;
    const candidate = normalise(option);
    if (candidate.length < 4 || wanted.length < 4) continue;
    const score = 1 - distance(candidate, wanted) / Math.max(candidate.length, wanted.length);
    if (score > bestScore) {
      best = option;
      bestScore = score;
      tie = false;
    } else if (score === bestScore && best !== undefined) {
      tie = true;
    }
  }
  return tie ? undefined : best;
}

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const MONTH_NAME =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';

/**
 * The first date in `text` as ISO `YYYY-MM-DD`, or undefined.
 *
 * Reads ISO dates, month names ("September 13, 2021", "13 Sep 2021", "13-Sep-21") and numeric
 * dates. Numeric dates with `/` or `-` are read month first (US style, "1/2/2017" is 2 January)
 * unless the first number cannot be a month (> 12); dates with dots are read day first
 * ("02.10.2024" is 2 October) unless the second number cannot be a month. Two-digit years are
 * 20xx below 70 and 19xx from 70. Exported for tests.
 */
export function toIsoDate(text: string): string | undefined {
  const iso = /\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b/.exec(text);
  if (iso) return isoOf(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const named = new RegExp(
    `\\b${MONTH_NAME}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`,
    'i',
  ).exec(text);
  if (named) return isoOf(Number(named[3]), monthOf(named[1]), Number(named[2]));
  const dayFirst = new RegExp(
    `\\b(\\d{1,2})(?:st|nd|rd|th)?[\\s-]+(?:of\\s+)?${MONTH_NAME}\\.?,?[\\s-]+(\\d{4}|\\d{2})\\b`,
    'i',
  ).exec(text);
  if (dayFirst) return isoOf(year(dayFirst[3]), monthOf(dayFirst[2]), Number(dayFirst[1]));
  const numeric = /\b(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})\b/.exec(text);
  if (numeric) {
    const a = Number(numeric[1]);
    const b = Number(numeric[3]);
    const dotted = numeric[2] === '.';
    const monthFirst = dotted ? b > 12 : a <= 12;
    return monthFirst ? isoOf(year(numeric[4]), a, b) : isoOf(year(numeric[4]), b, a);
  }
  return undefined;
}

const monthOf = (name: string | undefined) => MONTHS[(name ?? '').slice(0, 3).toLowerCase()] ?? 0;

function year(text: string | undefined): number {
  const value = Number(text);
  if ((text ?? '').length > 2) return value;
  return value < 70 ? 2000 + value : 1900 + value;
}

function isoOf(y: number, m: number, d: number): string | undefined {
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d)
    return undefined;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}
