import type { PageFeatures } from '../ports/document-engine.js';
import type { DocumentFormat, DocumentTypeReport } from './schemas.js';

type DetectedType = DocumentTypeReport['detected'];

/**
 * The thresholds of {@link detectDocumentType}, each on a feature the engines measure
 * (`PageFeatures`). Nothing here reads the text itself: headings, exercises, citations or
 * invoice totals are not measured, so the types that depend on them are called with limited
 * confidence.
 */
export const DOCUMENT_TYPE_THRESHOLDS = {
  /** Least image coverage for a page without text to count as content (not blank). */
  minImageCoverage: 0.02,
  /** Least characters for a page to count as a text page (running headers alone have fewer). */
  minTextChars: 50,
  /**
   * Image coverage above which a page with a mostly invisible text layer is a scan under a
   * previous OCR pass (render mode 3), not a born-digital page: the text layer is a guess.
   */
  ocrLayerImageCoverage: 0.85,
  /** Share of invisible characters that marks such a previous OCR layer. */
  ocrLayerInvisibleShare: 0.5,
  /**
   * Share of content pages needing OCR from which the whole document is `image_or_scan`: past
   * half, what matters downstream (resolution, verification) is that it is made of images.
   */
  scanShare: 0.5,
  /** Width / height from which a page is landscape; 1.2 is below US Letter landscape (1.29). */
  landscapeAspect: 1.2,
  /** Screen aspects of slide decks: 4:3, 16:10 and 16:9. */
  screenAspects: [4 / 3, 16 / 10, 16 / 9] as readonly number[],
  /**
   * Relative tolerance on a screen aspect: 2% tells 4:3 (1.333) from US Letter (1.294) and A4
   * (1.414) landscape, which are print pages, not slides.
   */
  screenAspectTolerance: 0.02,
  /** Share of landscape pages below which a document is not a slide deck. */
  slideLandscapeShare: 0.6,
  /** Most characters on a slide: a text-heavy slide carries about 800, a printed page 2000+. */
  slideMaxChars: 1000,
  /**
   * Median characters per text page from which text is dense, as in a paper: a full page of
   * 9-10 pt type holds 2500-5000 characters; 1800 leaves room for a table or figure.
   */
  denseChars: 1800,
  /** Share of math-font characters from which a page carries math (25 glyphs in 2500). */
  mathCharRatio: 0.01,
  /** Share of math pages giving full math evidence: not every page of a paper has equations. */
  mathPageShare: 0.2,
  /** Median fonts per page of a paper: body, italic, bold, monospace, small or caption face. */
  paperFonts: 5,
  /** Most pages of a paper; longer documents with papers' features are theses or books. */
  paperMaxPages: 60,
  /**
   * Most confidence in a one-page paper: a single dense, two-column page may as well be an
   * excerpt of a manual, a textbook or a magazine laid out the same way.
   */
  singlePagePaperConfidence: 0.6,
  /** Most pages of an invoice or a form ("one or two pages"). */
  formMaxPages: 2,
  /** Median characters per text page below which text is short, as in a form or invoice. */
  formMaxChars: 1500,
  /** Least rule lines on a page of a form (boxes, fields and item tables are drawn). */
  formRules: 20,
  /** Median fonts per page of a form: labels, values, headings and small print. */
  formFonts: 4,
  /** Median text coverage below which a page leaves the white space of fields to fill. */
  formTextCoverage: 0.3,
  /** Least pages of a report or manual: "many pages" starts at three. */
  reportMinPages: 3,
  /** Pages at which the length evidence of a report is full. */
  reportFullPages: 20,
  /** Least share of single-column text pages of a report or manual. */
  reportSingleColumnShare: 0.5,
  /** Median fonts per page showing headings in their own face (body plus bold at least). */
  headingFonts: 3,
  /** Least pages of a textbook: a chapter excerpt cannot be told from a report. */
  textbookMinPages: 100,
  /** Pages at which the length evidence of a textbook is full. */
  textbookFullPages: 300,
  /** Least share of math pages of a textbook (exercises are not measured, math is). */
  textbookMathPageShare: 0.1,
  /** Least evidence score for a type to be named; below it the document is `unknown`. */
  minScore: 0.35,
  /** Runner-up evidence within this margin of the winner is named in the rationale. */
  closeMargin: 0.15,
} as const;

const T = DOCUMENT_TYPE_THRESHOLDS;

/**
 * Most confidence per type, for what the features cannot see: textbooks are told from reports
 * only by length and math, reports and forms by layout alone; slides and scans show plainly.
 */
