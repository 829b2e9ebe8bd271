import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ValidationError } from '../../../../functions/core/domain/errors.js';
import { parseWith } from '../../../../functions/core/domain/validation.js';

describe('parseWith', () => {
  it('returns the parsed value', () => {
    // Act
    const value = parseWith('query', z.object({ n: z.coerce.number() }), { n: '3' });
    // Assert
    expect(value).toEqual({ n: 3 });
  });

  it('throws ValidationError with loc, msg, type and input for each issue', () => {
    // Arrange
    const schema = z.object({ a: z.string(), b: z.array(z.number()) });
    // Act
    const act = () => parseWith('body', schema, { b: [1, 'x'] });
    // Assert
    expect(act).toThrow(ValidationError);
    try {
      act();
    } catch (error) {
      expect((error as ValidationError).issues).toEqual([
        { loc: ['body', 'a'], msg: expect.any(String) as unknown, type: 'invalid_type' },
        {
          loc: ['body', 'b', 1],
          msg: expect.any(String) as unknown,
          type: 'invalid_type',
          input: [1, 'x'],
        },
      ]);
    }
  });
});
