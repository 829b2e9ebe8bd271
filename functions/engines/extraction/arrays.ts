import { asJson } from '../../core/domain/extraction/schema-shape.js';
import { coerce, datedByName, enumOptions, matchEnum, type FieldShape } from './coerce.js';
import type { ParsedDocument, Table } from './document-model.js';
import { sectionAt, within, type FillContext, type Scope } from './fill-scope.js';
import {
  labelTokens,
  MATCH_THRESHOLD,
  phrasesOf,
  scoreHeading,
  scoreLabel,
  type Phrase,
} from './label-matching.js';
import { dateShaped, EMAIL, toIsoDate } from './value-formats.js';

/**
 * Arrays: an array of objects from the table that best matches it (columns assigned to the item's
 * properties by header and by the shape of their cells, the table's continuation on later pages
 * included), an array of scalars from a list, a column or a group of checkboxes.
 */

/** The array property `shape` filled from the document, or undefined when nothing matches. */
export function fillArray(
  shape: FieldShape,
  phrases: Phrase[],
  scope: Scope,
  context: FillContext,
): unknown[] | undefined {
  const items = context.resolve(shape.node.items);
  const [kind] = items.types;
  if (kind === 'object') return arrayFromTables(items, phrases, scope, context);
  if (kind === 'array' || kind === undefined) return undefined;
  return arrayOfScalars(items, phrases, scope, context.doc);
}

interface ColumnPlan {
  table: Table;
  columns: Map<string, { index: number; shape: FieldShape }>;
  score: number;
  signature: string;
}

function arrayFromTables(
  items: FieldShape,
  phrases: readonly Phrase[],
  scope: Scope,
  context: FillContext,
): unknown[] | undefined {
  const { doc } = context;
  const properties = Object.entries(asJson(items.node.properties)).map(([name, raw]) => {
    const shape = datedByName(name, context.resolve(raw));
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
    const about = captionScore(phrases, doc, table);
    const coverage = plan.score / scalar.length;
    if (plan.columns.size === 0 || (coverage < 0.25 && about < MATCH_THRESHOLD)) continue;
    plans.push({ ...plan, score: coverage + (about >= MATCH_THRESHOLD ? 0.5 * about : 0) });
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

/**
 * How well a table or list is about the array: the better of its caption's match and that of the
 * heading of the section it stands in.
 */
function captionScore(
  phrases: readonly Phrase[],
  doc: ParsedDocument,
  block: { line: number; caption: string },
): number {
  const section = sectionAt(doc, block.line);
  return Math.max(
    scoreHeading(phrases, labelTokens(block.caption)),
    section ? scoreHeading(phrases, section.tokens) : 0,
  );
}

const signatureOf = (table: Table) => table.header.map((h) => labelTokens(h).join(' ')).join('|');

/**
 * Assigns item properties to table columns: by header name (a truncated header counts, weighed by
 * how many of the column's cells convert to the property's type), then, for dates and emails left
 * over, by the shape of the cells in a column no property claimed.
 */
function planColumns(
  table: Table,
  properties: readonly { name: string; shape: FieldShape; phrases: Phrase[] }[],
): ColumnPlan {
  const pairs: { name: string; index: number; score: number; shape: FieldShape }[] = [];
  const fit = (
    shape: FieldShape,
    index: number,
    test: (cell: string, shape: FieldShape) => boolean,
  ) => {
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
  const columns = new Map<string, { index: number; shape: FieldShape }>();
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

/** A test of cell shape for properties recognisable by their values: dates and emails. */
function shapeTestFor(name: string, shape: FieldShape): ((cell: string) => boolean) | undefined {
  const format = shape.node.format;
  if (format === 'email') return (cell) => EMAIL.test(cell);
  if (format === 'date' || format === 'date-time' || labelTokens(name).includes('date')) {
    return (cell) => toIsoDate(cell) !== undefined || dateShaped(cell);
  }
  return undefined;
}

function arrayOfScalars(
  items: FieldShape,
  phrases: readonly Phrase[],
  scope: Scope,
  doc: ParsedDocument,
): unknown[] | undefined {
  const sources: { score: number; values: string[] }[] = [];
  for (const list of doc.lists) {
    if (!within(scope, list.line)) continue;
    const score = captionScore(phrases, doc, list);
    if (score >= MATCH_THRESHOLD) sources.push({ score, values: list.items });
  }
  for (const table of doc.tables) {
    if (!within(scope, table.line)) continue;
    table.header.forEach((header, index) => {
      const score = scoreLabel(phrases, labelTokens(header));
      if (score >= MATCH_THRESHOLD)
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
