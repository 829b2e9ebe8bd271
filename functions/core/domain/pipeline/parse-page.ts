import type { ProgressSink } from '../../ports/event-log.js';
import { GRADE_THRESHOLDS } from '../confidence.js';
import {
  AppError,
  ConflictError,
  NotFoundError,
  ProviderUnavailableError,
  TierUnavailableError,
} from '../errors.js';
import { postprocessPage } from '../postprocess.js';
import { pageCostUsd } from '../pricing.js';
import { canParse, type ProviderCapability } from '../routing.js';
import { plainText, textSimilarity } from '../markdown.js';
import { scorePage } from '../page-scores.js';
import type { PageCheckpoint } from '../request.js';
import type { GroundingEntry, Page, PageComparison, Tier } from '../schemas.js';
import type { PageFeatures } from '../../ports/document-engine.js';
import type { PageParseRequest, ProviderPageResult } from '../../ports/page-provider.js';
import { pageParseRequest, readInspection } from './classify.js';
import { loadLiveRequest } from './load-request.js';
import { workKeys } from '../object-keys.js';
import { type PageStageInput } from './stage-input.js';
import { type PipelinePorts } from '../../ports/pipeline.js';

/** Statuses in which a page may be charged, or taken back (see `RequestStore.chargePage`). */
const IN_FLIGHT = ['queued', 'processing'] as const;

/** Checkpoints above this many bytes of JSON go to the ObjectStore behind a pointer (DynamoDB items hold 400 KB). */
const INLINE_CHECKPOINT_BYTES = 300_000;

/**
 * ParsePage: parses the page with its routed provider, falling over to the next providers of its
 * tier when one fails or its circuit is open; scores the result; re-routes a low-confidence page
 * one tier up when verification asks for it (keeping the better result); and writes the page
 * checkpoint with its cost. On a metered request the page is counted as parsed
 * (`RequestStore.chargePage`) right before its first provider call, and taken back when the page
 * fails while the request is still in flight. Emits `vlm.page.done` with the page's mean confidence.
 *
 * Safe to retry: the checkpoint is keyed by request and page number.
 * @throws {ParseCancelledError} when the request is cancelled, before any provider call or after
 *   them (the page is then not checkpointed).
 * @throws {TierUnavailableError} when every provider able to parse the page has its circuit open
 *   (503, not retried).
 * @throws {ProviderUnavailableError} when every provider tried failed (retryable; the state
 *   machine backs off).
 */
