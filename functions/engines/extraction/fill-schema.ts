import { parseHeading } from '../../core/domain/markdown-lines.js';
import {
  asJson,
  MAX_OBJECT_DEPTH,
  shapeResolver,
} from '../../core/domain/extraction/schema-shape.js';
import type { ExtractionPage, JsonSchemaObject } from '../../core/ports/structured-extractor.js';
import { fillArray } from './arrays.js';
import { checkboxesOf } from './checkboxes.js';
import { coerce, datedByName, enumOptions, matchEnum, type FieldShape } from './coerce.js';
import type { DocLine, Fact, ParsedDocument, Section } from './document-model.js';
import {
  FACTS_PER_STEP,
  sectionAt,
  within,
  type FillContext,
  type Scope,
  type Steps,
} from './fill-scope.js';
import {
  labelTokens,
  MATCH_THRESHOLD,
  phrasesOf,
  scoreHeading,
  scoreLabel,
  type Phrase,
} from './label-matching.js';
import { labelledValues } from './labelled-values.js';
import { BOLD_ONLY, cleanValue } from './markdown-text.js';
import { parseDocument } from './read-markdown.js';
import { EMAIL, PHONE } from './value-formats.js';

/**
 * Filling a schema: each property matched to the document's labelled values, the lines that start
 * with its name, checkboxes and, inside a section matched to its object, values without a label;
 * the best candidate that converts to the property's type wins. Nested objects are searched in
 * their section, arrays from tables and lists (arrays.ts).
 */

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
  const resolve = shapeResolver(schema);
  const context: FillContext = { resolve, doc, depth: 0, prefixes: new WeakMap() };
  const whole: Scope = { start: 0, end: doc.lines.length, section: null, prefix: [] };
  return (yield* fillObject(resolve(schema), whole, context)) ?? {};
}

function* fillObject(
  shape: FieldShape,
  scope: Scope,
  context: FillContext,
): Steps<Record<string, unknown> | undefined> {
  const properties = asJson(shape.node.properties);
  const result: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(properties)) {
    const property = datedByName(name, context.resolve(raw));
    const phrases = phrasesOf(name, property.node, scope.prefix);
    const value = yield* fillProperty(name, property, phrases, scope, context);
    if (value !== undefined) result[name] = value;
    yield;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

function* fillProperty(
  name: string,
  shape: FieldShape,
  phrases: Phrase[],
  scope: Scope,
  context: FillContext,
): Steps<unknown> {
  const [kind] = shape.types;
  if (kind === 'object') {
    if (context.depth >= MAX_OBJECT_DEPTH) return undefined;
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
  let bestScore = MATCH_THRESHOLD;
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

function* fillScalar(
  name: string,
  shape: FieldShape,
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
    if (score < MATCH_THRESHOLD || ambiguous(fact)) continue;
    candidates.push({ value: fact.value, score: score * fact.weight, line: fact.line });
  }
  candidates.push(...(yield* prefixCandidates(phrases, scope, context)));
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
  context: FillContext,
): Steps<Candidate[]> {
  const { doc } = context;
  const out: Candidate[] = [];
  for (let i = scope.start; i < scope.end; i++) {
    if ((i - scope.start) % FACTS_PER_STEP === FACTS_PER_STEP - 1) yield;
    const line = doc.lines[i];
    // Lines with `Label: value` pairs were read as such already.
    if (!line || (line.kind !== 'text' && line.kind !== 'list') || doc.labelled.has(i)) continue;
    const words = line.text.split(' ');
    const prefixes = prefixTokens(line, context.prefixes);
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

/**
 * Tokens of the first 1..6 words of a line (all but the last word), computed once per line (kept
 * in `cache`); empty for a prefix that ends inside a multi-word term.
 */
function prefixTokens(line: DocLine, cache: WeakMap<DocLine, string[][]>): string[][] {
  const cached = cache.get(line);
  if (cached) return cached;
  const words = line.text.split(' ');
  const whole = labelTokens(line.text);
  // A prefix that cuts a multi-word term ("PO" of "PO Box") is no label: its tokens must begin
  // the line's own.
  const prefixes = Array.from({ length: Math.min(words.length - 1, 6) }, (_, k) => {
    const tokens = labelTokens(words.slice(0, k + 1).join(' '));
    return tokens.every((token, i) => whole[i] === token) ? tokens : [];
  });
  cache.set(line, prefixes);
  return prefixes;
}

/** Booleans from a box labelled with the property's name; enums from a group of boxes naming its values. */
function checkboxCandidates(
  shape: FieldShape,
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
        if (score >= MATCH_THRESHOLD)
          out.push({ value: box.checked ? 'yes' : 'no', score, line: box.line });
      }
    }
    if (options.length > 0) {
      const naming = group.boxes.filter((box) => matchEnum(box.label, options) !== undefined);
      const checked = naming.filter((box) => box.checked);
      const about = scoreLabel(phrases, labelTokens(group.context)) >= MATCH_THRESHOLD;
      const [only] = checked;
      if (only && checked.length === 1 && (naming.length >= 2 || about)) {
        out.push({ value: only.label, score: about ? 1 : 0.9, line: only.line });
      }
    }
  }
  return out;
}

/**
 * Values found without a label, inside a section matched to the enclosing object only: its first
 * line as a name, the lines after it as an address, the first phone number or email. Plus the
 * first heading for a document title.
 */
function fallbackCandidates(
  name: string,
  shape: FieldShape,
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
        doc.lines.find((line) => line.kind === 'heading' && parseHeading(line.raw)?.level === 1) ??
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
