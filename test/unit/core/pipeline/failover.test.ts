import { describe, expect, it } from 'vitest';
import {
  DocumentRejectedError,
  ProviderUnavailableError,
  TierUnavailableError,
} from '../../../../functions/core/domain/errors.js';
import { classify } from '../../../../functions/core/domain/pipeline/classify.js';
import { ingest } from '../../../../functions/core/domain/pipeline/ingest.js';
import {
  failoverOrder,
  parsePage,
  readCheckpoints,
  verificationPolicy,
} from '../../../../functions/core/domain/pipeline/parse-page.js';
import { route } from '../../../../functions/core/domain/pipeline/route.js';
import type { ParseOptions } from '../../../../functions/core/domain/request.js';
import { aBreakerRecord } from '../../../contract/breaker-store.contract.js';
import {
  FakeDocumentEngine,
  FakePageProvider,
  aPipeline,
  aProviderResult,
  aStoredRequest,
  parseOptions,
  progressTo,
  providerRegistry,
  scannedPageFeatures,
  type PipelineOptions,
  type PipelineWorld,
} from '../../../support/builders.js';

async function submitted(options: PipelineOptions = {}, parse: Partial<ParseOptions> = {}) {
  const world = aPipeline(options);
  const record = await aStoredRequest(world, { options: parseOptions(parse) });
  await ingest({ requestId: record.id }, world, progressTo(world.events, record.id));
  await classify({ requestId: record.id }, world, progressTo(world.events, record.id));
  return { world, requestId: record.id };
}

async function routed(options: PipelineOptions = {}, parse: Partial<ParseOptions> = {}) {
  const { world, requestId } = await submitted(options, parse);
  await route({ requestId }, world, progressTo(world.events, requestId));
  return { world, requestId };
}

const parseFirstPage = (world: PipelineWorld, requestId: string) =>
  parsePage({ requestId, pageNumber: 1 }, world, progressTo(world.events, requestId));

async function firstPage(world: PipelineWorld, requestId: string) {
  const [page] = await readCheckpoints(world, requestId);
  if (!page) throw new Error('no page checkpoint');
  return page;
}

/** An OPEN breaker for `id`, opened now on the world's clock. */
const openBreaker = (world: PipelineWorld, id: string) => {
  const now = world.clock.now().getTime();
  world.breakerStore.seed(aBreakerRecord(id, { openedAt: now, lastUsedAt: now }));
};

const busy = (id: string) =>
  new FakePageProvider(id, () => {
    throw new ProviderUnavailableError(`${id} answered HTTP 503`);
  });

/** A poor answer: no evidence, low layout and recognition scores (mean 0.3). */
const poorAnswer = { layoutScore: 0.3, ocrScore: 0.3, evidenceText: null } as const;

