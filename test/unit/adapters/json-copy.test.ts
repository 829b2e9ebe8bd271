import { describe, expect, it } from 'vitest';
import { copyJson } from '../../../functions/adapters/json-copy.js';

describe('copyJson', () => {
  it('copies nested objects and arrays, equal to the original and sharing none of it', () => {
    // Arrange
    const original = {
      id: 'req_1',
      count: 3,
      done: false,
      none: null,
      options: { dpi: null, modes: ['ocr', 'hybrid'] },
      routes: [{ pageNumber: 1, tier: 'fast' }],
    };
    // Act
    const copy = copyJson(original);
    copy.options.modes.push('extract');
    copy.routes[0]!.tier = 'slow';
    // Assert
    expect(original).toEqual({
      id: 'req_1',
      count: 3,
      done: false,
      none: null,
      options: { dpi: null, modes: ['ocr', 'hybrid'] },
      routes: [{ pageNumber: 1, tier: 'fast' }],
    });
    expect(copy).toEqual(
      structuredClone({
        ...original,
        options: { dpi: null, modes: ['ocr', 'hybrid', 'extract'] },
        routes: [{ pageNumber: 1, tier: 'slow' }],
      }),
    );
  });

  it('keeps a member named __proto__ as a member, as JSON.parse makes it', () => {
    // Arrange
    const original = JSON.parse('{"schema":{"__proto__":{"polluted":true}}}') as {
      schema: Record<string, unknown>;
    };
    // Act
    const copy = copyJson(original);
    // Assert
    expect(Object.getPrototypeOf(copy.schema)).toBe(Object.prototype);
    expect(Object.keys(copy.schema)).toEqual(['__proto__']);
    expect(JSON.stringify(copy)).toBe('{"schema":{"__proto__":{"polluted":true}}}');
    expect((copy.schema as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
