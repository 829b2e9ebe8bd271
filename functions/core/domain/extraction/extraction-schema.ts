import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { JsonSchemaObject } from '../../ports/structured-extractor.js';
import { InvalidExtractionSchemaError } from '../errors.js';
import type { ExtractionValidationError } from '../schemas.js';
import { countSearchedProperties } from './schema-shape.js';
import { safeRegExp, safeRegExpEngine, UnsupportedPatternError } from './safe-regex.js';

export { InvalidExtractionSchemaError };

/** Largest accepted `extraction_schema`, serialised as JSON (bytes of UTF-8). */
export const MAX_EXTRACTION_SCHEMA_BYTES = 64 * 1024;

/** Deepest JSON nesting accepted in a schema (about 30 levels of nested objects or arrays). */
export const MAX_EXTRACTION_SCHEMA_DEPTH = 64;

/**
 * Most properties a schema may have, counted where they are written (every `properties` entry)
 * and as the extractor searches them (once per place a `$ref`, `allOf`, `anyOf` or `oneOf`
 * brings them in, nested objects included). Filling and validating a schema is work in
 * proportion to this count: the bytes alone do not bound it, a short `$ref` brings in a whole
 * definition.
 */
export const MAX_EXTRACTION_SCHEMA_PROPERTIES = 500;

/** How many compiled schemas are kept; clients tend to send the same few schemas again and again. */
const CACHE_SIZE = 64;

/** The JSON Schema dialects an extraction schema may be written in. */
export type ExtractionSchemaDialect = '2020-12' | 'draft-07';

/** A checked and compiled `extraction_schema`. */
export interface CompiledExtractionSchema {
  /** The schema as the client sent it. */
  readonly schema: JsonSchemaObject;
  readonly dialect: ExtractionSchemaDialect;
  /**
   * Validates extracted data against the schema.
   *
   * Returns one entry per failed rule (deduplicated, in Ajv's order); empty when the data is
   * valid. Messages are built from the rule and the schema only, never from the data.
   */
  validate(data: unknown): ExtractionValidationError[];
}

type AjvInstance = Ajv | Ajv2020;

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020_12 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

// Patterns (`pattern`, `patternProperties`, `propertyNames`) come from clients: they run on RE2,
// in linear time, never on the backtracking `RegExp`. Referenced schemas are compiled once each
// and called, never inlined: inlined, a definition used N times is compiled N times. Each
// validator runs about once, so the code optimisation pass costs more than it saves.
const ajvOptions = {
  strict: false,
  allErrors: true,
  inlineRefs: false,
  code: { regExp: safeRegExpEngine, optimize: false },
} as const;
const validators: Record<ExtractionSchemaDialect, AjvInstance | undefined> = {
  '2020-12': undefined,
  'draft-07': undefined,
};

/** One Ajv per dialect for the process; each compiled schema is removed from it right away. */
function ajvFor(dialect: ExtractionSchemaDialect): AjvInstance {
  const existing = validators[dialect];
  if (existing) return existing;
  const ajv = dialect === 'draft-07' ? new Ajv(ajvOptions) : new Ajv2020(ajvOptions);
  addFormats.default(ajv);
  validators[dialect] = ajv;
  return ajv;
}

/** Least recently used compiled schemas, by their JSON text. */
const cache = new Map<string, CompiledExtractionSchema>();

