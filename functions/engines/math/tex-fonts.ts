/**
 * What the glyphs of TeX's math fonts stand for when a PDF gives their character codes rather
 * than Unicode (pdfTeX embeds Computer Modern and AMS fonts with their own encodings and often
 * no ToUnicode map, so a reader falls back to the code: `\u0010` for a `\Big(`, `Z` for a
 * display integral, `0` for a prime, `N` for a calligraphic N).
 *
 * Tables after the TeX encodings OML (CMMI), OMS (CMSY), OMX (CMEX) and the AMS fonts MSAM and
 * MSBM; metrics of CMEX glyphs after cmex10.tfm (height and depth in em; the glyphs hang below
 * their baseline).
 */

/** The family of a math font, by its PostScript name. */
export type TexFamily =
  | 'letters' // CMMI, LMMI: math italic letters and Greek (OML)
  | 'symbols' // CMSY, LMSY: operators, relations, calligraphic capitals (OMS)
  | 'extension' // CMEX, LMEX: big operators, sized delimiters, radicals (OMX)
  | 'ams-a' // MSAM
  | 'blackboard' // MSBM: blackboard bold capitals
  | 'fraktur' // EUFM, EUFB
  | 'script' // RSFS
  | 'bold-letters' // CMMIB, CMBSY
  | 'sans' // CMSS
  | 'bold' // CMBX
  | 'roman' // CMR and other text fonts
  | 'other';

const FAMILIES: readonly [RegExp, TexFamily][] = [
  [/^(?:cmmib|lmmib)\d/, 'bold-letters'],
  [/^(?:cmbsy)\d/, 'bold-letters'],
  [/^(?:cmmi|lmmi)\d/, 'letters'],
  [/^(?:cmsy|lmsy)\d/, 'symbols'],
  [/^(?:cmex|lmex)\d/, 'extension'],
  [/^msam\d/, 'ams-a'],
  [/^msbm\d/, 'blackboard'],
  [/^euf[mb]\d/, 'fraktur'],
  [/^rsfs\d/, 'script'],
  [/^(?:cmss|lmss)(?:bx)?\d/, 'sans'],
  [/^(?:cmbx|lmbx|cmb)\d/, 'bold'],
  [/^(?:cmr|lmr|cmsl|cmti|ecrm|sfrm)\d/, 'roman'],
];

/** Families of the font names met so far: a page asks for the family of each of its runs. */
const knownFamilies = new Map<string, TexFamily>();
/** Font names remembered at most; a process meets a few hundred at most in practice. */
const MAX_KNOWN_FAMILIES = 4096;

/** The TeX family of a font (`ABCDEF+CMSY10` is `symbols`); `other` for non-TeX fonts. */
export const texFamily = (fontName: string): TexFamily => {
  const known = knownFamilies.get(fontName);
  if (known !== undefined) return known;
  const name = fontName.replace(/^[A-Z]{6}\+/, '').toLowerCase();
  const family = FAMILIES.find(([pattern]) => pattern.test(name))?.[1] ?? 'other';
  if (knownFamilies.size >= MAX_KNOWN_FAMILIES) knownFamilies.clear();
  knownFamilies.set(fontName, family);
  return family;
};

/**
 * Whether text of a font is a name set in TeX's upright sans serif (`\\mathsf{AQ}`,
 * `\\mathsf{VaR}`, `\\mathsf{diag}`): a short word (four letters at most) of CMSS, not of its bold
 * (headings). Such names are part of a formula, not words of the text.
 */
export const isSansName = (fontName: string, text: string): boolean =>
  texFamily(fontName) === 'sans' && !/ssbx/i.test(fontName) && !/\p{L}{5,}/u.test(text);

/**
 * Whether text of a font is pieces of an over- or underbrace: codes 0x7A-0x7D of TeX's
 * extension font (`z` `{` `|` `}` as a reader gives them), set along the brace's length with
 * rules between them.
 */
export const isBracePiece = (fontName: string, text: string): boolean =>
  texFamily(fontName) === 'extension' && /^[z{|}]+$/.test(text.replace(/\s+/g, ''));