describe('failover between the providers of a tier', () => {
  it('gives the page to the next provider when the routed one fails, and counts the failure', async () => {
    // Arrange
    const { world, requestId } = await routed({ textProvider: busy('pdf-text') });
    // Act
    await parseFirstPage(world, requestId);
    // Assert
    const page = await firstPage(world, requestId);
    expect(page.provider).toBe('ocr');
    expect(page.tier_used).toBe('fast');
    expect(world.ocrProvider.calls).toHaveLength(1);
    expect((await world.breakerStore.get('pdf-text'))?.consecutiveFailures).toBe(1);
  });

  it('skips a provider whose circuit is open without calling it', async () => {
    // Arrange
    const { world, requestId } = await routed();
    openBreaker(world, 'pdf-text');
    // Act
    await parseFirstPage(world, requestId);
    // Assert
    expect(world.textProvider.calls).toHaveLength(0);
    expect((await firstPage(world, requestId)).provider).toBe('ocr');
  });

  it('answers TierUnavailableError naming the tier when every provider of it is open', async () => {
    // Arrange
    const { world, requestId } = await routed();
    openBreaker(world, 'pdf-text');
    openBreaker(world, 'ocr');
    // Act
    const result = parseFirstPage(world, requestId);
    // Assert
    await expect(result).rejects.toBeInstanceOf(TierUnavailableError);
    await expect(result).rejects.toThrow(/every provider of the fast tier is unavailable/);
    expect(world.textProvider.calls).toHaveLength(0);
    expect(world.ocrProvider.calls).toHaveLength(0);
  });

  it('routes no page when every provider of its tier is open (503 before any work)', async () => {
    // Arrange
    const { world, requestId } = await submitted();
    openBreaker(world, 'pdf-text');
    openBreaker(world, 'ocr');
    // Act
    const result = route({ requestId }, world, progressTo(world.events, requestId));
    // Assert
    await expect(result).rejects.toMatchObject({
      name: 'TierUnavailableError',
      kind: 'unavailable',
      details: { tier: 'fast', providers: ['pdf-text', 'ocr'] },
    });
  });

  it('routes around an open provider and names the one that will parse', async () => {
    // Arrange
    const { world, requestId } = await submitted();
    openBreaker(world, 'pdf-text');
    // Act
    await route({ requestId }, world, progressTo(world.events, requestId));
    // Assert
    const record = await world.requests.get(requestId);
    expect(record?.routes?.[0]).toMatchObject({ tier: 'fast', provider: 'ocr' });
  });

  it('does not fall over when the page itself is rejected', async () => {
    // Arrange
    const rejecting = new FakePageProvider('pdf-text', () => {
      throw new DocumentRejectedError('page 1 is larger than the pixel limit');
    });
    const { world, requestId } = await routed({ textProvider: rejecting });
    // Act
    const result = parseFirstPage(world, requestId);
    // Assert
    await expect(result).rejects.toBeInstanceOf(DocumentRejectedError);
    expect(world.ocrProvider.calls).toHaveLength(0);
  });

  it('closes the circuit again on the next success', async () => {
    // Arrange
    let failing = true;
    const flaky = new FakePageProvider('pdf-text', () => {
      if (failing) throw new ProviderUnavailableError('timeout');
      return aProviderResult();
    });
    const { world, requestId } = await routed({ textProvider: flaky });
    await parseFirstPage(world, requestId);
    failing = false;
    // Act
    await parseFirstPage(world, requestId);
    // Assert
    expect(await world.breakerStore.get('pdf-text')).toMatchObject({
      state: 'CLOSED',
      consecutiveFailures: 0,
    });
    expect((await firstPage(world, requestId)).provider).toBe('pdf-text');
  });

  it('orders the candidates: the routed provider, then the fitting rest of the chain', () => {
    // Arrange
    const chain = [
      { id: 'text', needsTextLayer: true },
      { id: 'vlm', needsTextLayer: false },
      { id: 'ocr', needsTextLayer: false },
    ];
    // Act / Assert
    expect(failoverOrder(chain, 'vlm', true)).toEqual(['vlm', 'text', 'ocr']);
    expect(failoverOrder(chain, 'vlm', false)).toEqual(['vlm', 'ocr']);
  });
});

describe('the cost of a page', () => {
  it('is the tier price, plus the provider price per page and per token', async () => {
    // Arrange
    const vlm = new FakePageProvider('vlm', { tokens: { input: 1000, output: 200 } });
    const providers = providerRegistry([
      {
        provider: vlm,
        needsTextLayer: false,
        price: { perPageUsd: 0.002, perInputTokenUsd: 0.000001, perOutputTokenUsd: 0.00001 },
      },
    ]);
    const { world, requestId } = await routed({ providers });
    // Act
    await parseFirstPage(world, requestId);
    // Assert: 0.001 (fast) + 0.002 + 1000 × 0.000001 + 200 × 0.00001
    expect((await firstPage(world, requestId)).estimated_cost_usd).toBeCloseTo(0.006, 9);
  });
});

