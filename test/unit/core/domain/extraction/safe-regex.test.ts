import { describe, expect, it } from 'vitest';
import {
  safeRegExp,
  safeRegExpEngine,
  UnsupportedPatternError,
} from '../../../../../functions/core/domain/extraction/safe-regex.js';

/** Compiles `pattern` expecting a refusal, and returns the error. */
function refusal(pattern: string): UnsupportedPatternError {
  try {
    safeRegExp(pattern);
  } catch (error) {
    if (error instanceof UnsupportedPatternError) return error;
    throw error;
  }
  throw new Error(`the pattern ${pattern} was accepted`);
}

describe('safeRegExp', () => {
  it('runs a catastrophic-backtracking pattern in linear time', () => {
    // Arrange: on the backtracking engine this takes hours (each extra "a" doubles the time).
    const pattern = safeRegExp('^(a+)+$');
    const started = performance.now();
    // Act
    const matched = pattern.test(`${'a'.repeat(40)}!`);
    const long = pattern.test(`${'a'.repeat(100_000)}!`);
    // Assert
    expect(matched).toBe(false);
    expect(long).toBe(false);
    expect(pattern.test('aaaa')).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it.each([
    ['^[A-Z]{2}-\\d{4}$', ['AB-1234', 'ab-1234', 'AB-123']],
    ['\\bfoo\\b', ['a foo b', 'afoob']],
    // `.` excludes every ECMAScript line terminator, not only \n.
    ['^a.b$', ['axb', 'a\nb', 'a\rb', 'a\u2028b']],
    // `\s` is Unicode white space (no-break space, ideographic space), `\S` its complement.
    ['^\\s$', [' ', '\u00a0', '\u3000', 'x']],
    ['^\\S+$', ['abc', 'a\u00a0b']],
    ['^[\\s\\d]+$', ['1\u00a02', '1a']],
    ['^\\p{Letter}+$', ['Élan', 'abc1']],
    ['^\\p{Lu}\\p{Ll}+$', ['Élan', 'élan']],
    ['^\\p{Script=Greek}+$', ['αβγ', 'abc']],
    ['^\\u00e9$', ['é', 'e']],
    ['^\\u{1F600}$', ['😀', ':)']],
    ['^(?<year>\\d{4})-(?<month>\\d{2})$', ['2024-05', '2024-5']],
    ['^[^]$', ['\n', 'ab']],
    ['^a/b$', ['a/b', 'ab']],
  ])('matches %s as ECMAScript does', (source, inputs) => {
    // Arrange
    const pattern = safeRegExp(source);
    const native = new RegExp(source, 'u');
    // Act
    const results = inputs.map((input) => pattern.test(input));
    // Assert
    expect(results).toEqual(inputs.map((input) => native.test(input)));
  });

  it.each([
    ['(a)\\1', 'a backreference (`\\1`)'],
    ['(?<n>a)\\k<n>', 'a backreference (`\\k<n>`)'],
    ['a(?=b)', 'a lookahead'],
    ['a(?!b)', 'a negative lookahead'],
    ['(?<=a)b', 'a lookbehind'],
    ['(?<!a)b', 'a negative lookbehind'],
  ])('rejects %s, which needs backtracking, saying why', (source, why) => {
    // Act
    const error = refusal(source);
    // Assert
    expect(error.message).toContain(JSON.stringify(source));
    expect(error.reason).toContain(why);
    expect(error.reason).toMatch(/rewrite it without backreferences or lookaround/);
  });

  it('rejects a repetition count RE2 cannot run, with RE2 reason', () => {
    expect(refusal('^a{1001}$').reason).toMatch(/invalid repeat count.*up to 1000/);
  });

  it('rejects a string that is not an ECMAScript regular expression', () => {
    expect(refusal('[a-').reason).toMatch(/is not a valid ECMAScript regular expression/);
    expect(refusal('a\\').reason).toMatch(/is not a valid ECMAScript regular expression/);
  });

  it('rejects flags other than u', () => {
    expect(() => safeRegExp('a', 'g')).toThrow(UnsupportedPatternError);
  });

  it('shortens a long pattern in the message', () => {
    // Act
    const error = refusal(`(a)\\1${'b'.repeat(500)}`);
    // Assert
    expect(error.message.length).toBeLessThan(400);
    expect(error.message).toContain('…');
  });

  it('serves as Ajv code.regExp engine, with a stable key per pattern and flags', () => {
    // Act
    const compiled = safeRegExpEngine('^x+$', 'u');
    // Assert
    expect(safeRegExpEngine.code).toBe('safeRegExp');
    expect(compiled.toString()).toBe('/^x+$/u');
    expect(compiled.test('xxx')).toBe(true);
  });
});
