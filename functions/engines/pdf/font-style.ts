/** Style flags read from a font's PostScript name (and pdf.js' own flags when it has them). */
export interface FontStyle {
  bold: boolean;
  italic: boolean;
  monospace: boolean;
  /** Math fonts (TeX math italic and symbols, Symbol, *Math). */
  math: boolean;
}

const BOLD =
  /bold|black|heavy|semibold|demibold|demi\b|extrabold|ultrabold|[-,]bd\b|(?:^|\+)(?:cm|sf|lm|ec)(?:bx|b|ssbx)\d/i;
const ITALIC = /italic|oblique|[-,]it\b|(?:^|\+)(?:cm|sf|lm|ec)(?:ti|sl|ssi|bxti|bxsl|itt)\d/i;
const MONO =
  /mono|courier|consol|menlo|inconsolata|typewriter|source ?code|code ?pro|lucida ?console|(?:^|\+)(?:cm|sf|lm|ec)(?:tt|sltt|itt|tcr)\d?/i;
const MATH = /(?:^|\+)(?:cmmi|cmsy|cmex|msbm|msam|eufm|rsfs|esint|stmary|wasy)|math|symbol/i;

/**
 * Derives bold/italic/monospace/math flags from a PostScript font name such as
 * `ABCDEF+Times-BoldItalic`, `SFBX1000` or `CourierNewPSMT`.
 *
 * @example
 * fontStyle('AAAAAD+SFBX1000'); // { bold: true, italic: false, monospace: false, math: false }
 */
export const fontStyle = (
  name: string,
  flags: { bold?: boolean; italic?: boolean; monospace?: boolean } = {},
): FontStyle => ({
  bold: flags.bold === true || BOLD.test(name),
  italic: flags.italic === true || ITALIC.test(name),
  monospace: flags.monospace === true || MONO.test(name),
  math: MATH.test(name),
});