describe('verification: re-routing low-confidence pages one tier up', () => {
  it('re-routes a poor page to another provider and keeps the better result', async () => {
    // Arrange
    const weak = new FakePageProvider('pdf-text', poorAnswer);
    const { world, requestId } = await routed(
      { textProvider: weak },
      { enable_verification: true },
    );
    // Act
    await parseFirstPage(world, requestId);
    // Assert
    const page = await firstPage(world, requestId);
    expect(page).toMatchObject({ re_routed: true, provider: 'ocr', tier_used: 'pro' });
    expect(page.re_route_result).toMatchObject({
      from: { tier: 'fast', provider: 'pdf-text' },
      to: { tier: 'pro', provider: 'ocr' },
      kept: 're_routed',
      scores_before: { layout_score: 0.3, ocr_score: 0.3 },
    });
    expect(String(page.re_route_result?.reason)).toMatch(/mean confidence 0.3 is below 0.75/);
    // Both attempts count: 120 + 120 input tokens.
    expect(page.tokens.input_tokens).toBe(240);
  });

  it('keeps the original when the second opinion is worse', async () => {
    // Arrange
    // A text layer with many unmapped glyphs (recognition 0.45): OCR may read it better.
    const weak = new FakePageProvider('pdf-text', {
      layoutScore: 0.6,
      ocrScore: 0.45,
      evidenceText: null,
    });
    const worse = new FakePageProvider('ocr', poorAnswer);
    const { world, requestId } = await routed(
      { textProvider: weak, ocrProvider: worse },
      { enable_verification: true },
    );
    // Act
    await parseFirstPage(world, requestId);
    // Assert
    const page = await firstPage(world, requestId);
    expect(page).toMatchObject({ re_routed: true, provider: 'pdf-text', tier_used: 'fast' });
    expect(page.re_route_result).toMatchObject({ kept: 'original', to: { provider: 'ocr' } });
  });

  it('never re-routes with enable_verification false', async () => {
    // Arrange
    const weak = new FakePageProvider('pdf-text', poorAnswer);
    const { world, requestId } = await routed(
      { textProvider: weak },
      { enable_verification: false },
    );
    // Act
    await parseFirstPage(world, requestId);
    // Assert
    const page = await firstPage(world, requestId);
    expect(page).toMatchObject({ re_routed: false, re_route_result: null, provider: 'pdf-text' });
    expect(world.ocrProvider.calls).toHaveLength(0);
  });

  it('in automatic mode re-routes fast pages only when clearly poor', async () => {
    // Arrange
    const fair = new FakePageProvider('pdf-text', {
      layoutScore: 0.6,
      ocrScore: 0.6,
      evidenceText: null,
    });
    const { world, requestId } = await routed(
      { textProvider: fair },
      { enable_verification: null },
    );
    // Act
    await parseFirstPage(world, requestId);
    // Assert
    expect((await firstPage(world, requestId)).re_routed).toBe(false);
    expect(verificationPolicy(null, 'fast')).toEqual({ reRouteBelow: 0.5 });
    expect(verificationPolicy(null, 'pro')).toEqual({ reRouteBelow: 0.75 });
    expect(verificationPolicy(true, 'fast')).toEqual({ reRouteBelow: 0.75 });
  });

  it('does not give OCR a text-layer page whose glyphs are mostly mapped', async () => {
    // Arrange: a trusted text layer (recognition 0.9) laid out poorly (a chart read as a table).
    const poorLayout = new FakePageProvider('pdf-text', {
      layoutScore: 0.1,
      ocrScore: 0.9,
      evidenceText: null,
    });
    const { world, requestId } = await routed(
      { textProvider: poorLayout },
      { enable_verification: true },
    );
    // Act
    await parseFirstPage(world, requestId);
    // Assert
    const page = await firstPage(world, requestId);
    expect(world.ocrProvider.calls).toHaveLength(0);
    expect(page).toMatchObject({ re_routed: false, provider: 'pdf-text' });
    expect(page.re_route_result).toMatchObject({ kept: 'original', to: null });
    expect(String(page.re_route_result?.outcome)).toMatch(
      /can do better than the page's text layer/,
    );
  });

  it('still gives a vision model a text-layer page whose glyphs are mostly mapped', async () => {
    // Arrange
    const poorLayout = new FakePageProvider('pdf-text', {
      layoutScore: 0.1,
      ocrScore: 0.9,
      evidenceText: null,
    });
    const ocr = new FakePageProvider('ocr');
    const vlm = new FakePageProvider('vlm');
    const providers = providerRegistry([
      { provider: poorLayout, needsTextLayer: true },
      { provider: ocr, needsTextLayer: false },
      { provider: vlm, needsTextLayer: false, generative: true },
    ]);
    const { world, requestId } = await routed({ providers }, { enable_verification: true });
    // Act
    await parseFirstPage(world, requestId);
    // Assert
    expect(ocr.calls).toHaveLength(0);
    expect(vlm.calls.length).toBeGreaterThanOrEqual(1);
    expect(await firstPage(world, requestId)).toMatchObject({ re_routed: true, provider: 'vlm' });
  });

  it('records why nothing changed when no other provider can take the page', async () => {
    // Arrange
    const weak = new FakePageProvider('only', poorAnswer);
    const providers = providerRegistry([{ provider: weak, needsTextLayer: false }]);
    const { world, requestId } = await routed({ providers }, { enable_verification: true });
    // Act
    await parseFirstPage(world, requestId);
    // Assert
    const page = await firstPage(world, requestId);
    expect(page.re_routed).toBe(false);
    expect(page.re_route_result).toMatchObject({ kept: 'original', to: null });
    expect(String(page.re_route_result?.outcome)).toMatch(/no other provider of the pro tier/);
  });
});