export async function parsePage(
  input: PageStageInput,
  ports: Pick<
    PipelinePorts,
    'requests' | 'objects' | 'providers' | 'breakers' | 'clock' | 'settings'
  >,
  progress: ProgressSink,
): Promise<{ pageNumber: number }> {
  const started = ports.clock.now().getTime();
  const record = await loadLiveRequest(ports.requests, input.requestId);
  const routeOf = record.routes?.find((r) => r.pageNumber === input.pageNumber);
  if (!routeOf) throw new NotFoundError(`page ${input.pageNumber} was not routed`);
  const inspection = await readInspection(ports.objects, input.requestId);
  const features = inspection.pages.find((p) => p.pageNumber === input.pageNumber);
  const request = pageParseRequest(record, inspection, input.pageNumber);
  const usableTextLayer = features?.usableTextLayer ?? false;
  const hasPageImage = features?.hasPageImage !== false;

  const candidates = failoverOrder(
    ports.providers.chain(routeOf.tier),
    routeOf.provider,
    usableTextLayer,
    hasPageImage,
  );
  const secondEngine = record.options.enable_verification !== false;
  // Counted right before the first provider call (a page no provider is called for is never
  // counted): a cancel or failure from then on leaves it counted.
  const meter = { tried: false, charged: false };
  const charge = async (): Promise<void> => {
    if (meter.tried || !record.reservedPages) return;
    meter.tried = true;
    meter.charged = await chargePage(ports, input);
  };
  let page: Page;
  try {
    const first = await parseWithFailover(ports, routeOf.tier, candidates, request, charge);
    const parsed = await toPage(ports, first, {
      tier: routeOf.tier,
      request,
      usableTextLayer,
      features,
      secondEngine,
      latencyMs: ports.clock.now().getTime() - started,
    });
    page = parsed.page;
    let evidence = parsed.evidence;

    const verification = verificationPolicy(record.options.enable_verification, routeOf.tier);
    if (verification.reRouteBelow !== null && meanScore(page) < verification.reRouteBelow) {
      ({ page, evidence } = await reRoute(
        ports,
        { page, evidence },
        {
          request,
          usableTextLayer,
          hasPageImage,
          features,
          secondEngine,
          threshold: verification.reRouteBelow,
          started,
        },
      ));
    }

    // Fences, repetition loops, list markers (or plain paragraphs), unsupported sentences; a
    // transcription of the text layer is checked against no evidence: its evidence is its source
    // (its only words not in it are those of formulas rebuilt as LaTeX).
    const cleaned = postprocessPage(
      {
        pageNumber: page.page_number,
        markdown: page.content_markdown,
        evidenceText: readsTextLayer(ports.providers, page.provider) ? null : evidence,
      },
      {
        maintainFormat: record.options.maintain_format,
        generative: isGenerative(ports.providers, page.provider),
      },
    );
    page = { ...page, content_markdown: cleaned.markdown, warnings: cleaned.warnings };
    if (record.compareProvider) {
      const comparison = await comparePage(ports, record.compareProvider, request, page);
      page = {
        ...page,
        comparison,
        estimated_cost_usd:
          Math.round(((page.estimated_cost_usd ?? 0) + comparison.estimated_cost_usd) * 1e6) / 1e6,
      };
    }

    // A cancel during the provider calls: the checkpoints were deleted, and stay so.
    await loadLiveRequest(ports.requests, input.requestId);
    await writeCheckpoint(ports, input.requestId, page);
  } catch (error) {
    // A page that failed while the request is still in flight gave nothing: it is taken back.
    // Once the request is cancelled or failed, the store keeps it counted.
    if (meter.charged) {
      await ports.requests
        .unchargePage(input.requestId, input.pageNumber, IN_FLIGHT)
        .catch(() => false);
    }
    throw error;
  }
  progress.emit({
    event: 'vlm.page.done',
    page: input.pageNumber,
    confidence: Math.round(meanScore(page) * 1000) / 1000,
  });
  return { pageNumber: input.pageNumber };
}

/**
 * Counts the page as parsed on its request before any provider is called for it.
 * @returns whether this call counted it (false: an earlier attempt or run did).
 * @throws {ParseCancelledError} when the request was cancelled: no provider is called.
 * @throws {ConflictError} when the request has otherwise left `queued`/`processing` (it failed):
 *   no provider is called for a run that has ended.
 */
async function chargePage(
  ports: Pick<PipelinePorts, 'requests'>,
  input: PageStageInput,
): Promise<boolean> {
  try {
    return await ports.requests.chargePage(input.requestId, input.pageNumber, IN_FLIGHT);
  } catch (error) {
    if (error instanceof ConflictError) await loadLiveRequest(ports.requests, input.requestId);
    throw error;
  }
}

/**
 * The page as parsed by the request's `compare_provider` too, and the agreement of the two plain
 * texts (see {@link PageComparison}). Its cost is the provider's own (no tier price). A failure or
 * an open circuit gives a `failed` comparison, never a failed page.
 */
async function comparePage(
  ports: Pick<PipelinePorts, 'providers' | 'breakers' | 'clock'>,
  providerId: string,
  request: PageParseRequest,
  page: Page,
): Promise<PageComparison> {
  const started = ports.clock.now().getTime();
  const failed = (detail: string): PageComparison => ({
    provider_id: providerId,
    model_id: null,
    status: 'failed',
    content_markdown: null,
    agreement: null,
    tokens: { input_tokens: 0, output_tokens: 0 },
    estimated_cost_usd: 0,
    latency_ms: Math.max(0, ports.clock.now().getTime() - started),
    detail,
  });
  if (ports.breakers && !(await ports.breakers.tryAcquire(providerId))) {
    return failed(`the circuit of ${providerId} is open`);
  }
  let result: ProviderPageResult;
  try {
    result = await ports.providers.get(providerId).parsePage(request);
    await ports.breakers?.succeeded(providerId);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error instanceof ProviderUnavailableError) {
      await ports.breakers?.failed(providerId, error.message);
    }
    return failed(error.message);
  }
  const tokens = { input_tokens: result.tokens.input, output_tokens: result.tokens.output };
  const agreement = textSimilarity(plainText(page.content_markdown), plainText(result.markdown));
  return {
    provider_id: providerId,
    model_id: result.model,
    status: 'completed',
    content_markdown: result.markdown,
    agreement: Math.round(agreement * 1000) / 1000,
    tokens,
    estimated_cost_usd: pageCostUsd(0, ports.providers.price(providerId), tokens),
    latency_ms: Math.max(0, ports.clock.now().getTime() - started),
  };
}

