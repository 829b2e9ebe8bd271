import { parseHeading } from '../../core/domain/markdown-lines.js';
import type { ExtractionPage } from '../../core/ports/structured-extractor.js';
import { buildCheckboxGroups, buildLists } from './checkboxes.js';
import type { DocLine, ParsedDocument, Section, Table } from './document-model.js';
import { labelTokens } from './label-matching.js';
import { buildFacts } from './labelled-values.js';
import {
  BOLD_ONLY,
  GFM_ROW,
  GFM_SEPARATOR,
  LIST_ITEM,
  plain,
  RULE,
  SETEXT,
} from './markdown-text.js';
import { gfmCells, htmlTableGrid, toTable } from './tables.js';

/**
 * Markdown → document model: the pages' lines classified (headings ATX and setext, rules, tables
 * GFM and HTML, list items, text), the sections that headings and standalone labels open, and the
 * facts, tables, checkbox groups and lists found in them.
 */

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
      const heading = parseHeading(raw);
      if (heading) {
        headings.push({ line: lines.length, level: heading.level, title: plain(heading.text) });
        add('heading', plain(heading.text));
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