describe('independent evidence for the scores', () => {
  const scanned = () =>
    new FakeDocumentEngine({ pageCount: 1, features: () => scannedPageFeatures(1) });
  const vlmAndOcr = (markdown: string) => {
    const vlm = new FakePageProvider('vlm', { markdown, evidenceText: null, ocrScore: 0.97 });
    const ocr = new FakePageProvider('ocr', {
      markdown: 'Revenue grew in every region this year.',
      evidenceText: null,
      ocrScore: 0.9,
    });
    const providers = providerRegistry([
      { provider: vlm, needsTextLayer: false, generative: true },
      { provider: ocr, needsTextLayer: false },
    ]);
    return { vlm, ocr, providers };
  };

  it("checks a vision model's answer on a scan against a second engine", async () => {
    // Arrange: the model invents a sentence the OCR engine does not read on the page.
    const { ocr, providers } = vlmAndOcr('Dragons guard the quarterly figures in the north.');
    const { world, requestId } = await routed(
      { providers, engine: scanned() },
      { enable_verification: null },
    );
    // Act
    await parseFirstPage(world, requestId);
    // Assert: the verbatim score measured the model against the OCR text, not its own 0.97,
    // so the page went to the next tier, where the OCR answer was kept.
    const page = await firstPage(world, requestId);
    expect(ocr.calls.length).toBeGreaterThanOrEqual(1);
    const before = page.re_route_result?.scores_before as { verbatim_score: number } | undefined;
    expect(before?.verbatim_score).toBeLessThan(0.5);
    expect(page).toMatchObject({ re_routed: true, provider: 'ocr' });
  });

  it('trusts the recognition confidence when verification is off', async () => {
    // Arrange
    const { ocr, providers } = vlmAndOcr('Dragons guard the quarterly figures in the north.');
    const { world, requestId } = await routed(
      { providers, engine: scanned() },
      { enable_verification: false },
    );
    // Act
    await parseFirstPage(world, requestId);
    // Assert
    const page = await firstPage(world, requestId);
    expect(ocr.calls).toHaveLength(0);
    expect(page.confidence.verbatim_score).toBe(0.97);
  });
});