/** Whether a generative model writes the provider's answers (any tier's chain says so). */
function isGenerative(providers: PipelinePorts['providers'], id: string): boolean {
  return (['fast', 'pro', 'premium'] as const).some((tier) =>
    providers.chain(tier).some((p) => p.id === id && p.generative === true),
  );
}

/** Whether the provider transcribes the page's text layer (any tier's chain says so). */
function readsTextLayer(providers: PipelinePorts['providers'], id: string): boolean {
  return (['fast', 'pro', 'premium'] as const).some((tier) =>
    providers.chain(tier).some((p) => p.id === id && p.needsTextLayer),
  );
}

/** A provider's answer for the page, and which provider gave it. */
interface Attempt {
  providerId: string;
  result: ProviderPageResult;
  /** Providers that failed or were open before it: not asked again for this page. */
  passedOver: readonly string[];
}

/**
 * The providers to try for a page, in order: the routed one, then the rest of its tier's chain
 * that can parse the page (text-layer providers only where the text layer is usable, others only
 * where the page has an image).
 */
export function failoverOrder(
  chain: readonly ProviderCapability[],
  routed: string,
  usableTextLayer: boolean,
  hasPageImage = true,
): string[] {
  const fitting = chain
    .filter((p) => canParse(p, { usableTextLayer, hasPageImage }))
    .map((p) => p.id);
  return [routed, ...fitting.filter((id) => id !== routed)];
}

/**
 * Tries `candidates` in order, calling `beforeCall` before each provider call. A provider whose
 * circuit is open is skipped; one that fails with ProviderUnavailableError is reported to its
 * breaker and the next one is tried. Other errors
 * (the page itself cannot be parsed) end the page at once.
 */
async function parseWithFailover(
  ports: Pick<PipelinePorts, 'providers' | 'breakers'>,
  tier: Tier,
  candidates: readonly string[],
  request: PageParseRequest,
  beforeCall: () => Promise<void> = () => Promise.resolve(),
): Promise<Attempt> {
  const open: string[] = [];
  const failed: string[] = [];
  let lastFailure: ProviderUnavailableError | undefined;
  for (const id of candidates) {
    if (ports.breakers && !(await ports.breakers.tryAcquire(id))) {
      open.push(id);
      continue;
    }
    // A refusal here (the request was cancelled, or has failed) leaves the breaker's admission
    // unreported, as a call whose Lambda died would; a probe admission expires with the cooldown.
    await beforeCall();
    try {
      const result = await ports.providers.get(id).parsePage(request);
      await ports.breakers?.succeeded(id);
      return { providerId: id, result, passedOver: [...open, ...failed] };
    } catch (error) {
      if (!(error instanceof ProviderUnavailableError)) throw error;
      await ports.breakers?.failed(id, error.message);
      failed.push(id);
      lastFailure = error;
    }
  }
  if (lastFailure) {
    throw new ProviderUnavailableError(
      `page ${request.pageNumber}: every provider of the ${tier} tier failed (last: ${lastFailure.message})`,
      { cause: lastFailure, details: { tier, providers: [...candidates] } },
    );
  }
  throw new TierUnavailableError(tier, open);
}