const invalid = (reason: string, options?: ErrorOptions) =>
  new InvalidExtractionSchemaError(`extraction_schema ${reason}`, options);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks and compiles an `extraction_schema`.
 *
 * 1. It must be a JSON object of at most {@link MAX_EXTRACTION_SCHEMA_BYTES} serialised.
 * 2. `$schema` picks the dialect: draft-07 when it names draft-07, draft 2020-12 when it names
 *    2020-12 or is absent; any other dialect is refused.
 * 3. The root describes an object: `type: "object"`, or no `type` and a `properties` map.
 * 4. Every `$ref` is local (`#...`): the service never fetches schemas. Nesting is at most
 *    {@link MAX_EXTRACTION_SCHEMA_DEPTH} levels. Every `pattern` and `patternProperties` key
 *    can run on RE2 (linear time, see `safe-regex.ts`): no backreferences, no lookaround.
 * 5. It has at most {@link MAX_EXTRACTION_SCHEMA_PROPERTIES} properties, as written and as
 *    searched with its references expanded.
 * 6. The schema must be valid against its dialect's meta-schema, and compile.
 *
 * Compiled schemas are cached by their JSON text (least recently used, 64 entries).
 *
 * @example
 * const compiled = compileExtractionSchema({ type: 'object', properties: { total: { type: 'number' } } });
 * compiled.validate({ total: 'n/a' }); // [{ pointer: '/total', schema_rule: 'type', message: 'must be a number' }]
 * @throws {InvalidExtractionSchemaError} (422) saying what is wrong.
 */
export function compileExtractionSchema(schema: unknown): CompiledExtractionSchema {
  if (!isPlainObject(schema)) {
    throw invalid('must be a JSON object describing the fields to extract');
  }
  const text = serialise(schema);
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_EXTRACTION_SCHEMA_BYTES) {
    throw invalid(
      `is ${bytes} bytes as JSON, more than the ${MAX_EXTRACTION_SCHEMA_BYTES} allowed; remove fields or descriptions`,
    );
  }
  const dialect = dialectOf(schema);
  checkRootIsObject(schema);
  checkLocalRefs(schema, '');
  checkPropertyCount(schema);
  const compiled = compile(schema, dialect);
  cache.set(text, compiled);
  if (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return compiled;
}

function serialise(schema: Record<string, unknown>): string {
  try {
    return JSON.stringify(schema);
  } catch (error) {
    // Only nesting far past any JSON a client can send makes the serialiser overflow; cycles
    // and BigInts come from callers in-process.
    const reason =
      error instanceof RangeError
        ? `nests deeper than ${String(MAX_EXTRACTION_SCHEMA_DEPTH)} levels; flatten it or reuse definitions with $ref`
        : 'is not plain JSON (it has a cycle or a value JSON cannot hold)';
    throw invalid(reason, { cause: error });
  }
}

function dialectOf(schema: Record<string, unknown>): ExtractionSchemaDialect {
  const declared = schema.$schema;
  if (declared === undefined) return '2020-12';
  if (typeof declared === 'string') {
    if (DRAFT_2020_12.test(declared)) return '2020-12';
    if (DRAFT_07.test(declared)) return 'draft-07';
  }
  throw invalid(
    'declares an unsupported $schema; use "https://json-schema.org/draft/2020-12/schema" or "http://json-schema.org/draft-07/schema#", or leave $schema out',
  );
}

function checkRootIsObject(schema: Record<string, unknown>): void {
  const { type } = schema;
  const objectType =
    type === 'object' || (Array.isArray(type) && type.length === 1 && type[0] === 'object');
  if (objectType || (type === undefined && isPlainObject(schema.properties))) return;
  throw invalid(
    'must describe an object at the root: set "type": "object" and list the fields under "properties"',
  );
}