/** OML codes below 0x28 (Greek) and the symbols among its ASCII codes. */
const OML: Readonly<Record<number, string>> = {
  0x00: '\\Gamma',
  0x01: '\\Delta',
  0x02: '\\Theta',
  0x03: '\\Lambda',
  0x04: '\\Xi',
  0x05: '\\Pi',
  0x06: '\\Sigma',
  0x07: '\\Upsilon',
  0x08: '\\Phi',
  0x09: '\\Psi',
  0x0a: '\\Omega',
  0x0b: '\\alpha',
  0x0c: '\\beta',
  0x0d: '\\gamma',
  0x0e: '\\delta',
  0x0f: '\\epsilon',
  0x10: '\\zeta',
  0x11: '\\eta',
  0x12: '\\theta',
  0x13: '\\iota',
  0x14: '\\kappa',
  0x15: '\\lambda',
  0x16: '\\mu',
  0x17: '\\nu',
  0x18: '\\xi',
  0x19: '\\pi',
  0x1a: '\\rho',
  0x1b: '\\sigma',
  0x1c: '\\tau',
  0x1d: '\\upsilon',
  0x1e: '\\phi',
  0x1f: '\\chi',
  0x20: '\\psi',
  0x21: '\\omega',
  0x22: '\\varepsilon',
  0x23: '\\vartheta',
  0x24: '\\varpi',
  0x25: '\\varrho',
  0x26: '\\varsigma',
  0x27: '\\varphi',
  0x28: '\\leftharpoonup',
  0x29: '\\leftharpoondown',
  0x2a: '\\rightharpoonup',
  0x2b: '\\rightharpoondown',
  0x2e: '\\triangleright',
  0x2f: '\\triangleleft',
  0x3f: '\\star',
  0x40: '\\partial',
  0x5b: '\\flat',
  0x5c: '\\natural',
  0x5d: '\\sharp',
  0x5e: '\\smile',
  0x5f: '\\frown',
  0x60: '\\ell',
  0x7b: '\\imath',
  0x7c: '\\jmath',
  0x7d: '\\wp',
};

/**
 * Unicode a reader gives CMMI's Greek through the Adobe glyph list, which names TeX's `phi`
 * (the stroked ϕ, `\phi`) U+03C6 and its `epsilon` (the lunate ϵ, `\epsilon`) U+03B5: in a TeX
 * letters font these two pairs mean the other command.
 */
const OML_UNICODE: Readonly<Record<string, string>> = {
  φ: '\\phi',
  ϕ: '\\varphi',
  ε: '\\epsilon',
  ϵ: '\\varepsilon',
};

/** OMS: every code that is not ASCII text in CMSY (letters are calligraphic capitals). */
const OMS: Readonly<Record<number, string>> = {
  0x00: '-',
  0x01: '\\cdot',
  0x02: '\\times',
  0x03: '\\ast',
  0x04: '\\div',
  0x05: '\\diamond',
  0x06: '\\pm',
  0x07: '\\mp',
  0x08: '\\oplus',
  0x09: '\\ominus',
  0x0a: '\\otimes',
  0x0b: '\\oslash',
  0x0c: '\\odot',
  0x0d: '\\bigcirc',
  0x0e: '\\circ',
  0x0f: '\\bullet',
  0x10: '\\asymp',
  0x11: '\\equiv',
  0x12: '\\subseteq',
  0x13: '\\supseteq',
  0x14: '\\leq',
  0x15: '\\geq',
  0x16: '\\preceq',
  0x17: '\\succeq',
  0x18: '\\sim',
  0x19: '\\approx',
  0x1a: '\\subset',
  0x1b: '\\supset',
  0x1c: '\\ll',
  0x1d: '\\gg',
  0x1e: '\\prec',
  0x1f: '\\succ',
  0x20: '\\leftarrow',
  0x21: '\\rightarrow',
  0x22: '\\uparrow',
  0x23: '\\downarrow',
  0x24: '\\leftrightarrow',
  0x25: '\\nearrow',
  0x26: '\\searrow',
  0x27: '\\simeq',
  0x28: '\\Leftarrow',
  0x29: '\\Rightarrow',
  0x2a: '\\Uparrow',
  0x2b: '\\Downarrow',
  0x2c: '\\Leftrightarrow',
  0x2d: '\\nwarrow',
  0x2e: '\\swarrow',
  0x2f: '\\propto',
  0x30: '\\prime',
  0x31: '\\infty',
  0x32: '\\in',
  0x33: '\\ni',
  0x34: '\\bigtriangleup',
  0x35: '\\bigtriangledown',
  0x36: '\\not',
  0x37: '\\mapstochar',
  0x38: '\\forall',
  0x39: '\\exists',
  0x3a: '\\neg',
  0x3b: '\\emptyset',
  0x3c: '\\Re',
  0x3d: '\\Im',
  0x3e: '\\top',
  0x3f: '\\perp',
  0x40: '\\aleph',
  0x5b: '\\cup',
  0x5c: '\\cap',
  0x5d: '\\uplus',
  0x5e: '\\wedge',
  0x5f: '\\vee',
  0x60: '\\vdash',
  0x61: '\\dashv',
  0x62: '\\lfloor',
  0x63: '\\rfloor',
  0x64: '\\lceil',
  0x65: '\\rceil',
  0x66: '\\{',
  0x67: '\\}',
  0x68: '\\langle',
  0x69: '\\rangle',
  0x6a: '|',
  0x6b: '\\|',
  0x6c: '\\updownarrow',
  0x6d: '\\Updownarrow',
  0x6e: '\\setminus',
  0x6f: '\\wr',
  0x70: '\\surd',
  0x71: '\\amalg',
  0x72: '\\nabla',
  0x73: '\\int',
  0x74: '\\sqcup',
  0x75: '\\sqcap',
  0x76: '\\sqsubseteq',
  0x77: '\\sqsupseteq',
  0x78: '\\S',
  0x79: '\\dagger',
  0x7a: '\\ddagger',
  0x7b: '\\P',
  0x7c: '\\clubsuit',
  0x7d: '\\diamondsuit',
  0x7e: '\\heartsuit',
  0x7f: '\\spadesuit',
};