/** The Page of a provider's answer: scores, grounding, tokens and cost. */
async function toPage(
  ports: Pick<PipelinePorts, 'providers' | 'breakers' | 'settings'>,
  attempt: Attempt,
  context: {
    tier: Tier;
    request: PageParseRequest;
    usableTextLayer: boolean;
    /** The page's inspection features (text-layer quality), when known. */
    features: PageFeatures | undefined;
    /** Check a generative model's answer on a scan against a second engine (verification on). */
    secondEngine: boolean;
    latencyMs: number;
  },
): Promise<ScoredPage> {
  const { result } = attempt;
  const evidence =
    result.evidenceText ??
    (await independentEvidence(ports, context.request, attempt, {
      usableTextLayer: context.usableTextLayer,
      secondEngine: context.secondEngine,
    }));
  const width = Math.max(1, Math.round(result.width));
  const height = Math.max(1, Math.round(result.height));
  const tokens = { input_tokens: result.tokens.input, output_tokens: result.tokens.output };
  const page: Page = {
    page_number: context.request.pageNumber,
    content_markdown: result.markdown,
    content_json: null,
    tier_used: context.tier,
    provider: attempt.providerId,
    model: result.model,
    confidence: scorePage(result, evidence, context.features),
    grounding: groundingOf(result.elements, context.request.pageNumber, width, height),
    tokens,
    latency_ms: Math.max(0, Math.round(context.latencyMs)),
    re_routed: false,
    re_route_result: null,
    warnings: [],
    width,
    height,
    dpi: Math.max(1, Math.round(result.dpi)),
    estimated_cost_usd: pageCostUsd(
      ports.settings.priceByTier[context.tier],
      ports.providers.price(attempt.providerId),
      tokens,
    ),
  };
  return { page, evidence };
}

/** A page with the independent evidence its scores were computed against (null: none). */
interface ScoredPage {
  page: Page;
  evidence: string | null;
}

/**
 * Independent evidence for the page's scores, for a provider that gives none itself:
 * - on a page with a usable text layer, the text layer, from the first configured text-layer
 *   provider;
 * - on a page without one (a scan), when `secondEngine` is set and the answer came from a
 *   generative model, the text of a second engine: the first configured provider that neither
 *   reads the text layer nor generates (offline OCR, Textract).
 * Null when there is no such provider, it failed or was open for this page already, or it fails
 * now (the scores then fall back to the recognition confidence).
 */
async function independentEvidence(
  ports: Pick<PipelinePorts, 'providers' | 'breakers'>,
  request: PageParseRequest,
  attempt: Attempt,
  options: { usableTextLayer: boolean; secondEngine: boolean },
): Promise<string | null> {
  const all = (['fast', 'pro', 'premium'] as const).flatMap((tier) => ports.providers.chain(tier));
  const producer = all.find((p) => p.id === attempt.providerId);
  let reader: ProviderCapability | undefined;
  if (options.usableTextLayer) {
    reader = all.find((p) => p.needsTextLayer);
  } else if (options.secondEngine && producer?.generative === true) {
    reader = all.find((p) => !p.needsTextLayer && p.generative !== true);
  }
  if (!reader || reader.id === attempt.providerId || attempt.passedOver.includes(reader.id)) {
    return null;
  }
  if (ports.breakers && !(await ports.breakers.tryAcquire(reader.id))) return null;
  try {
    const answer = await ports.providers.get(reader.id).parsePage(request);
    await ports.breakers?.succeeded(reader.id);
    return answer.evidenceText ?? (options.usableTextLayer ? null : plainText(answer.markdown));
  } catch (error) {
    if (error instanceof ProviderUnavailableError) {
      await ports.breakers?.failed(reader.id, error.message);
    }
    return null;
  }
}

/**
 * When a page is re-routed one tier up (`enable_verification`): its mean confidence (the mean
 * of the ConfidenceReport's scores) below the returned bound, or never (null).
 * - `false`: never.
 * - `true`: below {@link GRADE_THRESHOLDS}.good (0.75), i.e. pages not graded good or better.
 * - `null` (automatic): fast pages below fair (0.5): a cheap tier that clearly failed; pro and
 *   premium pages below good (0.75): pages already known to be hard, where a second opinion pays.
 */