/** Keywords whose values are data, not schemas: a `$ref` key inside them is not a reference. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

function checkLocalRefs(node: unknown, path: string, depth = 0): void {
  if (depth > MAX_EXTRACTION_SCHEMA_DEPTH) {
    throw invalid(
      `nests deeper than ${String(MAX_EXTRACTION_SCHEMA_DEPTH)} levels at ${path}; flatten it or reuse definitions with $ref`,
    );
  }
  if (Array.isArray(node)) {
    node.forEach((item, index) => {
      checkLocalRefs(item, `${path}/${String(index)}`, depth + 1);
    });
    return;
  }
  if (!isPlainObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    const at = `${path}/${escapePointerToken(key)}`;
    if ((key === '$ref' || key === '$dynamicRef') && typeof value === 'string') {
      if (!value.startsWith('#')) {
        throw invalid(
          `refers to another document at ${at}; only local references such as "#/$defs/address" are allowed, so inline the referenced schema under $defs`,
        );
      }
    } else if (!DATA_KEYWORDS.has(key)) {
      if (key === 'pattern' && typeof value === 'string') checkPattern(value, at);
      if (key === 'patternProperties' && isPlainObject(value)) {
        for (const pattern of Object.keys(value)) {
          checkPattern(pattern, `${at}/${escapePointerToken(pattern)}`);
        }
      }
      checkLocalRefs(value, at, depth + 1);
    }
  }
}

function checkPropertyCount(schema: Record<string, unknown>): void {
  const limit = MAX_EXTRACTION_SCHEMA_PROPERTIES;
  const written = countWrittenProperties(schema);
  if (written > limit) {
    throw invalid(
      `has ${String(written)} properties, more than the ${String(limit)} allowed (MAX_EXTRACTION_SCHEMA_PROPERTIES); split the extraction into several requests with smaller schemas`,
    );
  }
  if (countSearchedProperties(schema, limit) > limit) {
    throw invalid(
      `has more than ${String(limit)} properties (MAX_EXTRACTION_SCHEMA_PROPERTIES) once each $ref, allOf, anyOf and oneOf is expanded where it is used; reuse large definitions in fewer places, or split the extraction into several requests`,
    );
  }
}

/** The entries of every `properties` object in a schema. */
function countWrittenProperties(node: unknown): number {
  if (Array.isArray(node))
    return node.reduce<number>((n, item) => n + countWrittenProperties(item), 0);
  if (!isPlainObject(node)) return 0;
  let count = 0;
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) continue;
    if (key === 'properties' && isPlainObject(value)) count += Object.keys(value).length;
    count += countWrittenProperties(value);
  }
  return count;
}

/** Refuses, at `at` in the schema, a pattern the linear-time engine cannot run. */
function checkPattern(pattern: string, at: string): void {
  try {
    safeRegExp(pattern);
  } catch (error) {
    if (!(error instanceof UnsupportedPatternError)) throw error;
    throw invalid(`has a pattern at ${at} that cannot be used: ${error.message}`, {
      cause: error,
    });
  }
}

function compile(
  schema: Record<string, unknown>,
  dialect: ExtractionSchemaDialect,
): CompiledExtractionSchema {
  const ajv = ajvFor(dialect);
  // The instance already speaks the dialect; without `$schema` Ajv does not look the meta-schema
  // up by its (http or https, with or without `#`) address.
  const body = Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$schema'));
  // A valid meta-schema check makes the detail precise (a path in the schema), where compile
  // errors would only name the first problem Ajv trips over.
  const valid = ajv.validateSchema(body);
  if (valid !== true) {
    const [first] = ajv.errors ?? [];
    const where = first?.instancePath ? `${first.instancePath} ` : '';
    throw invalid(
      `is not a valid JSON Schema: ${where}${first?.message ?? 'it does not match the meta-schema'}`,
    );
  }
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(body);
  } catch (error) {
    throw invalid(`is not a valid JSON Schema: ${(error as Error).message}`, { cause: error });
  } finally {
    // The validator keeps working without the registry entry; removing it keeps the instance
    // from growing and lets another schema reuse the same $id.
    ajv.removeSchema(body);
  }
  return {
    schema,
    dialect,
    validate: (data) => {
      try {
        if (validate(data)) return [];
      } catch (error) {
        // A reference cycle that consumes no data (`a: { allOf: [{ $ref: "#/$defs/a" }] }`)
        // compiles, but recurses without end on any value.
        if (!(error instanceof RangeError)) throw error;
        throw invalid(
          'refers to itself without end (a $ref cycle that never reaches a property or item); break the cycle',
          { cause: error },
        );
      }
      return toValidationErrors(validate.errors ?? []);
    },
  };
}

/** RFC 6901 escaping of one reference token: `~` → `~0`, `/` → `~1`. */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Ajv errors → ExtractionValidationError entries, deduplicated.
 *
 * The pointer is Ajv's `instancePath` (already an RFC 6901 pointer), extended by the property
 * the rule is about for rules that name one (a missing required property, an extra property).
 */