/** Accents of OT1 (CMR and the other text fonts of TeX) by their codes. */
export const OT1_ACCENTS: Readonly<Record<string, string>> = {
  '\u0012': '\\grave',
  '\u0013': '\\acute',
  '\u0014': '\\check',
  '\u0015': '\\breve',
  '\u0016': '\\bar',
  '^': '\\hat',
  '~': '\\tilde',
  '\u007f': '\\ddot',
  _: '\\dot',
};

/** MSAM codes of the relations papers use (the rest are rare). */
const MSAM: Readonly<Record<number, string>> = {
  0x03: '\\square',
  0x04: '\\blacksquare',
  0x06: '\\lozenge',
  0x0f: '\\vDash',
  0x10: '\\twoheadrightarrow',
  0x20: '\\rightsquigarrow',
  0x24: '\\circeq',
  0x25: '\\succsim',
  0x26: '\\gtrsim',
  0x27: '\\gtrapprox',
  0x28: '\\multimap',
  0x29: '\\therefore',
  0x2a: '\\because',
  0x2b: '\\doteqdot',
  0x2c: '\\triangleq',
  0x2d: '\\precsim',
  0x2e: '\\lesssim',
  0x2f: '\\lessapprox',
  0x34: '\\preccurlyeq',
  0x35: '\\leqq',
  0x36: '\\leqslant',
  0x37: '\\lessgtr',
  0x3c: '\\succcurlyeq',
  0x3d: '\\geqq',
  0x3e: '\\geqslant',
  0x3f: '\\gtrless',
};

/** OMS codes 0x00–0x1F (CMSY's operators and relations) as Unicode, in code order. */
const OMS_CONTROL = Array.from('−·×∗÷⋄±∓⊕⊖⊗⊘⊙◯∘•≍≡⊆⊇≤≥⪯⪰∼≈⊂⊃≪≫≺≻');
/** OML codes 0x00–0x1F (CMMI's Greek) as Unicode, in code order. */
const OML_CONTROL = Array.from('ΓΔΘΛΞΠΣΥΦΨΩαβγδϵζηθικλμνξπρστυϕχ');

/** Unicode's Control Pictures block: U+2400 + code pictures the control code (U+2420 is ␠). */
const CONTROL_PICTURES = 0x2400;