const CONFIDENCE_CAP: Readonly<Record<DetectedType, number>> = {
  image_or_scan: 0.95,
  slide_deck: 0.95,
  academic_paper: 0.9,
  invoice_or_form: 0.8,
  report_manual: 0.8,
  textbook: 0.7,
  unknown: 0.3,
};

const IMAGE_FORMATS: ReadonlySet<DocumentFormat> = new Set(['png', 'jpeg', 'heic', 'tiff', 'webp']);

/** Document-level evidence, aggregated from the page features. */
interface Evidence {
  pageCount: number;
  /** Pages with text or images (blank pages left out). */
  content: PageFeatures[];
  /** Content pages that need OCR: no usable text layer, or a previous OCR layer over a scan. */
  scans: PageFeatures[];
  /** Born-digital content pages with at least `minTextChars` characters. */
  text: PageFeatures[];
  medianChars: number;
  medianFonts: number;
  medianTextCoverage: number;
  twoColumn: number;
  singleColumn: number;
  portrait: number;
  math: number;
  maxRules: number;
  landscape: number;
  screenAspect: number;
  sparse: number;
}

interface Candidate {
  type: DetectedType;
  /** Evidence in [0, 1]: the sum of the weights of what was measured. */
  score: number;
  /** The measured evidence, as a clause. */
  because: string;
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));
const round2 = (v: number): number => Math.round(v * 100) / 100;
const median = (values: number[]): number => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] ?? 0;
  return sorted.length % 2 ? upper : ((sorted[mid - 1] ?? 0) + upper) / 2;
};
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const share = (count: number, of: number): number => (of === 0 ? 0 : count / of);
const mathClause = (math: number): string =>
  math === 0 ? 'no math fonts' : `math fonts on ${plural(math, 'page')}`;

const isScan = (p: PageFeatures): boolean =>
  !p.usableTextLayer ||
  (p.imageCoverage >= T.ocrLayerImageCoverage && p.invisibleCharRatio >= T.ocrLayerInvisibleShare);

const aspectOf = (p: PageFeatures): number => (p.heightPt > 0 ? p.widthPt / p.heightPt : 0);

function measure(pages: readonly PageFeatures[]): Evidence {
  const content = pages.filter(
    (p) => p.textChars > 0 || p.imageCoverage >= T.minImageCoverage || isScan(p),
  );
  const scans = content.filter(isScan);
  const text = content.filter((p) => !isScan(p) && p.textChars >= T.minTextChars);
  const count = (list: PageFeatures[], test: (p: PageFeatures) => boolean) =>
    list.filter(test).length;
  return {
    pageCount: pages.length,
    content,
    scans,
    text,
    medianChars: Math.round(median(text.map((p) => p.textChars))),
    medianFonts: median(text.map((p) => p.fontCount)),
    medianTextCoverage: median(text.map((p) => p.textCoverage)),
    twoColumn: count(text, (p) => p.columnCount >= 2),
    singleColumn: count(text, (p) => p.columnCount <= 1),
    portrait: count(text, (p) => p.heightPt >= p.widthPt),
    math: count(text, (p) => p.mathCharRatio >= T.mathCharRatio),
    maxRules: text.reduce((max, p) => Math.max(max, p.ruleCount), 0),
    landscape: count(content, (p) => aspectOf(p) >= T.landscapeAspect),
    screenAspect: count(content, (p) =>
      T.screenAspects.some((a) => Math.abs(aspectOf(p) / a - 1) <= T.screenAspectTolerance),
    ),
    sparse: count(content, (p) => p.textChars < T.slideMaxChars),
  };
}

/** Math evidence in [0, 1]: full when math fonts are on `mathPageShare` of the text pages. */
const mathEvidence = (e: Evidence): number =>
  Math.min(1, share(e.math, e.text.length) / T.mathPageShare);

/**
 * Slides: landscape pages (gate: `slideLandscapeShare`). Weights: landscape share 0.45 (the
 * defining trait), screen aspect share 0.25 (4:3, 16:10, 16:9 rather than a print page turned
 * sideways), share of pages with little text 0.3 (slides carry few words).
 */
function slideDeck(e: Evidence): Candidate | undefined {
  const n = e.content.length;
  if (share(e.landscape, n) < T.slideLandscapeShare) return undefined;
  return {
    type: 'slide_deck',
    score:
      0.45 * share(e.landscape, n) + 0.25 * share(e.screenAspect, n) + 0.3 * share(e.sparse, n),
    because: `${e.landscape} of ${plural(n, 'page')} are landscape (${e.screenAspect} at a screen aspect 4:3, 16:10 or 16:9) and ${e.sparse} carry under ${T.slideMaxChars} characters`,
  };
}

