import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ProviderUnavailableError } from '../../../functions/core/domain/errors.js';
import { parsedAnswer } from '../../../functions/providers/remote-provider.js';

const Answer = z.object({ content: z.array(z.object({ text: z.string() })) });

describe('parsedAnswer', () => {
  it('returns the answer read with the schema', () => {
    // Act
    const answer = parsedAnswer('p1', Answer, { content: [{ text: 'hi' }], extra: 1 });
    // Assert
    expect(answer).toEqual({ content: [{ text: 'hi' }] });
  });

  it('throws ProviderUnavailableError naming the path of the first violation', () => {
    // Act
    const read = () => parsedAnswer('p1', Answer, { content: [{ text: 3 }] });
    // Assert
    expect(read).toThrow(ProviderUnavailableError);
    expect(read).toThrow(/^provider p1 failed: malformed answer: content\.0\.text: /);
  });

  it('throws naming the root when the answer is not an object', () => {
    // Act
    const read = () => parsedAnswer('p1', Answer, 'hello');
    // Assert
    expect(read).toThrow(/malformed answer: \(root\): /);
  });
});
