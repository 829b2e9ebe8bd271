import { distance } from 'fastest-levenshtein';
import {
  safeRegExp,
  type SafeRegExp,
  UnsupportedPatternError,
} from '../../core/domain/extraction/safe-regex.js';
import { shapeResolver, type Json, type Shape } from '../../core/domain/extraction/schema-shape.js';
import type { JsonSchemaObject } from '../../core/ports/structured-extractor.js';
import { labelTokens } from './label-matching.js';
import { cleanValue, plain } from './markdown-text.js';
import {
  dateShaped,
  EMAIL,
  parseBoolean,
  parseNumber,
  satisfiesFormat,
  toIsoDate,
} from './value-formats.js';

/**
 * Value coercion: extracted text converted to a property's type and format (`const`, `enum`,
 * numbers, booleans, strings with their `format`, `pattern` and lengths), or refused; "N/A" as
 * null where the schema allows it.
 */

/**
 * The shape of a property as the extractor fills it: a string property without `format` whose
 * name says it holds a date (`date`, `ship_date`) is marked `dateByName`, and takes no value that
 * reads as an amount (see {@link datedByName}).
 */
export interface FieldShape extends Shape {
  dateByName?: boolean;
}

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
  return coerce(text, shapeResolver(root)(schema));
}

/** {@link coerceValue} for a resolved shape. */
export function coerce(text: string, shape: FieldShape): Coerced {
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
 * `shape` for the property `name`, marked {@link FieldShape.dateByName} when it is a plain string
 * (no `format`, `enum` or `const`) whose name has the word "date": a "Rate" column or label,
 * which the name matches as an OCR slip of "Date", then fills it with nothing rather than with
 * an amount.
 */
export function datedByName(name: string, shape: Shape): FieldShape {
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

const normalise = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '');

/** The allowed value `text` names: equal ignoring case and punctuation, else the unique close one. */
export function matchEnum(text: string, options: readonly unknown[]): unknown {
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

/** The non-null values of the property's `enum`, if any. */
export const enumOptions = (shape: Shape): unknown[] =>
  Array.isArray(shape.node.enum) ? shape.node.enum.filter((v) => v !== null) : [];