/**
 * Papers: dense text on portrait pages, at most `paperMaxPages` (gates). Weights: dense text
 * 0.2 (the gate), two columns 0.35 and math fonts 0.3 (the distinctive traits, by share of
 * text pages), `paperFonts` faces or more 0.15. Dense text in many fonts alone scores 0.35: a
 * single-column paper excerpt is told from other dense pages by nothing measurable.
 */
function academicPaper(e: Evidence): Candidate | undefined {
  const n = e.text.length;
  const portrait = share(e.portrait, n) > 0.5;
  if (n === 0 || e.pageCount > T.paperMaxPages || !portrait || e.medianChars < T.denseChars) {
    return undefined;
  }
  const fonts = e.medianFonts >= T.paperFonts;
  return {
    type: 'academic_paper',
    score: 0.2 + 0.35 * share(e.twoColumn, n) + 0.3 * mathEvidence(e) + (fonts ? 0.15 : 0),
    because: `dense text (median ${e.medianChars} characters per page) on ${plural(n, 'portrait page')}, ${e.twoColumn === 0 ? 'single-column' : `two or more columns on ${e.twoColumn} of ${n}`}, ${mathClause(e.math)}, ${plural(e.medianFonts, 'font')} per page`,
  };
}

/**
 * Invoices and forms: one or two pages of short text with rule lines (gates). Weights: the
 * gates 0.55, `formFonts` faces or more 0.25 (labels, values, headings, small print), low text
 * coverage 0.2 (the white space of fields).
 */
function invoiceOrForm(e: Evidence): Candidate | undefined {
  const n = e.text.length;
  if (
    n === 0 ||
    e.pageCount > T.formMaxPages ||
    e.medianChars >= T.formMaxChars ||
    e.maxRules < T.formRules
  ) {
    return undefined;
  }
  return {
    type: 'invoice_or_form',
    score:
      0.55 +
      (e.medianFonts >= T.formFonts ? 0.25 : 0) +
      (e.medianTextCoverage < T.formTextCoverage ? 0.2 : 0),
    because: `short text (median ${e.medianChars} characters) on ${plural(e.pageCount, 'page')} with ${e.maxRules} rule lines, ${plural(e.medianFonts, 'font')} and ${Math.round(e.medianTextCoverage * 100)}% text coverage`,
  };
}

/**
 * Reports and manuals: `reportMinPages` or more, mostly single-column and portrait (gates).
 * Weights: single-column share 0.35, length 0.35 (full at `reportFullPages`), headings in their
 * own face 0.15, no math 0.15 (math moves the call towards a paper or a textbook).
 */
function reportManual(e: Evidence): Candidate | undefined {
  const n = e.text.length;
  const single = share(e.singleColumn, n);
  if (e.pageCount < T.reportMinPages || n === 0 || single < T.reportSingleColumnShare) {
    return undefined;
  }
  if (share(e.portrait, n) <= 0.5) return undefined;
  const length = Math.min(1, (e.pageCount - 2) / (T.reportFullPages - 2));
  return {
    type: 'report_manual',
    score:
      0.35 * single +
      0.35 * length +
      (e.medianFonts >= T.headingFonts ? 0.15 : 0) +
      0.15 * (1 - mathEvidence(e)),
    because: `${plural(e.pageCount, 'page')}, ${e.singleColumn} of ${n} text pages single-column, ${plural(e.medianFonts, 'font')} per page, ${mathClause(e.math)}`,
  };
}

/**
 * Textbooks: `textbookMinPages` or more portrait pages with math on `textbookMathPageShare` of the
 * text pages (gates: exercises and worked examples are not measured, length and math are). Weights:
 * length 0.4 (full at `textbookFullPages`), math 0.4, single-column share 0.2.
 */
function textbook(e: Evidence): Candidate | undefined {
  const n = e.text.length;
  const mathShare = share(e.math, n);
  if (
    e.pageCount < T.textbookMinPages ||
    mathShare < T.textbookMathPageShare ||
    share(e.portrait, n) <= 0.5
  ) {
    return undefined;
  }
  return {
    type: 'textbook',
    score:
      0.4 * Math.min(1, e.pageCount / T.textbookFullPages) +
      0.4 * mathEvidence(e) +
      0.2 * share(e.singleColumn, n),
    because: `${plural(e.pageCount, 'page')} with math fonts on ${Math.round(mathShare * 100)}% of the text pages, ${e.singleColumn} of ${n} single-column`,
  };
}

/**
 * Resolution for rasterised pages: 300 DPI when any page needs OCR (small type in a scan is
 * lost below it), 200 for forms (small print, boxed digits) and for math (sub- and
 * superscripts), else 150 (born-digital text read at a comfortable size).
 */
