import type { ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { AppError, ERROR_KIND_BY_NAME } from '../../../../../functions/core/domain/errors.js';
import {
  compileExtractionSchema,
  escapePointerToken,
  InvalidExtractionSchemaError,
  MAX_EXTRACTION_SCHEMA_BYTES,
  MAX_EXTRACTION_SCHEMA_PROPERTIES,
  toValidationErrors,
} from '../../../../../functions/core/domain/extraction/extraction-schema.js';
import { ExtractionValidationError } from '../../../../../functions/core/domain/schemas.js';

const SECRET = 'SECRET-12345';

const invoiceSchema = {
  type: 'object',
  properties: {
    invoice_number: { type: 'string', pattern: '^[0-9]+$' },
    total: { type: 'number', minimum: 0 },
    issued: { type: 'string', format: 'date' },
    terms: { enum: ['net 30', 'net 60'] },
    ship_from: {
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
    },
  },
  required: ['invoice_number', 'total'],
  additionalProperties: false,
};

/** Compiles `schema` expecting a refusal, and returns the error. */
function refusal(schema: unknown): InvalidExtractionSchemaError {
  try {
    compileExtractionSchema(schema);
  } catch (error) {
    if (error instanceof InvalidExtractionSchemaError) return error;
    throw error;
  }
  throw new Error('the schema was accepted');
}

describe('compileExtractionSchema', () => {
  it('accepts valid data with no errors', () => {
    // Arrange
    const compiled = compileExtractionSchema(invoiceSchema);
    // Act
    const errors = compiled.validate({
      invoice_number: '21099992723',
      total: 182.9,
      issued: '2021-09-13',
      terms: 'net 30',
      ship_from: { name: 'Example Pick Up Company' },
    });
    // Assert
    expect(errors).toEqual([]);
    expect(compiled.dialect).toBe('2020-12');
    expect(compiled.schema).toBe(invoiceSchema);
  });

  it('reports each failed rule with its pointer, rule name and a sentence', () => {
    // Arrange
    const compiled = compileExtractionSchema(invoiceSchema);
    // Act
    const errors = compiled.validate({
      invoice_number: 'A-17',
      total: '182.90',
      issued: '13/09/2021',
      terms: 'cash',
      ship_from: {},
      notes: 'x',
    });
    // Assert
    expect(errors).toEqual(
      expect.arrayContaining([
        {
          pointer: '/invoice_number',
          schema_rule: 'pattern',
          message: 'must match the pattern ^[0-9]+$',
        },
        { pointer: '/total', schema_rule: 'type', message: 'must be a number' },
        { pointer: '/issued', schema_rule: 'format', message: 'must match the format "date"' },
        {
          pointer: '/terms',
          schema_rule: 'enum',
          message: 'must be one of the allowed values: "net 30", "net 60"',
        },
        { pointer: '/ship_from/name', schema_rule: 'required', message: 'is required but missing' },
        {
          pointer: '/notes',
          schema_rule: 'additionalProperties',
          message: 'is not a property the schema allows',
        },
      ]),
    );
    expect(errors).toHaveLength(6);
    for (const error of errors) expect(ExtractionValidationError.parse(error)).toEqual(error);
  });

  it('points a missing top-level property at the property, and a wrong root at the empty pointer', () => {
    // Arrange
    const compiled = compileExtractionSchema(invoiceSchema);
    // Act
    const missing = compiled.validate({ invoice_number: '1' });
    const wrongRoot = compiled.validate([]);
    // Assert
    expect(missing).toEqual([
      { pointer: '/total', schema_rule: 'required', message: 'is required but missing' },
    ]);
    expect(wrongRoot).toContainEqual({
      pointer: '',
      schema_rule: 'type',
      message: 'must be an object',
    });
  });

  it('escapes "~" and "/" in pointers as RFC 6901 says', () => {
    // Arrange
    const compiled = compileExtractionSchema({
      type: 'object',
      properties: { 'a/b': { type: 'number' }, 'c~d': { type: 'object', required: ['e/f~g'] } },
      required: ['h/i'],
    });
    // Act
    const errors = compiled.validate({ 'a/b': 'x', 'c~d': {} });
    // Assert
    expect(errors.map((e) => e.pointer).sort()).toEqual(['/a~1b', '/c~0d/e~1f~0g', '/h~1i']);
    expect(escapePointerToken('~/~')).toBe('~0~1~0');
  });

  it('never puts the offending value in a message', () => {
    // Arrange
    const compiled = compileExtractionSchema({
      type: 'object',
      properties: {
        number: { type: 'number' },
        code: { type: 'string', pattern: '^[0-9]+$', maxLength: 5 },
        kind: { enum: ['a', 'b'] },
        fixed: { const: 'x' },
        day: { type: 'string', format: 'date' },
        email: { type: 'string', format: 'email' },
        list: { type: 'array', items: { type: 'integer' }, uniqueItems: true, maxItems: 1 },
        either: { anyOf: [{ type: 'integer' }, { type: 'boolean' }] },
        one: { oneOf: [{ type: 'string' }, { type: 'string', minLength: 1 }] },
        never: { not: { type: 'string' } },
      },
      additionalProperties: { type: 'number' },
    });
    const data = {
      number: SECRET,
      code: SECRET,
      kind: SECRET,
      fixed: SECRET,
      day: SECRET,
      email: SECRET,
      list: [SECRET, SECRET],
      either: SECRET,
      one: SECRET,
      never: SECRET,
      extra: SECRET,
    };
    // Act
    const errors = compiled.validate(data);
    // Assert
    expect(errors.length).toBeGreaterThanOrEqual(12);
    for (const error of errors) expect(error.message).not.toContain(SECRET);
    for (const error of errors) expect(error.message).not.toContain('12345');
  });

  it('lists each failure once', () => {
    // Arrange: both branches of allOf fail the same way.
    const compiled = compileExtractionSchema({
      type: 'object',
      allOf: [{ required: ['total'] }, { required: ['total'] }],
    });
    // Act
    const errors = compiled.validate({});
    // Assert
    expect(errors).toEqual([
      { pointer: '/total', schema_rule: 'required', message: 'is required but missing' },
    ]);
  });

  it('resolves local references under $defs', () => {
    // Arrange
    const compiled = compileExtractionSchema({
      type: 'object',
      $defs: { party: { type: 'object', required: ['name'] } },
      properties: { shipper: { $ref: '#/$defs/party' } },
    });
    // Act
    const errors = compiled.validate({ shipper: {} });
    // Assert
    expect(errors).toEqual([
      { pointer: '/shipper/name', schema_rule: 'required', message: 'is required but missing' },
    ]);
  });

  it('reads draft-07 when $schema says so, where an items array is a tuple', () => {
    // Arrange
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { amount: { type: 'number' } },
      properties: {
        pair: { type: 'array', items: [{ type: 'string' }, { $ref: '#/definitions/amount' }] },
      },
    };
    // Act
    const compiled = compileExtractionSchema(schema);
    const errors = compiled.validate({ pair: ['a', 'b'] });
    // Assert
    expect(compiled.dialect).toBe('draft-07');
    expect(errors).toEqual([
      { pointer: '/pair/1', schema_rule: 'type', message: 'must be a number' },
    ]);
  });

  it('reads draft 2020-12 without $schema, where prefixItems is the tuple and an items array is invalid', () => {
    // Arrange
    const tuple = {
      type: 'object',
      properties: {
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
      },
    };
    const draft07Tuple = {
      type: 'object',
      properties: { pair: { type: 'array', items: [{ type: 'string' }] } },
    };
    // Act
    const errors = compileExtractionSchema(tuple).validate({ pair: ['a', 'b'] });
    const refused = refusal(draft07Tuple);
    // Assert
    expect(errors).toEqual([
      { pointer: '/pair/1', schema_rule: 'type', message: 'must be a number' },
    ]);
    expect(refused.detail).toMatch(
      /^extraction_schema is not a valid JSON Schema: \/properties\/pair\/items /,
    );
  });

  it('accepts the 2020-12 and draft-07 addresses with either scheme and with or without "#"', () => {
    // Arrange
    const addresses = [
      'https://json-schema.org/draft/2020-12/schema',
      'http://json-schema.org/draft/2020-12/schema#',
      'http://json-schema.org/draft-07/schema',
      'https://json-schema.org/draft-07/schema#',
    ];
    // Act
    const dialects = addresses.map(
      (address) => compileExtractionSchema({ $schema: address, type: 'object' }).dialect,
    );
    // Assert
    expect(dialects).toEqual(['2020-12', '2020-12', 'draft-07', 'draft-07']);
  });

  it('checks 2020-12 keywords such as dependentRequired, and draft-07 dependencies', () => {
    // Arrange
    const modern = compileExtractionSchema({
      type: 'object',
      dependentRequired: { total: ['currency'] },
    });
    const legacy = compileExtractionSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      dependencies: { total: ['currency'] },
    });
    // Act
    const errors = [...modern.validate({ total: 1 }), ...legacy.validate({ total: 1 })];
    // Assert
    expect(errors).toEqual([
      {
        pointer: '/currency',
        schema_rule: 'dependentRequired',
        message: 'is required but missing',
      },
      { pointer: '/currency', schema_rule: 'dependencies', message: 'is required but missing' },
    ]);
  });

  it('writes a message for every common rule', () => {
    // Arrange
    const compiled = compileExtractionSchema({
      type: 'object',
      properties: {
        short: { type: 'string', minLength: 3 },
        long: { type: 'string', maxLength: 1 },
        few: { type: 'array', minItems: 2 },
        many: { type: 'array', maxItems: 0 },
        unique: { type: 'array', uniqueItems: true },
        empty: { type: 'object', minProperties: 1 },
        full: { type: 'object', maxProperties: 0 },
        step: { type: 'number', multipleOf: 5 },
        above: { type: 'number', exclusiveMinimum: 0 },
        below: { type: 'number', maximum: 10 },
        fixed: { const: 'x' },
        holds: { type: 'array', contains: { type: 'string' } },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        one: { oneOf: [{ type: 'number' }, { type: 'integer' }] },
        never: { not: { type: 'string' } },
        branch: { if: { type: 'string' }, then: { minLength: 2 } },
        nothing: false,
        keys: { type: 'object', propertyNames: { pattern: '^[a-z]+$' } },
        closed: { type: 'object', unevaluatedProperties: false },
        maybe: { type: ['string', 'null'] },
      },
    });
    // Act
    const errors = compiled.validate({
      short: 'ab',
      long: 'ab',
      few: [1],
      many: [1],
      unique: [1, 1],
      empty: {},
      full: { a: 1 },
      step: 7,
      above: 0,
      below: 11,
      fixed: 'y',
      holds: [1],
      either: true,
      one: 1,
      never: 's',
      branch: 'a',
      nothing: 1,
      keys: { A: 1 },
      closed: { z: 1 },
      maybe: 1,
    });
    const byPointer = Object.fromEntries(
      errors.map((e) => [`${e.pointer} ${e.schema_rule}`, e.message]),
    );
    // Assert
    expect(byPointer).toMatchObject({
      '/short minLength': 'must be at least 3 characters long',
      '/long maxLength': 'must be at most 1 characters long',
      '/few minItems': 'must have at least 2 items',
      '/many maxItems': 'must have at most 0 items',
      '/unique uniqueItems': 'must not contain duplicate items (items 0 and 1 are equal)',
      '/empty minProperties': 'must have at least 1 properties',
      '/full maxProperties': 'must have at most 0 properties',
      '/step multipleOf': 'must be a multiple of 5',
      '/above exclusiveMinimum': 'must be greater than 0',
      '/below maximum': 'must be less than or equal to 10',
      '/fixed const': 'must equal the constant "x"',
      '/holds contains': 'must contain at least one item matching the "contains" schema',
      '/either anyOf': 'must match at least one of the "anyOf" schemas',
      '/one oneOf': 'must match exactly one of the "oneOf" schemas',
      '/never not': 'must not match the "not" schema',
      '/branch if': 'must match the "then" schema',
      '/nothing false schema': 'is not allowed by the schema',
      '/keys/A propertyNames': 'has a property name the schema does not allow',
      '/closed/z unevaluatedProperties': 'is not a property the schema allows',
      '/maybe type': 'must be a string or null',
    });
  });

  it('shortens long lists of allowed values and constants', () => {
    // Arrange
    const values = Array.from({ length: 60 }, (_, i) => `value-${String(i)}`);
    const compiled = compileExtractionSchema({
      type: 'object',
      properties: { kind: { enum: values }, fixed: { const: 'x'.repeat(300) } },
    });
    // Act
    const errors = compiled.validate({ kind: 'other', fixed: 'y' });
    // Assert
    expect(errors.map((e) => e.message)).toEqual([
      'must be one of the 60 allowed values',
      'must equal the constant the schema fixes',
    ]);
  });

  it('caches compiled schemas by their JSON text', () => {
    // Arrange
    const first = compileExtractionSchema({
      type: 'object',
      properties: { cached: { type: 'string' } },
    });
    // Act
    const again = compileExtractionSchema({
      type: 'object',
      properties: { cached: { type: 'string' } },
    });
    // Assert
    expect(again).toBe(first);
  });

  it('keeps the 64 most recently used schemas', () => {
    // Arrange
    const schemaOf = (i: number) => ({ type: 'object', properties: { [`lru_${String(i)}`]: {} } });
    const kept = compileExtractionSchema(schemaOf(-1));
    const evicted = compileExtractionSchema(schemaOf(-2));
    for (let i = 0; i < 62; i++) compileExtractionSchema(schemaOf(i));
    // Act: using `kept` makes it the most recent, so `evicted` is the oldest when room is needed.
    const hit = compileExtractionSchema(schemaOf(-1));
    compileExtractionSchema(schemaOf(100));
    compileExtractionSchema(schemaOf(101));
    // Assert
    expect(hit).toBe(kept);
    expect(compileExtractionSchema(schemaOf(-1))).toBe(kept);
    expect(compileExtractionSchema(schemaOf(-2))).not.toBe(evicted);
  });

  it('compiles two different schemas that share an $id', () => {
    // Arrange
    const a = { $id: 'https://example.com/invoice', type: 'object', required: ['a'] };
    const b = { $id: 'https://example.com/invoice', type: 'object', required: ['b'] };
    // Act
    const errors = [
      ...compileExtractionSchema(a).validate({}),
      ...compileExtractionSchema(b).validate({}),
    ];
    // Assert
    expect(errors.map((e) => e.pointer)).toEqual(['/a', '/b']);
  });

  it('accepts a root without type when it lists properties, and a type array of only "object"', () => {
    // Act
    const untyped = compileExtractionSchema({ properties: { a: { type: 'string' } } });
    const listed = compileExtractionSchema({ type: ['object'], properties: {} });
    // Assert
    expect(untyped.validate({ a: 1 })).toHaveLength(1);
    expect(listed.validate({})).toEqual([]);
  });

  it('does not read $ref inside const, enum, default or examples as a reference', () => {
    // Act
    const compiled = compileExtractionSchema({
      type: 'object',
      properties: {
        link: { const: { $ref: 'https://example.com/x' }, default: { $ref: 'x.json' } },
      },
    });
    // Assert
    expect(compiled.validate({ link: { $ref: 'https://example.com/x' } })).toEqual([]);
  });
});

