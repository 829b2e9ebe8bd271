import { describe, expect, it } from 'vitest';
import {
  compileExtractionSchema,
  InvalidExtractionSchemaError,
} from '../../../../functions/core/domain/extraction/extraction-schema.js';
import { fillSchema } from '../../../../functions/engines/extraction/fill-schema.js';
import { labelTokens } from '../../../../functions/engines/extraction/label-matching.js';
import { plain } from '../../../../functions/engines/extraction/markdown-text.js';
import { parseDocument } from '../../../../functions/engines/extraction/read-markdown.js';

/**
 * Patterns of an `extraction_schema` are the client's: on the backtracking engine `^(a+)+$`
 * against 30-odd "a"s and a "!" blocks the process for minutes. They must run in linear time
 * in validation and extraction alike, and what cannot is refused when the schema is compiled.
 */

const EVIL = '^(a+)+$';
const EVIL_TEXT = `${'a'.repeat(40)}!`;

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

describe('extraction_schema patterns in validation', () => {
  it('validates a pattern against text that makes it backtrack, at once', () => {
    // Arrange
    const compiled = compileExtractionSchema({
      type: 'object',
      properties: { name: { type: 'string', pattern: EVIL } },
    });
    const started = performance.now();
    // Act
    const errors = compiled.validate({ name: EVIL_TEXT });
    // Assert
    expect(errors).toEqual([
      { pointer: '/name', schema_rule: 'pattern', message: expect.any(String) as unknown },
    ]);
    expect(compiled.validate({ name: 'aaaa' })).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('matches patternProperties and propertyNames keys at once', () => {
    // Arrange
    const compiled = compileExtractionSchema({
      type: 'object',
      patternProperties: { [EVIL]: { type: 'number' } },
      propertyNames: { pattern: EVIL },
    });
    const started = performance.now();
    // Act
    const errors = compiled.validate({ [EVIL_TEXT]: 1 });
    // Assert
    expect(errors.map((error) => error.schema_rule)).toContain('propertyNames');
    expect(compiled.validate({ aaa: 'x' }).map((error) => error.schema_rule)).toEqual(['type']);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('rejects a pattern with a backreference, naming where it is, the pattern and why', () => {
    // Act
    const error = refusal({
      type: 'object',
      properties: { code: { type: 'string', pattern: '(a)\\1' } },
    });
    // Assert
    expect(error.kind).toBe('unprocessable');
    expect(error.message).toContain('/properties/code/pattern');
    expect(error.message).toContain('"(a)\\\\1"');
    expect(error.message).toMatch(/backreference/);
  });

  it('rejects lookaround in a patternProperties key and in a nested definition', () => {
    // Act
    const key = refusal({
      type: 'object',
      patternProperties: { '^x(?=y)': { type: 'string' } },
    });
    const nested = refusal({
      type: 'object',
      properties: { a: { $ref: '#/$defs/b' } },
      $defs: { b: { type: 'string', pattern: '(?<!x)y' } },
    });
    // Assert
    expect(key.message).toContain('/patternProperties/^x(?=y)');
    expect(key.message).toMatch(/lookahead/);
    expect(nested.message).toContain('/$defs/b/pattern');
    expect(nested.message).toMatch(/negative lookbehind/);
  });

  it('still accepts a property named "pattern" and patterns inside enum values', () => {
    // Act
    const compiled = compileExtractionSchema({
      type: 'object',
      properties: {
        pattern: { type: 'string' },
        style: { enum: [{ pattern: '(a)\\1' }] },
      },
    });
    // Assert
    expect(compiled.validate({ pattern: 'stripes' })).toEqual([]);
  });
});

describe('extraction_schema patterns in the offline extractor', () => {
  it('tests a pattern against text that makes it backtrack, at once, and leaves the field out', () => {
    // Arrange
    const schema = { type: 'object', properties: { name: { type: 'string', pattern: EVIL } } };
    const pages = [{ pageNumber: 1, markdown: `name: ${EVIL_TEXT}\n\nname ${EVIL_TEXT} x` }];
    const started = performance.now();
    // Act
    const filled = fillSchema(schema, pages);
    // Assert
    expect(filled).toEqual({});
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('still fills a value the pattern matches', () => {
    // Act
    const filled = fillSchema(
      { type: 'object', properties: { name: { type: 'string', pattern: EVIL } } },
      [{ pageNumber: 1, markdown: 'name: aaaa' }],
    );
    // Assert
    expect(filled).toEqual({ name: 'aaaa' });
  });
});

describe('the offline extractor on pathological document text', () => {
  it.each([
    ['autolink openers', '<a@'.repeat(5000)],
    ['tag openers', '<a'.repeat(50_000)],
    ['link openers', '[a'.repeat(50_000)],
    ['image openers', '![a]('.repeat(20_000)],
  ])('strips Markdown from a line of %s in linear time', (_, line) => {
    // Arrange: each of these took seconds (the first minutes) when a scan from every opener ran
    // to the end of the line.
    const started = performance.now();
    // Act
    const text = plain(line);
    // Assert
    expect(text.length).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('tokenises a label of unclosed parentheses in linear time', () => {
    const started = performance.now();
    expect(labelTokens(`${'('.repeat(50_000)}Total`)).toEqual(['total']);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('reads a table left open over 20,000 lines, and 20,000 labels alone on their lines, in linear time', () => {
    // Arrange
    const open = `<table>\n${Array.from({ length: 20_000 }, (_, i) => `row ${String(i)}`).join('\n')}`;
    const labels = Array.from({ length: 20_000 }, (_, i) => `Label ${String(i)}:`).join('\n');
    const started = performance.now();
    // Act
    const table = parseDocument([{ pageNumber: 1, markdown: open }]);
    const sections = parseDocument([{ pageNumber: 1, markdown: labels }]);
    // Assert
    expect(table.lines.length).toBeGreaterThan(0);
    expect(sections.sections).toHaveLength(20_000);
    expect(sections.sections[0]).toMatchObject({ line: 0, end: 1 });
    expect(performance.now() - started).toBeLessThan(4000);
  });
});