function suggestedDpi(type: DetectedType, e: Evidence): number {
  if (type === 'image_or_scan' || e.scans.length > 0) return 300;
  if (type === 'invoice_or_form' || e.math > 0) return 200;
  return 150;
}

/**
 * Verification pays off where the first reading is least certain: scans and any page needing
 * OCR, forms (every value matters), and math; not clean born-digital text.
 */
function suggestedVerification(type: DetectedType, e: Evidence): boolean {
  return type === 'image_or_scan' || type === 'invoice_or_form' || e.scans.length > 0 || e.math > 0;
}

function build(
  type: DetectedType,
  confidence: number,
  rationale: string,
  e: Evidence,
): DocumentTypeReport {
  return {
    detected: type,
    confidence: round2(clamp(confidence, 0, CONFIDENCE_CAP[type])),
    rationale,
    suggested_dpi: suggestedDpi(type, e),
    suggested_enable_verification: suggestedVerification(type, e),
  };
}

/**
 * Guesses the kind of a document from its format and measured page features alone.
 *
 * 1. Image formats are `image_or_scan`, and PowerPoint files `slide_deck`, by format.
 * 2. Without content pages (nothing measured, or only blank pages) the type is `unknown`.
 * 3. When `scanShare` or more of the content pages need OCR (no usable text layer, or an
 *    invisible OCR layer over a full-page image), the document is `image_or_scan`.
 * 4. Otherwise each of slide_deck, academic_paper, invoice_or_form, report_manual and textbook
 *    that passes its gates scores its evidence in [0, 1] (weights on each function below); the
 *    best wins if it reaches `minScore`, else the document is `unknown`.
 *
 * Confidence is 0.2 + 0.75 × the winner's evidence − 0.25 × the runner-up's (competing evidence
 * makes the call less clear), capped per type by what the features cannot see (and for a
 * one-page paper by `singlePagePaperConfidence`). Every threshold
 * is in {@link DOCUMENT_TYPE_THRESHOLDS}.
 */
export function detectDocumentType(input: {
  format: DocumentFormat;
  pages: readonly PageFeatures[];
}): DocumentTypeReport {
  const e = measure(input.pages);
  if (IMAGE_FORMATS.has(input.format)) {
    return build(
      'image_or_scan',
      0.95,
      `A ${input.format.toUpperCase()} image (${plural(e.pageCount, 'page')}): no text layer, every page goes to OCR.`,
      e,
    );
  }
  if (input.format === 'pptx') {
    return build('slide_deck', 0.9, 'A PowerPoint presentation: slides by format.', e);
  }
  const n = e.content.length;
  if (n === 0) {
    return build(
      'unknown',
      0.1,
      `No page with text or images was measured (${plural(e.pageCount, 'page')}).`,
      e,
    );
  }
  const scanShare = share(e.scans.length, n);
  if (scanShare >= T.scanShare) {
    const coverage = Math.round(median(e.scans.map((p) => p.imageCoverage)) * 100);
    const withOcrLayer = e.scans.filter((p) => p.usableTextLayer).length;
    const layer =
      withOcrLayer > 0 ? `${withOcrLayer} under an invisible OCR layer` : 'no text layer';
    return build(
      'image_or_scan',
      0.5 + 0.45 * scanShare,
      `Scanned images on ${e.scans.length} of ${plural(n, 'page')} (median image coverage ${coverage}%), ${layer}.`,
      e,
    );
  }
  const candidates = [
    slideDeck(e),
    academicPaper(e),
    invoiceOrForm(e),
    reportManual(e),
    textbook(e),
  ]
    .filter((c): c is Candidate => c !== undefined)
    .sort((a, b) => b.score - a.score);
  const [best, second] = candidates;
  if (best === undefined || best.score < T.minScore) {
    return build(
      'unknown',
      0.3,
      `${plural(e.pageCount, 'page')} of born-digital text (median ${e.medianChars} characters and ${plural(e.medianFonts, 'font')} per page, ${e.maxRules === 0 ? 'no' : `up to ${e.maxRules}`} rule lines): no type fits these features clearly.`,
      e,
    );
  }
  const runnerUp = second?.score ?? 0;
  const close =
    second !== undefined && best.score - second.score <= T.closeMargin
      ? `; close to ${second.type} (${second.because})`
      : '';
  const sentence = `${best.because}${close}.`;
  const confidence = 0.2 + 0.75 * best.score - 0.25 * runnerUp;
  const onePagePaper = best.type === 'academic_paper' && e.pageCount === 1;
  return build(
    best.type,
    onePagePaper ? Math.min(confidence, T.singlePagePaperConfidence) : confidence,
    sentence.charAt(0).toUpperCase() + sentence.slice(1),
    e,
  );
}
