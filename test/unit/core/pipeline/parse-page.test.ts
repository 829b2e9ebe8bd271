import { describe, expect, it } from 'vitest';
import {
  NotFoundError,
  ProviderUnavailableError,
} from '../../../../functions/core/domain/errors.js';
import { classify } from '../../../../functions/core/domain/pipeline/classify.js';
import { ingest } from '../../../../functions/core/domain/pipeline/ingest.js';
import {
  parsePage,
  readCheckpoints,
} from '../../../../functions/core/domain/pipeline/parse-page.js';
import { route } from '../../../../functions/core/domain/pipeline/route.js';
import { Page } from '../../../../functions/core/domain/schemas.js';
import {
  FakeDocumentEngine,
  FakePageProvider,
  aPipeline,
  aStoredRequest,
  eventsOf,
  pageFeatures,
  parseOptions,
  scannedPageFeatures,
  type PipelineOptions,
  type PipelineWorld,
  progressTo,
} from '../../../support/builders.js';

async function routed(options: PipelineOptions = {}, dpi: number | null = null) {
  const world = aPipeline(options);
  const record = await aStoredRequest(world, {
    options: parseOptions({ dpi, maintain_format: false }),
  });
  await ingest({ requestId: record.id }, world, progressTo(world.events, record.id));
  await classify({ requestId: record.id }, world, progressTo(world.events, record.id));
  await route({ requestId: record.id }, world, progressTo(world.events, record.id));
  return { world, requestId: record.id };
}

const checkpointsOf = (world: PipelineWorld, requestId: string) =>
  world.requests.listPages(requestId);

