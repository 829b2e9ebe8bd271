import type { DocLine, Fact, Table } from './document-model.js';
import { labelTokens } from './label-matching.js';
import { BOLD_ONLY, cleanValue, plain } from './markdown-text.js';
import { parseHeading } from '../../core/domain/markdown-lines.js';

/**
 * Labelled values: `Label: value` (several per line, the label's start told by form-label words
 * and capitals), `**Label:** value`, `**Label** value`, a `Label:` whose value is on the next
 * line, and the key/value pairs of tables.
 */

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
  const unlisted = raw.replace(/^\s*(?:[-*+•]|\d{1,3}[.)])\s+/, '');
  const body = (parseHeading(unlisted)?.text ?? unlisted).replace(/_{3,}/g, ' ');
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

/** The labelled values of the document's lines and tables, with their label tokens. */
export function buildFacts(lines: readonly DocLine[], tables: readonly Table[]): Fact[] {
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
