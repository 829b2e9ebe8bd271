import { describe, expect, it } from 'vitest';
import { ProviderUnavailableError } from '../../../../functions/core/domain/errors.js';
import { classify, readInspection } from '../../../../functions/core/domain/pipeline/classify.js';
import { ingest } from '../../../../functions/core/domain/pipeline/ingest.js';
import { route } from '../../../../functions/core/domain/pipeline/route.js';
import { parsePage } from '../../../../functions/core/domain/pipeline/parse-page.js';
import { ObjectNotFoundError } from '../../../../functions/core/domain/errors.js';
import {
  FakeDocumentEngine,
  FakePageProvider,
  aPipeline,
  aStoredRequest,
  eventsOf,
  pageFeatures,
  parseOptions,
  providerRegistry,
  scannedPageFeatures,
  type PipelineWorld,
  progressTo,
} from '../../../support/builders.js';

/** The thresholds of the default settings, as route.page reports them. */
const CEILINGS = { fast_ceiling: 0.35, pro_ceiling: 0.7 };

/** Page 1 clean prose, page 2 scanned, page 3 a dense ruled two-column page with math. */
const mixedEngine = () =>
  new FakeDocumentEngine({
    pageCount: 3,
    profile: { bodyFontSize: 11 },
    features: (n) =>
      n === 1
        ? pageFeatures({ pageNumber: 1 })
        : n === 2
          ? scannedPageFeatures(2)
          : pageFeatures({
              pageNumber: 3,
              usableTextLayer: false,
              imageCoverage: 1,
              ruleCount: 60,
              columnCount: 2,
            }),
  });

async function ingested(world: PipelineWorld, options = parseOptions()) {
  const record = await aStoredRequest(world, { options });
  await ingest({ requestId: record.id }, world, progressTo(world.events, record.id));
  world.clock.advance(25);
  return record;
}