/**
 * The Unicode character of a code under 0x20 of CMSY (OMS) or CMMI (OML), as a reader without
 * the font's ToUnicode map gives it: these codes are glyphs (`⊙` is 0x0C of CMSY, `β` of CMMI),
 * not control characters, and five of them (0x09–0x0D) would otherwise read as white space.
 * CMEX (OMX) codes that would read as white space (0x09–0x0D: `\}`, `\langle`, `\rangle`, `|`,
 * `\|`; 0x20: the largest `(`) are given as their Control Pictures (U+2409..., U+2420), which
 * {@link omxCode} reads back. Undefined for other codes and families.
 *
 * @example
 * texControlChar(0x0c, 'symbols'); // '⊙'
 * texControlChar(0x0b, 'letters'); // 'α'
 * texControlChar(0x20, 'extension'); // '␠', read back by omxCode as 0x20
 */
export const texControlChar = (code: number, family: TexFamily): string | undefined => {
  if (family === 'extension') {
    return (code >= 0x09 && code <= 0x0d) || code === 0x20
      ? String.fromCodePoint(CONTROL_PICTURES + code)
      : undefined;
  }
  if (code < 0 || code >= 0x20) return undefined;
  if (family === 'symbols') return OMS_CONTROL[code];
  if (family === 'letters' || family === 'bold-letters') return OML_CONTROL[code];
  return undefined;
};

/**
 * The LaTeX of one character of a TeX math font, or undefined when the family gives it no
 * meaning of its own (it is then read as Unicode).
 *
 * @example
 * texGlyph('N', 'symbols'); // '\\mathcal{N}'
 * texGlyph('0', 'symbols'); // '\\prime'
 */
export const texGlyph = (ch: string, family: TexFamily): string | undefined => {
  if (/\s/.test(ch)) return undefined;
  // A reader cannot give code 0 (CMSY's minus, CMMI's Gamma) and gives U+FFFD instead.
  const code = ch === '\ufffd' && family !== 'other' ? 0 : (ch.codePointAt(0) ?? 0);
  switch (family) {
    case 'letters':
    case 'bold-letters':
      if (code < 0x80 && /[^A-Za-z0-9.,/<>:;()=+\-[\]|!*]/.test(ch)) return OML[code];
      return OML_UNICODE[ch];
    case 'symbols':
      if (/[A-Z]/.test(ch)) return `\\mathcal{${ch}}`;
      // `|`, `{`, `}` come as themselves through their glyph names.
      if (code < 0x80 && !/[|{}]/.test(ch)) return OMS[code];
      return undefined;
    case 'extension': {
      const glyph = omx(omxCode(ch));
      return glyph ? glyph.latex : undefined;
    }
    case 'ams-a':
      return code < 0x80 ? MSAM[code] : undefined;
    case 'blackboard':
      if (/[A-Z]/.test(ch)) return `\\mathbb{${ch}}`;
      if (ch === 'k') return '\\Bbbk';
      return undefined;
    case 'fraktur':
      return /[A-Za-z]/.test(ch) ? `\\mathfrak{${ch}}` : undefined;
    case 'script':
      return /[A-Z]/.test(ch) ? `\\mathscr{${ch}}` : undefined;
    case 'sans':
      return /[A-Za-z]/.test(ch) ? `\\mathsf{${ch}}` : undefined;
    case 'bold':
      if (ch.charCodeAt(0) <= 0x0a) return `\\mathbf{${OML[code] ?? ''}}`;
      return /[A-Za-z]/.test(ch) ? `\\mathbf{${ch}}` : undefined;
    case 'roman':
      // OT1 sets upright Greek capitals at the codes where OML sets italic ones (Θ is 0x02).
      return ch.charCodeAt(0) <= 0x0a ? OML[code] : undefined;
    case 'other':
      return undefined;
  }
};

/** What a CMEX glyph is. */
export type ExtensionKind =
  | 'open' // a sized opening delimiter
  | 'close' // a sized closing delimiter
  | 'middle' // a sized bar or slash
  | 'piece' // a piece of a delimiter built from several glyphs
  | 'operator' // a big operator
  | 'radical'
  | 'accent' // a wide hat or tilde, set over its base
  | 'brace'; // a piece of an over- or underbrace

/** A CMEX glyph: its meaning, kind, size command and metrics (em). */
export interface ExtensionGlyph {
  latex: string;
  kind: ExtensionKind;
  /** `\big`, `\Big`, `\bigg`, `\Bigg` for sized delimiters. */
  size?: string;
  /** For pieces: the delimiter they build (`(`, `]`, `\{`...) and whether it opens. */
  delimiter?: string;
  opens?: boolean;
  height: number;
  depth: number;
}