describe('parsePage', () => {
  it('writes the page inline in its checkpoint with the routed tier and provider (plain paragraphs without maintain_format)', async () => {
    // Arrange
    const { world, requestId } = await routed();
    // Act
    const output = await parsePage(
      { requestId, pageNumber: 1 },
      world,
      progressTo(world.events, requestId),
    );
    // Assert
    expect(output).toEqual({ pageNumber: 1 });
    const [checkpoint] = await checkpointsOf(world, requestId);
    expect(checkpoint?.pageKey).toBeUndefined();
    const page = Page.parse(checkpoint?.page);
    expect(page).toMatchObject({
      page_number: 1,
      content_markdown: 'Annual report\n\nRevenue grew in every region this year.',
      content_json: null,
      tier_used: 'fast',
      provider: 'pdf-text',
      model: 'pdf-text-model',
      tokens: { input_tokens: 120, output_tokens: 40 },
      re_routed: false,
      re_route_result: null,
      warnings: [],
    });
    expect(page.confidence).toEqual({
      layout_score: 0.95,
      ocr_score: 1,
      verbatim_score: 1,
      table_score: null,
      mean_grade: 'excellent',
      low_grade: 'excellent',
    });
  });

  it('asks the provider for the page with the request options and the document profile', async () => {
    // Arrange
    const { world, requestId } = await routed(
      { engine: new FakeDocumentEngine({ profile: { body: 9.5 } }) },
      200,
    );
    // Act
    await parsePage({ requestId, pageNumber: 1 }, world, progressTo(world.events, requestId));
    // Assert
    expect(world.textProvider.calls).toEqual([
      {
        document: expect.objectContaining({ format: 'pdf' }) as unknown,
        pageNumber: 1,
        dpi: 200,
        profile: { body: 9.5 },
        maintainFormat: false,
      },
    ]);
  });

  it('emits vlm.page.done with the mean confidence of the page', async () => {
    // Arrange
    const { world, requestId } = await routed({
      textProvider: new FakePageProvider('pdf-text', { layoutScore: 0.7 }),
    });
    // Act
    await parsePage({ requestId, pageNumber: 1 }, world, progressTo(world.events, requestId));
    // Assert
    const events = await eventsOf(world.events, requestId);
    expect(events.at(-1)).toEqual({ event: 'vlm.page.done', page: 1, confidence: 0.9 });
  });

  it('stores a large page in the object store behind a pointer', async () => {
    // Arrange
    const markdown = 'lorem ipsum '.repeat(30_000);
    const { world, requestId } = await routed({
      textProvider: new FakePageProvider('pdf-text', { markdown, evidenceText: markdown }),
    });
    // Act
    await parsePage({ requestId, pageNumber: 1 }, world, progressTo(world.events, requestId));
    // Assert
    const [checkpoint] = await checkpointsOf(world, requestId);
    const key = `work/${requestId}/pages/0001.json`;
    expect(checkpoint).toEqual({ pageNumber: 1, pageKey: key });
    expect(world.objects.contentTypeOf(key)).toBe('application/json');
    const [page] = await readCheckpoints(world, requestId);
    expect(page?.content_markdown).toBe(markdown);
  });

  it('uses the OCR confidence as verbatim score when the provider has no evidence text', async () => {
    // Arrange
    const { world, requestId } = await routed({
      engine: new FakeDocumentEngine({ features: (n) => scannedPageFeatures(n) }),
    });
    // Act
    await parsePage({ requestId, pageNumber: 1 }, world, progressTo(world.events, requestId));
    // Assert
    const [page] = await readCheckpoints(world, requestId);
    expect(page?.provider).toBe('ocr');
    expect(page?.confidence).toMatchObject({ ocr_score: 0.91, verbatim_score: 0.91 });
  });

  it('derives the recognition score of a text-layer page from its garbage share', async () => {
    // Arrange
    const { world, requestId } = await routed({
      engine: new FakeDocumentEngine({ features: () => pageFeatures({ garbageRatio: 0.2 }) }),
    });
    // Act
    await parsePage({ requestId, pageNumber: 1 }, world, progressTo(world.events, requestId));
    // Assert
    const [page] = await readCheckpoints(world, requestId);
    expect(page?.confidence.ocr_score).toBe(0.8);
  });

  it('scores a page whose text departs from the evidence with a low verbatim score', async () => {
    // Arrange
    const { world, requestId } = await routed({
      textProvider: new FakePageProvider('pdf-text', {
        markdown: 'Completely invented quarterly figures about dragons.',
      }),
    });
    // Act
    await parsePage({ requestId, pageNumber: 1 }, world, progressTo(world.events, requestId));
    // Assert
    const [page] = await readCheckpoints(world, requestId);
    expect(page?.confidence.verbatim_score).toBeLessThan(0.6);
  });

  it('scores the tables of the page against the evidence', async () => {
    // Arrange
    const markdown = '| item | qty |\n|---|---|\n| apples | 12 |';
    const { world, requestId } = await routed({
      textProvider: new FakePageProvider('pdf-text', {
        markdown,
        evidenceText: 'item qty apples 13',
      }),
    });
    // Act
    await parsePage({ requestId, pageNumber: 1 }, world, progressTo(world.events, requestId));
    // Assert
    const [page] = await readCheckpoints(world, requestId);
    // The evidence's 13 is missing from the cells, and the cells' 12 is nowhere in the evidence.
    expect(page?.confidence.table_score).toBe(0);
  });

  it('clamps grounding boxes inside the page image', async () => {
    // Arrange
    const { world, requestId } = await routed({
      textProvider: new FakePageProvider('pdf-text', {
        width: 100,
        height: 200,
        elements: [
          {
            text: 'overflow',
            bbox: { x: -10, y: 190.04, w: 500, h: 0 },
            label: 'footer',
            elementType: 'page_number',
            confidence: 1.5,
          },
        ],
      }),
    });
    // Act
    await parsePage({ requestId, pageNumber: 1 }, world, progressTo(world.events, requestId));
    // Assert
    const [page] = await readCheckpoints(world, requestId);
    expect(page?.grounding).toHaveLength(1);
    const entry = page!.grounding[0]!;
    expect(entry).toMatchObject({ text: 'overflow', element_type: 'page_number', page_number: 1 });
    const { x, y, w, h, label, confidence } = entry.bbox;
    expect({ label, confidence }).toEqual({ label: 'footer', confidence: 1 });
    expect(x).toBe(0);
    expect(y).toBeCloseTo(190, 0);
    expect(w).toBeGreaterThan(0);
    expect(h).toBeGreaterThan(0);
    expect(x + w).toBeLessThanOrEqual(100);
    expect(y + h).toBeLessThanOrEqual(200);
  });

  it('measures the latency of the provider call with the clock', async () => {
    // Arrange
    const holder: { world?: PipelineWorld } = {};
    const slow = new FakePageProvider('pdf-text', (request) => {
      holder.world?.clock.advance(340);
      return new FakePageProvider('x').parsePage(request);
    });
    const { world, requestId } = await routed({ textProvider: slow });
    holder.world = world;
    // Act
    await parsePage({ requestId, pageNumber: 1 }, world, progressTo(world.events, requestId));
    // Assert
    const [page] = await readCheckpoints(world, requestId);
    expect(page?.latency_ms).toBe(340);
  });

  it('rejects a page that was not routed with NotFoundError', async () => {
    // Arrange
    const { world, requestId } = await routed();
    // Act
    const result = parsePage(
      { requestId, pageNumber: 2 },
      world,
      progressTo(world.events, requestId),
    );
    // Assert
    await expect(result).rejects.toBeInstanceOf(NotFoundError);
    await expect(result).rejects.toThrow('page 2 was not routed');
  });

  it('rejects with the provider error and writes no checkpoint when every provider fails', async () => {
    // Arrange
    const failing = new FakePageProvider('pdf-text', () => {
      throw new ProviderUnavailableError('model busy');
    });
    const failingOcr = new FakePageProvider('ocr', () => {
      throw new ProviderUnavailableError('ocr busy');
    });
    const { world, requestId } = await routed({ textProvider: failing, ocrProvider: failingOcr });
    // Act
    const result = parsePage(
      { requestId, pageNumber: 1 },
      world,
      progressTo(world.events, requestId),
    );
    // Assert
    await expect(result).rejects.toBeInstanceOf(ProviderUnavailableError);
    expect(await checkpointsOf(world, requestId)).toEqual([]);
  });
});