export function verificationPolicy(
  enableVerification: boolean | null,
  tier: Tier,
): { reRouteBelow: number | null } {
  if (enableVerification === false) return { reRouteBelow: null };
  if (enableVerification === true) return { reRouteBelow: GRADE_THRESHOLDS.good };
  return { reRouteBelow: tier === 'fast' ? GRADE_THRESHOLDS.fair : GRADE_THRESHOLDS.good };
}

const TIER_ORDER: readonly Tier[] = ['fast', 'pro', 'premium'];

/**
 * The recognition score (`ocr_score`: the share of text-layer glyphs with a Unicode mapping) from
 * which a usable text layer is trusted over OCR when a page is re-routed.
 */
const TRUSTED_TEXT_LAYER = GRADE_THRESHOLDS.fair;

/** An engine that transcribes the page image without a generative model (offline OCR, Textract). */
const transcribesImage = (p: ProviderCapability): boolean =>
  !p.needsTextLayer && p.generative !== true;

/**
 * Re-routes a low-confidence page: to the first provider of the next tier up that can parse the
 * page and differs from the one that gave it (on premium, the next different provider of
 * premium's own chain), with failover within that tier. A page a text-layer provider answered
 * from a usable text layer whose glyphs are mostly mapped (`ocr_score` at least
 * {@link TRUSTED_TEXT_LAYER}) is not given to an OCR engine: it would read the same characters
 * from the page image, less exactly, and lay them out with the same analysis (a chart's tick
 * labels read as a table stay one); a vision model may still take it. The better result by mean confidence is
 * kept; `re_route_result` records both sides. When no other provider exists or all fail, the
 * page is kept and `re_route_result` says why.
 */
async function reRoute(
  ports: Pick<PipelinePorts, 'providers' | 'breakers' | 'clock' | 'settings'>,
  original: ScoredPage,
  context: {
    request: PageParseRequest;
    usableTextLayer: boolean;
    hasPageImage: boolean;
    features: PageFeatures | undefined;
    secondEngine: boolean;
    threshold: number;
    started: number;
  },
): Promise<ScoredPage> {
  const { page } = original;
  const from = { tier: page.tier_used, provider: page.provider };
  const nextTier = TIER_ORDER[Math.min(TIER_ORDER.indexOf(page.tier_used) + 1, 2)] ?? 'premium';
  const reason = `mean confidence ${round3(meanScore(page))} is below ${context.threshold}`;
  const fitting = ports.providers
    .chain(nextTier)
    .filter((p) => canParse(p, context) && p.id !== page.provider);
  const all = TIER_ORDER.flatMap((tier) => ports.providers.chain(tier));
  const fromTextLayer = all.find((p) => p.id === page.provider)?.needsTextLayer === true;
  const textLayerTrusted =
    fromTextLayer && context.usableTextLayer && page.confidence.ocr_score >= TRUSTED_TEXT_LAYER;
  const candidates = fitting
    .filter((p) => !(textLayerTrusted && transcribesImage(p)))
    .map((p) => p.id);
  const before = page.confidence;
  /** The original page, with why the re-route changed nothing. */
  const keptOriginal = (to: { tier: Tier; provider: null } | null, outcome: string) => ({
    evidence: original.evidence,
    page: {
      ...page,
      re_route_result: { from, to, reason, outcome, scores_before: before, kept: 'original' },
    },
  });
  if (candidates.length === 0) {
    return keptOriginal(
      null,
      fitting.length > 0
        ? `no provider of the ${nextTier} tier can do better than the page's text layer: OCR reads the same characters from the page image`
        : `no other provider of the ${nextTier} tier can parse this page`,
    );
  }
  let scored: ScoredPage;
  try {
    const attempt = await parseWithFailover(ports, nextTier, candidates, context.request);
    scored = await toPage(ports, attempt, {
      tier: nextTier,
      request: context.request,
      usableTextLayer: context.usableTextLayer,
      features: context.features,
      secondEngine: context.secondEngine,
      latencyMs: ports.clock.now().getTime() - context.started,
    });
  } catch (error) {
    if (!(error instanceof ProviderUnavailableError || error instanceof TierUnavailableError)) {
      throw error;
    }
    return keptOriginal(
      { tier: nextTier, provider: null },
      `the ${nextTier} tier could not parse the page: ${error.message}`,
    );
  }
  const second = scored.page;
  const keepSecond = meanScore(second) > meanScore(page);
  const kept = keepSecond ? scored : original;
  return {
    evidence: kept.evidence,
    page: {
      ...kept.page,
      latency_ms: Math.max(0, ports.clock.now().getTime() - context.started),
      // The first attempt was paid for too.
      tokens: {
        input_tokens: page.tokens.input_tokens + second.tokens.input_tokens,
        output_tokens: page.tokens.output_tokens + second.tokens.output_tokens,
      },
      estimated_cost_usd: round6((page.estimated_cost_usd ?? 0) + (second.estimated_cost_usd ?? 0)),
      re_routed: true,
      re_route_result: {
        from,
        to: { tier: nextTier, provider: second.provider },
        reason,
        scores_before: before,
        scores_after: second.confidence,
        kept: keepSecond ? 're_routed' : 'original',
      },
    },
  };
}

