import type { PageFeatures } from '../ports/document-engine.js';
import type { Tier } from './schemas.js';

/** The two router thresholds on the complexity score (spec §1: a fast ceiling and a pro ceiling). */
export interface TierThresholds {
  fastCeiling: number;
  proCeiling: number;
}

const clamp01 = (v: number): number => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0);

/**
 * Complexity of a page in [0, 1] from its measured features: 0 is plain single-column prose with a
 * clean text layer, 1 is a scanned, ruled, multi-column page with math.
 *
 * Terms, each in [0, 1], and their weights:
 * - text layer 0.35: 1 without a usable one (OCR needed), else twice the garbage share plus the
 *   invisible share (an old OCR layer);
 * - image area 0.1: the share of the page covered by images;
 * - tables 0.2: the stronger of rule lines (60 or more count fully) and table-like alignment of
 *   the text (half the rows or more aligned count fully), so ruled and whitespace tables both
 *   count;
 * - columns 0.1: 0 for one, 1 for three or more;
 * - font variety 0.1: 0 up to two fonts, 1 at twelve;
 * - math 0.1: 1 when a fifth or more of the characters are set in math fonts;
 * - unusual page size 0.05: |ln(area / Letter area)| / 3.
 * Shared by the live router and the cost estimate so the two never disagree.
 */
export function complexityScore(f: PageFeatures): number {
  const textLayer = f.usableTextLayer ? clamp01(f.garbageRatio * 2 + f.invisibleCharRatio) : 1;
  const images = clamp01(f.imageCoverage);
  const tables = clamp01(Math.max(f.ruleCount / 60, f.tableAlignment * 2));
  const columns = clamp01((f.columnCount - 1) / 2);
  const fonts = clamp01((f.fontCount - 2) / 10);
  const math = clamp01(f.mathCharRatio * 5);
  const area = f.widthPt * f.heightPt;
  const letter = 612 * 792;
  const oddSize = area > 0 ? clamp01(Math.abs(Math.log(area / letter)) / 3) : 1;
  const score =
    0.35 * textLayer +
    0.1 * images +
    0.2 * tables +
    0.1 * columns +
    0.1 * fonts +
    0.1 * math +
    0.05 * oddSize;
  return Math.round(clamp01(score) * 1000) / 1000;
}

/** Tier for a complexity score: `fast` up to the fast ceiling, `pro` up to the pro ceiling, else `premium`. */
export function tierFor(complexity: number, t: TierThresholds): Tier {
  if (complexity <= t.fastCeiling) return 'fast';
  if (complexity <= t.proCeiling) return 'pro';
  return 'premium';
}

/** What a provider can do, for choosing one in a tier's chain. */
export interface ProviderCapability {
  id: string;
  /** The provider reads the PDF text layer and cannot parse pages without a usable one. */
  needsTextLayer: boolean;
  /**
   * The provider writes its answer with a generative model (vision LLMs): its Markdown may be
   * wrapped in a fence or loop, which post-processing repairs. Engines that transcribe what is
   * on the page (text layer, OCR, Textract) are left as they are: a repetition there is real.
   */
  generative?: boolean;
  /** The model it runs, as its pages report it (remote providers: the configured model). */
  model?: string;
  /** Other model ids its pages may report (the offline text provider's office conversion). */
  otherModels?: readonly string[];
}

/**
 * The first provider of the tier's chain able to parse the page (see {@link canParse}): pages
 * without a usable text layer skip text-layer providers (they go to OCR or a vision model), and
 * pages without a page image (office, HTML, Markdown) skip every other provider.
 * @returns undefined when no provider of the chain fits.
 */
export function chooseProvider(
  chain: readonly ProviderCapability[],
  features: PageFeatures,
): ProviderCapability | undefined {
  return chain.find((p) => canParse(p, features));
}

/**
 * Whether a provider can parse a page: a text-layer provider needs a usable text layer; any
 * other provider reads the page image, which pages with `hasPageImage: false` do not have.
 */
export function canParse(
  provider: Pick<ProviderCapability, 'needsTextLayer'>,
  page: Pick<PageFeatures, 'usableTextLayer' | 'hasPageImage'>,
): boolean {
  return provider.needsTextLayer ? page.usableTextLayer : page.hasPageImage !== false;
}

/**
 * Features of a page that has no text layer to measure (an image, or a PDF page that cannot be
 * read): only its size (points) and image coverage are known; it goes to OCR.
 */
export function featuresWithoutTextLayer(page: {
  pageNumber: number;
  widthPt: number;
  heightPt: number;
  imageCoverage: number;
}): PageFeatures {
  return {
    ...page,
    textChars: 0,
    garbageRatio: 0,
    textCoverage: 0,
    ruleCount: 0,
    tableAlignment: 0,
    columnCount: 1,
    fontCount: 0,
    mathCharRatio: 0,
    invisibleCharRatio: 0,
    usableTextLayer: false,
  };
}

/** A page's place: its tier and the provider that takes it. */
export interface RouteChoice {
  tier: Tier;
  provider: string;
}

/**
 * Where a page goes (the Route stage and the estimate use this one function): the tier of its
 * complexity (`tierFor`), then the first provider of that tier's chain able to parse the page
 * whose circuit is `closed`; when a tier has no provider able to parse the page, the next tier up
 * is tried.
 * @returns the choice, or `{ open }` naming the fitting providers of the first tier that has some
 *   when all of them are open, or undefined when no tier can parse the page.
 */
export function chooseRoute(
  features: PageFeatures,
  complexity: number,
  thresholds: TierThresholds,
  chain: (tier: Tier) => readonly ProviderCapability[],
  closed: (id: string) => boolean = () => true,
): RouteChoice | { open: { tier: Tier; providers: string[] } } | undefined {
  const tiers: readonly Tier[] = ['fast', 'pro', 'premium'];
  const first = tierFor(complexity, thresholds);
  for (const tier of tiers.slice(tiers.indexOf(first))) {
    const fitting = chain(tier).filter((p) => chooseProvider([p], features) !== undefined);
    if (fitting.length === 0) continue;
    const provider = fitting.find((p) => closed(p.id));
    if (!provider) return { open: { tier, providers: fitting.map((p) => p.id) } };
    return { tier, provider: provider.id };
  }
  return undefined;
}