const SIZES = ['\\big', '\\Big', '\\bigg', '\\Bigg'] as const;
/** Total height of the four delimiter sizes, em (height 0.04 over the baseline). */
const SIZE_DEPTH = [1.16, 1.76, 2.36, 2.96] as const;
const OPEN = ['(', '[', '\\lfloor', '\\lceil', '\\{', '\\langle'] as const;
const CLOSE = [')', ']', '\\rfloor', '\\rceil', '\\}', '\\rangle'] as const;

const delimiter = (latex: string, size: number): ExtensionGlyph => {
  const index = OPEN.indexOf(latex as (typeof OPEN)[number]);
  const closing = CLOSE.indexOf(latex as (typeof CLOSE)[number]);
  const kind: ExtensionKind = index >= 0 ? 'open' : closing >= 0 ? 'close' : 'middle';
  return { latex, kind, size: SIZES[size], height: 0.04, depth: SIZE_DEPTH[size] ?? 1.16 };
};

/** OMX sized delimiters: code → [delimiter, size index]. */
const SIZED: Readonly<Record<number, readonly [string, number]>> = {
  0x00: ['(', 0],
  0x01: [')', 0],
  0x02: ['[', 0],
  0x03: [']', 0],
  0x04: ['\\lfloor', 0],
  0x05: ['\\rfloor', 0],
  0x06: ['\\lceil', 0],
  0x07: ['\\rceil', 0],
  0x08: ['\\{', 0],
  0x09: ['\\}', 0],
  0x0a: ['\\langle', 0],
  0x0b: ['\\rangle', 0],
  0x0e: ['/', 0],
  0x0f: ['\\backslash', 0],
  0x10: ['(', 1],
  0x11: [')', 1],
  0x12: ['(', 2],
  0x13: [')', 2],
  0x14: ['[', 2],
  0x15: [']', 2],
  0x16: ['\\lfloor', 2],
  0x17: ['\\rfloor', 2],
  0x18: ['\\lceil', 2],
  0x19: ['\\rceil', 2],
  0x1a: ['\\{', 2],
  0x1b: ['\\}', 2],
  0x1c: ['\\langle', 2],
  0x1d: ['\\rangle', 2],
  0x1e: ['/', 2],
  0x1f: ['\\backslash', 2],
  0x20: ['(', 3],
  0x21: [')', 3],
  0x22: ['[', 3],
  0x23: [']', 3],
  0x24: ['\\lfloor', 3],
  0x25: ['\\rfloor', 3],
  0x26: ['\\lceil', 3],
  0x27: ['\\rceil', 3],
  0x28: ['\\{', 3],
  0x29: ['\\}', 3],
  0x2a: ['\\langle', 3],
  0x2b: ['\\rangle', 3],
  0x2c: ['/', 3],
  0x2d: ['\\backslash', 3],
  0x2e: ['/', 1],
  0x2f: ['\\backslash', 1],
  0x44: ['\\langle', 1],
  0x45: ['\\rangle', 1],
  0x68: ['[', 1],
  0x69: [']', 1],
  0x6a: ['\\lfloor', 1],
  0x6b: ['\\rfloor', 1],
  0x6c: ['\\lceil', 1],
  0x6d: ['\\rceil', 1],
  0x6e: ['\\{', 1],
  0x6f: ['\\}', 1],
};

/** OMX pieces of extensible delimiters: code → [delimiter, opens, depth]. */
const PIECES: Readonly<Record<number, readonly [string, boolean, number]>> = {
  0x0c: ['|', false, 0.6],
  0x0d: ['\\|', false, 0.6],
  0x30: ['(', true, 1.8],
  0x31: [')', false, 1.8],
  0x32: ['[', true, 1.8],
  0x33: [']', false, 1.8],
  0x34: ['[', true, 1.8],
  0x35: [']', false, 1.8],
  0x36: ['[', true, 0.6],
  0x37: [']', false, 0.6],
  0x38: ['\\{', true, 0.9],
  0x39: ['\\}', false, 0.9],
  0x3a: ['\\{', true, 0.9],
  0x3b: ['\\}', false, 0.9],
  0x3c: ['\\{', true, 1.8],
  0x3d: ['\\}', false, 1.8],
  0x3e: ['\\{', true, 0.3],
  0x40: ['(', true, 1.8],
  0x41: [')', false, 1.8],
  0x42: ['(', true, 0.6],
  0x43: [')', false, 0.6],
};