/** The mean of a page's confidence scores (table_score only when the page has tables). */
export function meanScore(page: Pick<Page, 'confidence'>): number {
  const c = page.confidence;
  const scores = [c.layout_score, c.ocr_score, c.verbatim_score];
  if (c.table_score != null) scores.push(c.table_score);
  return scores.reduce((a, b) => a + b, 0) / scores.length;
}

const round3 = (v: number): number => Math.round(v * 1000) / 1000;
const round6 = (v: number): number => Math.round(v * 1e6) / 1e6;

/** Grounding entries with boxes clamped inside the `width` × `height` page image (w, h > 0). */
function groundingOf(
  elements: ProviderPageResult['elements'],
  pageNumber: number,
  width: number,
  height: number,
): GroundingEntry[] {
  const entries: GroundingEntry[] = [];
  const finite = (v: number): number => (Number.isFinite(v) ? v : 0);
  for (const e of elements) {
    const x = Math.floor(Math.min(Math.max(0, finite(e.bbox.x)), width - 1) * 10) / 10;
    const y = Math.floor(Math.min(Math.max(0, finite(e.bbox.y)), height - 1) * 10) / 10;
    const w = Math.max(0.1, Math.floor(Math.min(finite(e.bbox.w), width - x) * 10) / 10);
    const h = Math.max(0.1, Math.floor(Math.min(finite(e.bbox.h), height - y) * 10) / 10);
    entries.push({
      text: e.text,
      element_type: e.elementType,
      page_number: pageNumber,
      bbox: {
        x,
        y,
        w,
        h,
        label: e.label,
        confidence: Math.min(1, Math.max(0, e.confidence)),
      },
    });
  }
  return entries;
}

/** Stores the page inline in its checkpoint, or in the ObjectStore behind a pointer when large. */
export async function writeCheckpoint(
  ports: Pick<PipelinePorts, 'requests' | 'objects'>,
  requestId: string,
  page: Page,
): Promise<void> {
  const json = JSON.stringify(page);
  const checkpoint: PageCheckpoint = { pageNumber: page.page_number };
  if (new TextEncoder().encode(json).byteLength > INLINE_CHECKPOINT_BYTES) {
    const key = workKeys.page(requestId, page.page_number);
    await ports.objects.put(key, new TextEncoder().encode(json), 'application/json');
    checkpoint.pageKey = key;
  } else {
    checkpoint.page = page;
  }
  await ports.requests.putPage(requestId, checkpoint);
}

/** The pages of a request from their checkpoints, by page number. */
export async function readCheckpoints(
  ports: Pick<PipelinePorts, 'requests' | 'objects'>,
  requestId: string,
): Promise<Page[]> {
  const checkpoints = await ports.requests.listPages(requestId);
  const pages: Page[] = [];
  for (const c of checkpoints) {
    if (c.page) pages.push(c.page);
    else if (c.pageKey) {
      pages.push(JSON.parse(new TextDecoder().decode(await ports.objects.get(c.pageKey))) as Page);
    }
  }
  return pages.sort((a, b) => a.page_number - b.page_number);
}
