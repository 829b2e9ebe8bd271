import { RegExpValidator } from '@eslint-community/regexpp';
import { RE2JS } from 're2js';

/**
 * Regular expressions written by clients (JSON Schema `pattern` and `patternProperties` in an
 * `extraction_schema`) run on RE2 (the `re2js` port), whose matching time is linear in the input:
 * no pattern can make a match backtrack for seconds and stall the event loop (ReDoS).
 *
 * JSON Schema patterns are ECMA-262 regular expressions. They are read with the ECMAScript grammar
 * (`u` flag, as Ajv compiles them) and translated to RE2 syntax, keeping ECMAScript's meaning where
 * the two differ: `.` excludes every line terminator, `\s` is Unicode white space, and long
 * Unicode property names (`\p{Letter}`, `\p{Script=Greek}`) become RE2's (`\p{L}`, `\p{Greek}`).
 * What RE2 cannot run (backreferences, lookahead, lookbehind, repetition counts above 1000) is
 * refused with {@link UnsupportedPatternError}, never run on the backtracking engine.
 */

/** A compiled pattern: the part of the `RegExp` interface that validation and extraction use. */
export interface SafeRegExp {
  /** The ECMAScript pattern as the client wrote it. */
  readonly source: string;
  readonly flags: string;
  /** Whether the pattern matches anywhere in `text` (unanchored, like `RegExp.prototype.test`). */
  test(text: string): boolean;
  toString(): string;
}

/** A pattern the service cannot run in linear time, or not a regular expression at all. */
export class UnsupportedPatternError extends Error {
  override readonly name = 'UnsupportedPatternError';
  /** The pattern as given. */
  readonly pattern: string;
  /** Why it is refused, as a phrase ("uses a backreference (`\1`)..."). */
  readonly reason: string;

  constructor(pattern: string, reason: string, options?: ErrorOptions) {
    super(`the pattern ${quotePattern(pattern)} ${reason}`, options);
    this.pattern = pattern;
    this.reason = reason;
  }
}

/** At most this many characters of a pattern are quoted in error messages. */
const QUOTED_PATTERN_CHARS = 120;

/** The pattern as a JSON string, shortened to {@link QUOTED_PATTERN_CHARS} characters. */
export function quotePattern(pattern: string): string {
  return JSON.stringify(
    pattern.length > QUOTED_PATTERN_CHARS ? `${pattern.slice(0, QUOTED_PATTERN_CHARS)}…` : pattern,
  );
}

/** How many compiled patterns are kept; a schema's patterns are tested again for every value. */
const CACHE_SIZE = 256;
const cache = new Map<string, SafeRegExp>();

/**
 * Compiles an ECMAScript pattern to run on RE2, in linear time in the length of the text tested.
 *
 * Only the flags `u` (how JSON Schema validators compile patterns) and none are accepted. Compiled
 * patterns are cached (least recently used, 256 entries).
 *
 * @example
 * safeRegExp('^(a+)+$', 'u').test(`${'a'.repeat(40)}!`); // false, in about a millisecond
 * @throws {UnsupportedPatternError} when the pattern is not a valid ECMAScript regular expression
 *   or uses what RE2 cannot run (backreferences, lookaround, repetition counts above 1000).
 */
