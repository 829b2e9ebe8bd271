/**
 * The document model the offline extractor fills a schema from: the pages' Markdown as lines
 * (counted across pages), the sections that headings and standalone labels open, and the facts
 * read from them: labelled values, tables, checkbox groups and lists. Built by `parseDocument`
 * (read-markdown.ts).
 */

/** One line of Markdown, with its kind. */
export interface DocLine {
  index: number;
  page: number;
  raw: string;
  /** Plain text: list markers, emphasis, links and tags removed. */
  text: string;
  kind: 'blank' | 'heading' | 'rule' | 'table' | 'list' | 'text';
  /** Paragraph number: consecutive non-blank lines share it. */
  block: number;
}

/** A heading, or a bold or colon-terminated line standing alone, and the lines under it. */
export interface Section {
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
  /** `labelTokens` of the label. */
  tokens: string[];
  value: string;
  line: number;
  /** How much the form of the fact is trusted (1 for `Label: value`). */
  weight: number;
}

/** A table (GFM or HTML), its spans spread over the cells they cover. */
export interface Table {
  line: number;
  page: number;
  header: string[];
  rows: string[][];
  /** The short line before the table (often its caption, e.g. "Attendees:"), or ''. */
  caption: string;
}

/** One box and its label. */
export interface Checkbox {
  label: string;
  checked: boolean;
  line: number;
}

/** The boxes of consecutive lines. */
export interface CheckboxGroup {
  line: number;
  boxes: Checkbox[];
  /** The line before the group, usually the question or field the boxes answer. */
  context: string;
}

/** The items of one list. */
export interface ListBlock {
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

/** The short text line just before `index` (at most one blank line away), or ''. */
export function captionBefore(lines: readonly DocLine[], index: number): string {
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
