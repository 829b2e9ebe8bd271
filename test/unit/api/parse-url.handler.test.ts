import { describe, expect, it } from 'vitest';
import { prefersRespondAsync } from '../../../functions/api/parse-url.handler.js';

describe('prefersRespondAsync', () => {
  it.each([
    ['the preference alone', 'respond-async'],
    ['another case', 'Respond-Async'],
    ['among other preferences', 'return=minimal, respond-async'],
    ['before others, with spaces', ' respond-async ,wait=10'],
    ['with a parameter', 'respond-async; x=1'],
    ['after a quoted value holding a comma', 'handling="lenient, strict", respond-async'],
  ])('finds respond-async given %s', (_, prefer) => {
    // Act
    const prefers = prefersRespondAsync({ prefer });
    // Assert
    expect(prefers).toBe(true);
  });

  it.each([
    ['no Prefer header', undefined],
    ['an empty header', ''],
    ['other preferences', 'return=minimal, wait=10'],
    ['a longer token', 'respond-asynchronously'],
    ['the token inside a quoted value', 'note="respond-async"'],
  ])('finds no respond-async given %s', (_, prefer) => {
    // Act
    const prefers = prefersRespondAsync(prefer === undefined ? {} : { prefer });
    // Assert
    expect(prefers).toBe(false);
  });
});