export function safeRegExp(pattern: string, flags = 'u'): SafeRegExp {
  const key = `${flags}/${pattern}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  if (flags !== 'u' && flags !== '') {
    throw new UnsupportedPatternError(pattern, `has flags "${flags}"; only "u" is supported`);
  }
  const re2 = compileRe2(toRe2Syntax(pattern, flags === 'u'), pattern);
  const compiled: SafeRegExp = {
    source: pattern,
    flags,
    test: (text) => re2.test(text),
    toString: () => `/${pattern}/${flags}`,
  };
  cache.set(key, compiled);
  if (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return compiled;
}

/**
 * {@link safeRegExp} in the shape of Ajv's `code.regExp` option (`new Ajv({ code: { regExp } })`),
 * so that `pattern`, `patternProperties` and `propertyNames` patterns validate on RE2.
 * @throws {UnsupportedPatternError} from Ajv's `compile` for a pattern RE2 cannot run.
 */
export const safeRegExpEngine: ((pattern: string, flags: string) => SafeRegExp) & {
  code: string;
} = Object.assign((pattern: string, flags: string) => safeRegExp(pattern, flags), {
  // Ajv prints this only in standalone code, which the service does not generate.
  code: 'safeRegExp',
});

function compileRe2(re2Source: string, pattern: string): RE2JS {
  try {
    return RE2JS.compile(re2Source);
  } catch (error) {
    // RE2's own reasons: "invalid repeat count: `{1001}`", "invalid character class range:
    // `\p{Alphabetic}`", "expression too large".
    const detail = (error as Error).message.replace(/^error parsing regexp: /, '');
    throw new UnsupportedPatternError(
      pattern,
      `cannot run on the linear-time engine (RE2): ${detail}; RE2 allows repetition counts up to 1000 and Unicode general categories and scripts only`,
      { cause: error },
    );
  }
}

/** ECMAScript white space and line terminators (`\s`), as RE2 class items. */
const JS_SPACE =
  '\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
/** ECMAScript `.` without the `s` flag: anything but a line terminator. */
const JS_DOT = '[^\\n\\r\\x{2028}\\x{2029}]';

/** Long Unicode general category names (ECMAScript accepts them) → the short ones RE2 knows. */
const GENERAL_CATEGORIES: Readonly<Record<string, string>> = {
  Letter: 'L',
  Cased_Letter: 'LC',
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Mark: 'M',
  Combining_Mark: 'M',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Number: 'N',
  Decimal_Number: 'Nd',
  digit: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Punctuation: 'P',
  punct: 'P',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Symbol: 'S',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Other: 'C',
  Control: 'Cc',
  cntrl: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
  Unassigned: 'Cn',
};

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Reads `pattern` with the ECMAScript grammar and rewrites it in RE2 syntax.
 * @throws {UnsupportedPatternError} for invalid syntax, backreferences and lookaround.
 */
function toRe2Syntax(pattern: string, unicode: boolean): string {
  const edits: Edit[] = [];
  const refused: string[] = [];
  let classDepth = 0;
  const validator = new RegExpValidator({
    ecmaVersion: 2024,
    onBackreference: (start, end) => {
      refused.push(`a backreference (\`${pattern.slice(start, end)}\`)`);
    },
    onLookaroundAssertionEnter: (start, kind, negate) => {
      const open = pattern.slice(start, start + (kind === 'lookbehind' ? 4 : 3));
      refused.push(`a ${negate ? 'negative ' : ''}${kind} (\`${open}…)\`)`);
    },
    onCharacterClassEnter: () => {
      classDepth++;
    },
    onCharacterClassLeave: () => {
      classDepth--;
    },
    onAnyCharacterSet: (start, end) => {
      edits.push({ start, end, text: JS_DOT });
    },
    onEscapeCharacterSet: (start, end, kind, negate) => {
      if (kind !== 'space') return;
      // A negated `\S` inside a class keeps RE2's ASCII meaning: RE2 cannot subtract within a class.
      if (classDepth === 0) edits.push({ start, end, text: `[${negate ? '^' : ''}${JS_SPACE}]` });
      else if (!negate) edits.push({ start, end, text: JS_SPACE });
    },
    onUnicodePropertyCharacterSet: (start, end, _kind, key, value, negate) => {
      const p = negate ? 'P' : 'p';
      if ((key === 'General_Category' || key === 'gc') && value !== null) {
        edits.push({ start, end, text: `\\${p}{${GENERAL_CATEGORIES[value] ?? value}}` });
      } else if ((key === 'Script' || key === 'sc') && value !== null) {
        edits.push({ start, end, text: `\\${p}{${value}}` });
      }
    },
  });
  try {
    validator.validatePattern(pattern, 0, pattern.length, { unicode });
    // The grammar above may be newer than this Node's; the pattern must also compile here, as
    // Ajv's meta-schema checks it with `new RegExp`.
    new RegExp(pattern, unicode ? 'u' : '');
  } catch (error) {
    const detail = (error as Error).message.replace(/^Invalid regular expression: /, '');
    throw new UnsupportedPatternError(
      pattern,
      `is not a valid ECMAScript regular expression: ${detail}`,
      {
        cause: error,
      },
    );
  }
  if (refused.length > 0) {
    throw new UnsupportedPatternError(
      pattern,
      `uses ${refused.join(' and ')}, which only a backtracking engine can run; patterns run on RE2 (linear time), so rewrite it without backreferences or lookaround`,
    );
  }
  let rewritten = '';
  let at = 0;
  for (const edit of edits.sort((a, b) => a.start - b.start)) {
    rewritten += pattern.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  rewritten += pattern.slice(at);
  // `\uXXXX`, `\u{…}`, `\cX`, `(?<name>`, `[^]` and `/` in RE2's spelling.
  return RE2JS.translateRegExp(rewritten);
}