describe('classify', () => {
  it('stores the features, complexity and profile of every selected page', async () => {
    // Arrange
    const world = aPipeline({ engine: mixedEngine() });
    const record = await ingested(world);
    // Act
    const output = await classify(
      { requestId: record.id },
      world,
      progressTo(world.events, record.id),
    );
    // Assert
    expect(output).toEqual({ requestId: record.id });
    const inspection = await readInspection(world.objects, record.id);
    expect(inspection.pages.map((p) => p.pageNumber)).toEqual([1, 2, 3]);
    expect(inspection.complexity).toEqual({ 1: 0, 2: 0.45, 3: 0.7 });
    expect(inspection.profile).toEqual({ bodyFontSize: 11 });
    expect(world.objects.contentTypeOf(`work/${record.id}/inspection.json`)).toBe(
      'application/json',
    );
  });

  it('emits classify.page with the complexity of each page', async () => {
    // Arrange
    const world = aPipeline({ engine: mixedEngine() });
    const record = await ingested(world);
    // Act
    await classify({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    const events = await eventsOf(world.events, record.id);
    expect(events.filter((e) => e.event === 'classify.page')).toEqual([
      { event: 'classify.page', page: 1, complexity: 0 },
      { event: 'classify.page', page: 2, complexity: 0.45 },
      { event: 'classify.page', page: 3, complexity: 0.7 },
    ]);
  });

  it('inspects only the first max_pages pages', async () => {
    // Arrange
    const world = aPipeline({ engine: mixedEngine() });
    const record = await ingested(world, parseOptions({ max_pages: 2 }));
    // Act
    await classify({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    expect(world.engine.inspected).toEqual([[1, 2]]);
  });

  it('stores its timing with the inspection and leaves the record to Route', async () => {
    // Arrange
    const world = aPipeline({ engine: mixedEngine() });
    const record = await ingested(world);
    const before = await world.requests.get(record.id);
    world.clock.advance(1000);
    // Act
    await classify({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    expect((await readInspection(world.objects, record.id)).classificationMs).toBe(0);
    expect(await world.requests.get(record.id)).toEqual(before);
  });

  it('fails when the format lost its engine after ingestion', async () => {
    // Arrange
    const world = aPipeline();
    const record = await ingested(world);
    const broken = { ...world, engineFor: () => undefined };
    // Act
    const result = classify({ requestId: record.id }, broken, progressTo(broken.events, record.id));
    // Assert
    await expect(result).rejects.toThrow('no engine for pdf after ingestion');
  });

  it('throws ObjectNotFoundError when the inspection is read before classify ran', async () => {
    // Arrange
    const world = aPipeline();
    // Act
    const result = readInspection(world.objects, 'req_none');
    // Assert
    await expect(result).rejects.toBeInstanceOf(ObjectNotFoundError);
  });
});

describe('route', () => {
  async function classified(world: PipelineWorld) {
    const record = await ingested(world);
    await classify({ requestId: record.id }, world, progressTo(world.events, record.id));
    return record;
  }

  it('picks the tier from the complexity and sends pages without a text layer past text-layer providers', async () => {
    // Arrange
    const world = aPipeline({ engine: mixedEngine() });
    const record = await classified(world);
    // Act
    const output = await route(
      { requestId: record.id },
      world,
      progressTo(world.events, record.id),
    );
    // Assert
    expect(output).toEqual({
      requestId: record.id,
      pages: [1, 2, 3].map((pageNumber) => ({ requestId: record.id, pageNumber })),
    });
    expect((await world.requests.get(record.id))?.routes).toEqual([
      { pageNumber: 1, complexity: 0, tier: 'fast', provider: 'pdf-text' },
      { pageNumber: 2, complexity: 0.45, tier: 'pro', provider: 'ocr' },
      { pageNumber: 3, complexity: 0.7, tier: 'pro', provider: 'ocr' },
    ]);
  });

  it('hints each provider at its pages with the requests ParsePage will send', async () => {
    // Arrange
    const world = aPipeline({ engine: mixedEngine() });
    const record = await classified(world);
    // Act
    await route({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    const expected = (pageNumber: number) => ({
      document: { key: record.document.key, hash: record.document.hash, format: 'pdf' },
      pageNumber,
      dpi: record.options.dpi,
      profile: { bodyFontSize: 11 },
      maintainFormat: record.options.maintain_format,
    });
    expect(world.textProvider.prefetched).toEqual([expected(1)]);
    expect(world.ocrProvider.prefetched).toEqual([expected(2), expected(3)]);
    await parsePage(
      { requestId: record.id, pageNumber: 1 },
      world,
      progressTo(world.events, record.id),
    );
    expect(world.textProvider.calls).toEqual(world.textProvider.prefetched);
  });

  it('gives no hints in a resumed run, whose pages may have checkpoints', async () => {
    // Arrange
    const world = aPipeline({ engine: mixedEngine() });
    const record = await classified(world);
    await world.requests.update(record.id, { runs: 1 });
    // Act
    await route({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    expect(world.textProvider.prefetched).toEqual([]);
    expect(world.ocrProvider.prefetched).toEqual([]);
  });

  it('emits route.page with tier, provider, complexity and thresholds for each page', async () => {
    // Arrange
    const world = aPipeline({ engine: mixedEngine() });
    const record = await classified(world);
    // Act
    await route({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    const events = await eventsOf(world.events, record.id);
    expect(events.filter((e) => e.event === 'route.page')).toEqual([
      {
        event: 'route.page',
        page: 1,
        tier: 'fast',
        provider: 'pdf-text',
        complexity: 0,
        ...CEILINGS,
      },
      { event: 'route.page', page: 2, tier: 'pro', provider: 'ocr', complexity: 0.45, ...CEILINGS },
      { event: 'route.page', page: 3, tier: 'pro', provider: 'ocr', complexity: 0.7, ...CEILINGS },
    ]);
  });

  it('moves a page up a tier when its own tier has no provider that fits', async () => {
    // Arrange
    const text = new FakePageProvider('pdf-text');
    const vision = new FakePageProvider('vision');
    const world = aPipeline({
      engine: new FakeDocumentEngine({
        pageCount: 1,
        features: () => pageFeatures({ usableTextLayer: false, textChars: 0 }),
      }),
      providers: providerRegistry(
        [
          { provider: text, needsTextLayer: true },
          { provider: vision, needsTextLayer: false },
        ],
        { fast: ['pdf-text'], pro: ['pdf-text'], premium: ['vision'] },
      ),
    });
    const record = await classified(world);
    // Act
    await route({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    expect((await world.requests.get(record.id))?.routes).toEqual([
      { pageNumber: 1, complexity: 0.35, tier: 'premium', provider: 'vision' },
    ]);
  });

  it('throws ProviderUnavailableError when no tier can parse a page', async () => {
    // Arrange
    const text = new FakePageProvider('pdf-text');
    const world = aPipeline({
      engine: new FakeDocumentEngine({ pageCount: 2, features: (n) => scannedPageFeatures(n) }),
      providers: providerRegistry([{ provider: text, needsTextLayer: true }]),
    });
    const record = await classified(world);
    // Act
    const result = route({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    await expect(result).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(result).rejects.toThrow('no provider of tier pro or above can parse page 1');
    expect((await world.requests.get(record.id))?.routes).toBeUndefined();
  });

  it('records the classification time Classify stored with the inspection', async () => {
    // Arrange
    const world = aPipeline();
    const record = await classified(world);
    const inspection = await readInspection(world.objects, record.id);
    await world.objects.put(
      `work/${record.id}/inspection.json`,
      new TextEncoder().encode(JSON.stringify({ ...inspection, classificationMs: 42 })),
      'application/json',
    );
    // Act
    await route({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    const stored = await world.requests.get(record.id);
    expect(stored?.timings).toMatchObject({ ingest_ms: 0, classification_ms: 42 });
  });

  it('keeps the recorded classification time when the inspection holds none', async () => {
    // Arrange: an inspection stored before Classify kept its timing there.
    const world = aPipeline();
    const record = await classified(world);
    const inspection = await readInspection(world.objects, record.id);
    delete inspection.classificationMs;
    await world.objects.put(
      `work/${record.id}/inspection.json`,
      new TextEncoder().encode(JSON.stringify(inspection)),
      'application/json',
    );
    await world.requests.update(record.id, { timings: { ingest_ms: 0, classification_ms: 7 } });
    // Act
    await route({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    const stored = await world.requests.get(record.id);
    expect(stored?.timings).toMatchObject({ classification_ms: 7, routing_ms: 0 });
  });

  it('records when page processing started and how long routing took', async () => {
    // Arrange
    const world = aPipeline();
    const record = await classified(world);
    world.clock.advance(1000);
    // Act
    await route({ requestId: record.id }, world, progressTo(world.events, record.id));
    // Assert
    const stored = await world.requests.get(record.id);
    expect(stored?.pagesStartedAt).toBe(world.clock.now().getTime());
    expect(stored?.timings).toMatchObject({ ingest_ms: 0, classification_ms: 0, routing_ms: 0 });
  });
});