/** OMX big operators: code → [command, depth]; text-style sizes first, display sizes after. */
const OPERATORS: Readonly<Record<number, readonly [string, number]>> = {
  0x46: ['\\bigsqcup', 1.0],
  0x47: ['\\bigsqcup', 1.4],
  0x48: ['\\oint', 1.11],
  0x49: ['\\oint', 2.22],
  0x4a: ['\\bigodot', 1.0],
  0x4b: ['\\bigodot', 1.4],
  0x4c: ['\\bigoplus', 1.0],
  0x4d: ['\\bigoplus', 1.4],
  0x4e: ['\\bigotimes', 1.0],
  0x4f: ['\\bigotimes', 1.4],
  0x50: ['\\sum', 1.0],
  0x51: ['\\prod', 1.0],
  0x52: ['\\int', 1.11],
  0x53: ['\\bigcup', 1.0],
  0x54: ['\\bigcap', 1.0],
  0x55: ['\\biguplus', 1.0],
  0x56: ['\\bigwedge', 1.0],
  0x57: ['\\bigvee', 1.0],
  0x58: ['\\sum', 1.4],
  0x59: ['\\prod', 1.4],
  0x5a: ['\\int', 2.22],
  0x5b: ['\\bigcup', 1.4],
  0x5c: ['\\bigcap', 1.4],
  0x5d: ['\\biguplus', 1.4],
  0x5e: ['\\bigwedge', 1.4],
  0x5f: ['\\bigvee', 1.4],
  0x60: ['\\coprod', 1.0],
  0x61: ['\\coprod', 1.4],
};

/** The CMEX glyph with this code (a reader's fallback to the raw code). */
/**
 * The OMX code of a character read from a CMEX font: a reader cannot give code 0 (`\big(`) and
 * gives U+FFFD instead; codes that would read as white space come as Control Pictures (see
 * {@link texControlChar}).
 */
export const omxCode = (ch: string): number => {
  const code = ch.codePointAt(0) ?? 0;
  if (code === 0xfffd) return 0;
  if ((code >= 0x2409 && code <= 0x240d) || code === 0x2420) return code - CONTROL_PICTURES;
  return code;
};

export const omx = (code: number): ExtensionGlyph | undefined => {
  const sized = SIZED[code];
  if (sized) return delimiter(sized[0], sized[1]);
  const piece = PIECES[code];
  if (piece) {
    return {
      latex: piece[0],
      kind: 'piece',
      delimiter: piece[0],
      opens: piece[1],
      height: 0,
      depth: piece[2],
    };
  }
  const operator = OPERATORS[code];
  if (operator) return { latex: operator[0], kind: 'operator', height: 0, depth: operator[1] };
  if (code >= 0x62 && code <= 0x67) {
    return {
      latex: code <= 0x64 ? '\\widehat' : '\\widetilde',
      kind: 'accent',
      height: 0.75,
      depth: 0,
    };
  }
  if (code >= 0x70 && code <= 0x73) {
    return { latex: '\\sqrt', kind: 'radical', height: 0.04, depth: SIZE_DEPTH[code - 0x70] ?? 1 };
  }
  if (code >= 0x74 && code <= 0x76)
    return { latex: '\\sqrt', kind: 'piece', height: 0, depth: 0.6 };
  if (code >= 0x7a && code <= 0x7d) return { latex: '', kind: 'brace', height: 0, depth: 0.12 };
  return undefined;
};

/** Unicode pieces of extensible delimiters (when a PDF maps CMEX or STIX pieces to Unicode). */
export const UNICODE_PIECES: Readonly<Record<string, readonly [string, boolean]>> = {
  '⎛': ['(', true],
  '⎜': ['(', true],
  '⎝': ['(', true],
  '⎞': [')', false],
  '⎟': [')', false],
  '⎠': [')', false],
  '⎡': ['[', true],
  '⎢': ['[', true],
  '⎣': ['[', true],
  '⎤': [']', false],
  '⎥': [']', false],
  '⎦': [']', false],
  '⎧': ['\\{', true],
  '⎨': ['\\{', true],
  '⎩': ['\\{', true],
  '⎪': ['\\{', true],
  '⎫': ['\\}', false],
  '⎬': ['\\}', false],
  '⎭': ['\\}', false],
};