export function toValidationErrors(errors: readonly ErrorObject[]): ExtractionValidationError[] {
  const seen = new Set<string>();
  const result: ExtractionValidationError[] = [];
  for (const error of errors) {
    const entry = {
      pointer: pointerOf(error),
      schema_rule: error.keyword,
      message: messageOf(error),
    };
    const key = JSON.stringify(entry);
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(entry);
  }
  return result;
}

function pointerOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const property =
    params.missingProperty ??
    params.additionalProperty ??
    params.unevaluatedProperty ??
    params.propertyName;
  return typeof property === 'string'
    ? `${error.instancePath}/${escapePointerToken(property)}`
    : error.instancePath;
}

const COMPARISONS: Readonly<Record<string, string>> = {
  '>=': 'greater than or equal to',
  '>': 'greater than',
  '<=': 'less than or equal to',
  '<': 'less than',
};

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

const typeName = (type: unknown): string =>
  typeof type === 'string' ? (TYPE_NAMES[type] ?? type) : 'of the declared type';

const shortJson = (value: unknown): string => {
  const text = JSON.stringify(value) as string | undefined;
  return text !== undefined && text.length <= 200 ? text : 'the schema fixes';
};

/** Allowed values from the schema, shown when short. */
function allowedValues(values: unknown): string {
  if (!Array.isArray(values)) return 'one of the allowed values';
  const text = values.map((value) => JSON.stringify(value)).join(', ');
  return text.length <= 200
    ? `one of the allowed values: ${text}`
    : `one of the ${String(values.length)} allowed values`;
}

/** Builds the message from the rule and its (schema-side) parameters only: never from the data. */
function messageOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const limit = (name: string) => String(params[name]);
  switch (error.keyword) {
    case 'required':
    case 'dependentRequired':
    case 'dependencies':
      return 'is required but missing';
    case 'type': {
      const types: unknown[] = Array.isArray(params.type)
        ? params.type
        : typeof params.type === 'string'
          ? params.type.split(',')
          : [params.type];
      return `must be ${types.map(typeName).join(' or ')}`;
    }
    case 'enum':
      return `must be ${allowedValues(params.allowedValues)}`;
    case 'const':
      return `must equal the constant ${shortJson(params.allowedValue)}`;
    case 'pattern':
      return `must match the pattern ${limit('pattern')}`;
    case 'format':
      return `must match the format "${limit('format')}"`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'formatMinimum':
    case 'formatMaximum':
    case 'formatExclusiveMinimum':
    case 'formatExclusiveMaximum':
      return `must be ${COMPARISONS[limit('comparison')] ?? limit('comparison')} ${limit('limit')}`;
    case 'multipleOf':
      return `must be a multiple of ${limit('multipleOf')}`;
    case 'minLength':
      return `must be at least ${limit('limit')} characters long`;
    case 'maxLength':
      return `must be at most ${limit('limit')} characters long`;
    case 'minItems':
      return `must have at least ${limit('limit')} items`;
    case 'maxItems':
      return `must have at most ${limit('limit')} items`;
    case 'uniqueItems':
      return `must not contain duplicate items (items ${limit('j')} and ${limit('i')} are equal)`;
    case 'minProperties':
      return `must have at least ${limit('limit')} properties`;
    case 'maxProperties':
      return `must have at most ${limit('limit')} properties`;
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return 'is not a property the schema allows';
    case 'additionalItems':
    case 'unevaluatedItems':
      return `must have at most ${limit('limit')} items`;
    case 'propertyNames':
      return 'has a property name the schema does not allow';
    case 'contains':
      return 'must contain at least one item matching the "contains" schema';
    case 'anyOf':
      return 'must match at least one of the "anyOf" schemas';
    case 'oneOf':
      return 'must match exactly one of the "oneOf" schemas';
    case 'not':
      return 'must not match the "not" schema';
    case 'if':
      return `must match the "${limit('failingKeyword')}" schema`;
    case 'false schema':
      return 'is not allowed by the schema';
    default:
      return `does not satisfy the "${error.keyword}" rule`;
  }
}
