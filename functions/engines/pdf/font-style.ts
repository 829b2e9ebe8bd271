/** Style flags read from a font's PostScript name (and pdf.js' own flags when it has them). */
export interface FontStyle {
  bold: boolean;
  italic: boolean;
  monospace: boolean;
  /** Math fonts (TeX math italic and symbols, Symbol, *Math). */
  math: boolean;
  /**
   * Small-caps fonts (`CMCSC10`, `ECCC1000`, `LMRomanCaps10-Regular`, `Garamond-SmallCaps`,
   * `Sabon-RomanSC`): their lowercase codes draw small capital letters.
   */
  smallCaps: boolean;
}

/** What a font's descriptor (or the reader's own analysis of the font) says of its style. */
export interface FontFlags {
  /** `/Flags` bit 19 (ForceBold), or a `/FontWeight` (or weight from `/StemV`) of 700 or more. */
  bold?: boolean;
  /** `/Flags` bit 7 (Italic) or a non-zero `/ItalicAngle`. */
  italic?: boolean;
  /** `/Flags` bit 1 (FixedPitch). */
  monospace?: boolean;
  /** `/Flags` bit 18 (SmallCap). */
  smallCaps?: boolean;
}

const BOLD = /bold|black|heavy|semibold|demibold|demi\b|extrabold|ultrabold|[-,]bd\b/i;
const ITALIC = /italic|oblique|[-,]it\b/i;
const MONO =
  /mono|courier|consol|menlo|inconsolata|typewriter|source ?code|code ?pro|lucida ?console/i;
const MATH = /(?:^|\+)(?:cmmi|cmsy|cmex|msbm|msam|eufm|rsfs|esint|stmary|wasy)|math|symbol/i;
/**
 * Small-caps names: `SmallCaps`, `Caps` (Latin Modern's `LMRomanCaps10`), a final `-SC` and the
 * Adobe `RomanSC`, `ItalicSC`, `BoldSC`... style suffixes. A bare `SC` after a family name is
 * left alone: `NotoSansSC` and `SourceHanSerifSC` are Simplified Chinese.
 */
const SMALL_CAPS =
  /small-?caps|caps(?![a-z])|[-_,]sc$|(?:regular|roman|book|medium|light|semibold|demi|bold|black|italic|oblique)sc$/i;

/**
 * A TeX font name: Computer Modern (`CMR10`, `CMBX12`), its EC/TC encodings (`ECRM1000`), CM-Super
 * (`SFBX1000`) and Latin Modern's Type 1 names (`LMR10`). The family code between prefix and design
 * size (`r`, `bx`, `ti`, `sl`, `tt`, `ss`, `csc`, `mi`, ...) says the style.
 */
const TEX = /^(?:[A-Z]{6}\+)?(?:cm|ec|tc|sf|lm)([a-z]+?)\d{1,4}$/i;
/** Family codes of bold TeX fonts: `bx`, `b`, `ssbx`, `bxti`, `bxsl`, `mib`, `ssdc`, CM-Super `sx`/`xc`/`bi`/`xi`. */
const TEX_BOLD = /bx|^b$|^mib$|^bsy$|^ssdc$|^sx$|^xc$|^bi$|^xi$|^bxsc$/;
/** Italic and slanted TeX families: `ti`, `sl`, `it`, `itt`, `sltt`, `ssi`, `u`, `bxti`, CM-Super `si`/`bi`/`xi`. */
const TEX_ITALIC = /ti$|sl|^itt?$|^ssi$|^u$|^si$|^bi$|^xi$|^fi$/;
/** Typewriter TeX families: `tt`, `sltt`, `itt`, `vtt`. */
const TEX_MONO = /tt$/;
/** Caps-and-small-caps TeX families: `csc`, `bxsc`, EC and CM-Super `cc`, `sc`, `xc`, `oc`. */
const TEX_SMALL_CAPS = /^csc|sc$|^(?:cc|xc|oc)$/;

/**
 * Derives bold/italic/monospace/math/small-caps flags from a PostScript font name such as
 * `ABCDEF+Times-BoldItalic`, `SFBX1000` or `CourierNewPSMT`, and from what the font's descriptor
 * says (`flags`).
 *
 * A TeX font name is authoritative: its family code decides (`CMR10` is regular whatever the
 * descriptor's flags or stem width say, `CMBX10` bold, `CMTI10` and `CMSL10` italic, `CMTT10`
 * monospace, `CMCSC10` small caps; `CMMI10` is math, not italic). For other fonts the
 * descriptor's flags and the name's style words (Bold, Black, Semibold, Italic, Oblique, Mono,
 * Courier, SmallCaps, ...) both count.
 *
 * @example
 * fontStyle('AAAAAD+SFBX1000'); // bold; not italic, monospace, math or small caps
 * fontStyle('BZHKAA+CMCSC10'); // { smallCaps: true, bold: false, ... }
 * fontStyle('ABCDEF+CMR10', { bold: true }); // { bold: false, ... }: the name decides
 */
export const fontStyle = (name: string, flags: FontFlags = {}): FontStyle => {
  const math = MATH.test(name);
  const tex = TEX.exec(name.trim());
  if (tex) {
    const family = (tex[1] ?? '').toLowerCase();
    const mathFamily = math || /^(?:mi|sy|ex|bsy|mib|msam|msbm)$/.test(family);
    return {
      bold: TEX_BOLD.test(family),
      italic: !mathFamily && TEX_ITALIC.test(family),
      monospace: TEX_MONO.test(family),
      math: mathFamily,
      smallCaps: !mathFamily && TEX_SMALL_CAPS.test(family),
    };
  }
  return {
    bold: flags.bold === true || BOLD.test(name),
    italic: flags.italic === true || ITALIC.test(name),
    monospace: flags.monospace === true || MONO.test(name),
    math,
    smallCaps: !math && (flags.smallCaps === true || SMALL_CAPS.test(name.trim())),
  };
};