describe('compileExtractionSchema refusals', () => {
  it.each([
    ['an array', [], 'must be a JSON object describing the fields to extract'],
    ['a string', '{"type":"object"}', 'must be a JSON object describing the fields to extract'],
    ['null', null, 'must be a JSON object describing the fields to extract'],
  ])('throws InvalidExtractionSchemaError for %s', (_name, schema, detail) => {
    // Act
    const error = refusal(schema);
    // Assert
    expect(error.detail).toBe(`extraction_schema ${detail}`);
  });

  it.each([
    ['a string root', { type: 'string' }],
    ['an array root', { type: 'array', items: {} }],
    ['a nullable object root', { type: ['object', 'null'] }],
    ['no type and no properties', { required: ['a'] }],
  ])('throws InvalidExtractionSchemaError for %s', (_name, schema) => {
    // Act
    const error = refusal(schema);
    // Assert
    expect(error.detail).toBe(
      'extraction_schema must describe an object at the root: set "type": "object" and list the fields under "properties"',
    );
  });

  it('throws InvalidExtractionSchemaError for a schema over 64 KB', () => {
    // Arrange
    const schema = {
      type: 'object',
      properties: {
        notes: { type: 'string', description: 'x'.repeat(MAX_EXTRACTION_SCHEMA_BYTES) },
      },
    };
    // Act
    const error = refusal(schema);
    // Assert
    expect(error.detail).toMatch(
      /^extraction_schema is \d+ bytes as JSON, more than the 65536 allowed/,
    );
  });

  it.each([
    ['an https address', 'https://example.com/schemas/party.json'],
    ['a relative file', 'party.json#/$defs/party'],
  ])('throws InvalidExtractionSchemaError for a $ref to %s', (_name, ref) => {
    // Arrange
    const schema = {
      type: 'object',
      properties: { parties: { type: 'array', items: { $ref: ref } } },
    };
    // Act
    const error = refusal(schema);
    // Assert
    expect(error.detail).toContain('refers to another document at /properties/parties/items/$ref');
    expect(error.detail).toContain('only local references');
  });

  it('throws InvalidExtractionSchemaError for a remote $dynamicRef', () => {
    // Act
    const error = refusal({
      type: 'object',
      properties: { a: { $dynamicRef: 'https://x.org/s' } },
    });
    // Assert
    expect(error.detail).toContain('refers to another document at /properties/a/$dynamicRef');
  });

  it('throws InvalidExtractionSchemaError for a schema nested deeper than 64 levels', () => {
    // Arrange
    const nest = (levels: number) => {
      let schema: Record<string, unknown> = { type: 'string' };
      for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema } };
      return schema;
    };
    // Act
    const deep = refusal(nest(40));
    const overflowing = refusal(nest(20_000));
    // Assert
    expect(deep.detail).toMatch(
      /^extraction_schema nests deeper than 64 levels at \/properties\/a/,
    );
    expect(overflowing.detail).toMatch(/^extraction_schema nests deeper than 64 levels;/);
    expect(compileExtractionSchema(nest(25)).validate({ a: {} })).toEqual([]);
  });

  it('throws InvalidExtractionSchemaError for a value that is not JSON', () => {
    // Arrange
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    // Act
    const error = refusal(cyclic);
    // Assert
    expect(error.detail).toBe(
      'extraction_schema is not plain JSON (it has a cycle or a value JSON cannot hold)',
    );
  });

  it('throws InvalidExtractionSchemaError when a reference cycle makes validation recurse without end', () => {
    // Arrange
    const compiled = compileExtractionSchema({
      type: 'object',
      $defs: { loop: { allOf: [{ $ref: '#/$defs/loop' }] } },
      properties: { x: { $ref: '#/$defs/loop' } },
    });
    // Act
    const act = () => compiled.validate({ x: 1 });
    // Assert
    expect(act).toThrow(InvalidExtractionSchemaError);
    expect(act).toThrow(/refers to itself without end/);
    expect(compiled.validate({})).toEqual([]);
  });

  it('accepts a recursive schema whose cycle goes through properties', () => {
    // Arrange
    const compiled = compileExtractionSchema({
      type: 'object',
      $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } },
      properties: { tree: { $ref: '#/$defs/node' } },
    });
    // Act
    const errors = compiled.validate({ tree: { child: { child: 1 } } });
    // Assert
    expect(errors).toEqual([
      { pointer: '/tree/child/child', schema_rule: 'type', message: 'must be an object' },
    ]);
  });

  it('throws InvalidExtractionSchemaError for an unsupported $schema', () => {
    // Act
    const error = refusal({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' });
    // Assert
    expect(error.detail).toContain('declares an unsupported $schema');
  });

  it('throws InvalidExtractionSchemaError naming the bad keyword', () => {
    // Act
    const error = refusal({ type: 'object', properties: { total: { type: 'nmber' } } });
    // Assert
    expect(error.detail).toBe(
      'extraction_schema is not a valid JSON Schema: /properties/total/type must be equal to one of the allowed values',
    );
    expect(error.message).toBe(error.detail);
  });

  it('throws InvalidExtractionSchemaError for a local reference that leads nowhere', () => {
    // Act
    const error = refusal({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } });
    // Assert
    expect(error.detail).toMatch(
      /^extraction_schema is not a valid JSON Schema: .*#\/\$defs\/missing/,
    );
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('accepts a schema of MAX_EXTRACTION_SCHEMA_PROPERTIES (500) properties', () => {
    // Arrange
    const properties = Object.fromEntries(
      Array.from({ length: MAX_EXTRACTION_SCHEMA_PROPERTIES }, (_, i) => [
        `field_${String(i)}`,
        {},
      ]),
    );
    // Act
    const compiled = compileExtractionSchema({ type: 'object', properties });
    // Assert
    expect(MAX_EXTRACTION_SCHEMA_PROPERTIES).toBe(500);
    expect(compiled.validate({ field_0: 'x' })).toEqual([]);
  });

  it('throws InvalidExtractionSchemaError naming MAX_EXTRACTION_SCHEMA_PROPERTIES for 501 properties written out', () => {
    // Arrange: 300 at the root and 201 under a definition no property uses
    const fields = (n: number, prefix: string) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${String(i)}`, {}]));
    // Act
    const error = refusal({
      type: 'object',
      properties: fields(300, 'a'),
      $defs: { unused: { type: 'object', properties: fields(201, 'b') } },
    });
    // Assert
    expect(error.kind).toBe('unprocessable');
    expect(error.detail).toBe(
      'extraction_schema has 501 properties, more than the 500 allowed (MAX_EXTRACTION_SCHEMA_PROPERTIES); split the extraction into several requests with smaller schemas',
    );
  });

  it('throws InvalidExtractionSchemaError for a 16 KB schema using a 300-property definition in 300 places', () => {
    // Arrange: 600 properties written, 90,300 once the references are expanded
    const big = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`b${String(i)}`, { type: 'string' }]),
    );
    const uses = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`x${String(i)}`, { $ref: '#/$defs/big' }]),
    );
    const schema = { type: 'object', $defs: { big: { type: 'object', properties: big } } };
    // Act
    const written = refusal({ ...schema, properties: uses });
    const expanded = refusal({
      ...schema,
      properties: Object.fromEntries(Object.entries(uses).slice(0, 150)),
    });
    // Assert
    expect(written.detail).toMatch(/^extraction_schema has 600 properties/);
    expect(expanded.detail).toBe(
      'extraction_schema has more than 500 properties (MAX_EXTRACTION_SCHEMA_PROPERTIES) once each $ref, allOf, anyOf and oneOf is expanded where it is used; reuse large definitions in fewer places, or split the extraction into several requests',
    );
  });

  it('throws InvalidExtractionSchemaError for a definition that includes itself three times over', () => {
    // Arrange: a tree of nodes of three children each, searched eight levels deep by the extractor
    const node = {
      type: 'object',
      properties: {
        label: { type: 'string' },
        left: { $ref: '#/$defs/node' },
        middle: { $ref: '#/$defs/node' },
        right: { $ref: '#/$defs/node' },
      },
    };
    // Act
    const error = refusal({
      type: 'object',
      $defs: { node },
      properties: { root: { $ref: '#/$defs/node' } },
    });
    // Assert
    expect(error.detail).toMatch(/more than 500 properties \(MAX_EXTRACTION_SCHEMA_PROPERTIES\)/);
  });

  it('throws an AppError of kind unprocessable (422), named for the pipeline', () => {
    // Act
    const error = refusal([]);
    // Assert
    expect(error).toBeInstanceOf(AppError);
    expect(error.kind).toBe('unprocessable');
    expect(error.name).toBe('InvalidExtractionSchemaError');
    expect(ERROR_KIND_BY_NAME.InvalidExtractionSchemaError).toBe('unprocessable');
  });
});

describe('toValidationErrors', () => {
  it('describes an unknown rule by its name', () => {
    // Arrange
    const error: ErrorObject = {
      keyword: 'x-custom',
      instancePath: '/a',
      schemaPath: '#/x-custom',
      params: {},
      message: `bad ${SECRET}`,
    };
    // Act
    const errors = toValidationErrors([error]);
    // Assert
    expect(errors).toEqual([
      { pointer: '/a', schema_rule: 'x-custom', message: 'does not satisfy the "x-custom" rule' },
    ]);
  });

  it('describes a type it does not know by the schema, and a draft-07 additionalItems failure', () => {
    // Arrange
    const errors: ErrorObject[] = [
      { keyword: 'type', instancePath: '', schemaPath: '#/type', params: { type: 'decimal' } },
      {
        keyword: 'type',
        instancePath: '',
        schemaPath: '#/type',
        params: { type: ['integer', 'null'] },
      },
      { keyword: 'type', instancePath: '', schemaPath: '#/type', params: {} },
      { keyword: 'additionalItems', instancePath: '/t', schemaPath: '#/a', params: { limit: 2 } },
      { keyword: 'enum', instancePath: '/e', schemaPath: '#/enum', params: {} },
    ];
    // Act
    const messages = toValidationErrors(errors).map((e) => e.message);
    // Assert
    expect(messages).toEqual([
      'must be decimal',
      'must be an integer or null',
      'must be of the declared type',
      'must have at most 2 items',
      'must be one of the allowed values',
    ]);
  });
});
