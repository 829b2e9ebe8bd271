import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../../functions/core/domain/errors.js';
import { classify } from '../../../../functions/core/domain/pipeline/classify.js';
import { deliver } from '../../../../functions/core/domain/pipeline/deliver.js';
import { ingest } from '../../../../functions/core/domain/pipeline/ingest.js';
import {
  parsePage,
  readCheckpoints,
} from '../../../../functions/core/domain/pipeline/parse-page.js';
import { route } from '../../../../functions/core/domain/pipeline/route.js';
import {
  HALLUCINATION_THRESHOLD,
  verify,
} from '../../../../functions/core/domain/pipeline/verify.js';
import { ParseResponse } from '../../../../functions/core/domain/schemas.js';
import {
  FakeDocumentEngine,
  FakePageProvider,
  T0,
  aPipeline,
  aProviderResult,
  aStoredRequest,
  eventsOf,
  pageFeatures,
  scannedPageFeatures,
  type PipelineOptions,
  type PipelineWorld,
  progressTo,
  providerRegistry,
} from '../../../support/builders.js';

/** Runs Ingest to ParsePage, advancing the clock by `stepMs` after each stage. */
async function parsed(options: PipelineOptions = {}, stepMs = 0) {
  const world = aPipeline(options);
  const record = await aStoredRequest(world);
  const requestId = record.id;
  await ingest({ requestId }, world, progressTo(world.events, requestId));
  world.clock.advance(stepMs);
  await classify({ requestId }, world, progressTo(world.events, requestId));
  world.clock.advance(stepMs);
  const { pages } = await route({ requestId }, world, progressTo(world.events, requestId));
  world.clock.advance(stepMs);
  for (const page of pages) await parsePage(page, world, progressTo(world.events, page.requestId));
  world.clock.advance(stepMs);
  return { world, requestId };
}

const resultOf = async (world: PipelineWorld, key: string) =>
  JSON.parse(new TextDecoder().decode(await world.objects.get(key))) as unknown;

describe('verify', () => {
  it('flags potential_hallucination once on a page with unsupported sentences', async () => {
    // Arrange: a vision model's answer beside the words of the page.
    const vlm = new FakePageProvider('vlm', {
      markdown: 'Completely invented quarterly figures about dragons.',
      evidenceText: 'Revenue rose by four percent in the third quarter of the year.',
    });
    const { world, requestId } = await parsed({
      providers: providerRegistry([{ provider: vlm, needsTextLayer: false, generative: true }]),
    });
    // Act
    await verify({ requestId }, world);
    // Assert: the sentence-level check of the page stage; the page-level one adds nothing.
    const [page] = await readCheckpoints(world, requestId);
    expect(page?.warnings).toEqual([
      {
        kind: 'potential_hallucination',
        severity: 'warn',
        page_number: 1,
        detail: expect.stringContaining('under half of their words in the evidence') as unknown,
      },
    ]);
  });

  it('checks no sentence of a transcription of the text layer against that text layer', async () => {
    // Arrange: the text-layer provider's evidence is its own source; a sentence it does not hold
    // (a formula rebuilt as LaTeX, say) is not a model's invention.
    const { world, requestId } = await parsed({
      textProvider: new FakePageProvider('pdf-text', {
        markdown:
          '$$\\sum_{i=1}^{N}\\frac{\\alpha_{i}}{\\beta_{i}}\\exp\\left(-\\frac{\\gamma}{\\delta}\\right)$$',
        evidenceText: '∑ N i=1 α i β i exp − γ δ',
      }),
    });
    // Act
    const [page] = await readCheckpoints(world, requestId);
    // Assert
    expect(page?.warnings).toEqual([]);
  });

  it('flags potential_hallucination on a page whose text differs from the evidence as a whole', async () => {
    // Arrange: short lines (no sentence of five words) that match nothing of the evidence.
    const { world, requestId } = await parsed({
      textProvider: new FakePageProvider('pdf-text', {
        markdown: 'Dragons\n\nUnicorns\n\nGriffins',
      }),
    });
    // Act
    await verify({ requestId }, world);
    // Assert
    const [page] = await readCheckpoints(world, requestId);
    expect(page?.warnings).toEqual([
      {
        kind: 'potential_hallucination',
        severity: 'warn',
        page_number: 1,
        detail: expect.stringContaining(`is below ${HALLUCINATION_THRESHOLD}`) as unknown,
      },
    ]);
  });

  it('leaves a faithful page without warnings', async () => {
    // Arrange
    const { world, requestId } = await parsed();
    // Act
    await verify({ requestId }, world);
    // Assert
    const [page] = await readCheckpoints(world, requestId);
    expect(page?.warnings).toEqual([]);
  });

  it('removes a long paragraph a vision model repeated and flags duplicate_region', async () => {
    // Arrange
    const paragraph = 'This paragraph is long enough to count as a region of the page.';
    const markdown = `${paragraph}\n\n${paragraph}`;
    const vlm = new FakePageProvider('vlm', { markdown, evidenceText: markdown });
    const { world, requestId } = await parsed({
      providers: providerRegistry([{ provider: vlm, needsTextLayer: false, generative: true }]),
    });
    // Act
    await verify({ requestId }, world);
    // Assert
    const [page] = await readCheckpoints(world, requestId);
    expect(page?.warnings).toEqual([
      {
        kind: 'duplicate_region',
        severity: 'warn',
        page_number: 1,
        detail: 'removed 1 repeated block; kept the first occurrence at line 1',
      },
    ]);
    expect(page?.content_markdown).toBe(paragraph);
  });

  it('keeps a paragraph the text layer itself repeats', async () => {
    // Arrange: a transcription of the page (not a generative model) repeats what is printed.
    const paragraph = 'This paragraph is long enough to count as a region of the page.';
    const markdown = `${paragraph}\n\n${paragraph}`;
    const { world, requestId } = await parsed({
      textProvider: new FakePageProvider('pdf-text', { markdown, evidenceText: markdown }),
    });
    // Act
    await verify({ requestId }, world);
    // Assert
    const [page] = await readCheckpoints(world, requestId);
    expect(page?.warnings).toEqual([]);
    expect(page?.content_markdown).toBe(markdown);
  });

  it('does not flag short repeated blocks', async () => {
    // Arrange
    const markdown = 'Total\n\nTotal\n\nTotal';
    const { world, requestId } = await parsed({
      textProvider: new FakePageProvider('pdf-text', { markdown, evidenceText: markdown }),
    });
    // Act
    await verify({ requestId }, world);
    // Assert
    const [page] = await readCheckpoints(world, requestId);
    expect(page?.warnings).toEqual([]);
  });

  it('recomputes warnings instead of appending them when retried', async () => {
    // Arrange
    const { world, requestId } = await parsed({
      textProvider: new FakePageProvider('pdf-text', { markdown: 'Invented dragons everywhere.' }),
    });
    await verify({ requestId }, world);
    // Act
    await verify({ requestId }, world);
    // Assert
    const [page] = await readCheckpoints(world, requestId);
    expect(page?.warnings).toHaveLength(1);
  });

  it('records the page processing time since routing ended and its own duration', async () => {
    // Arrange
    const { world, requestId } = await parsed({}, 100);
    // Act
    await verify({ requestId }, world);
    // Assert
    const timings = (await world.requests.get(requestId))?.timings;
    expect(timings).toEqual({
      ingest_ms: 0,
      classification_ms: 0,
      routing_ms: 0,
      vlm_processing_ms: 200,
      verification_ms: 0,
    });
  });
});

describe('deliver', () => {
  it('makes heading levels consistent across pages and says so on the pages it changed', async () => {
    // Arrange: page 1 opens with a level-1 title, page 2 jumps to level 3.
    const provider = new FakePageProvider('pdf-text', (request) =>
      aProviderResult({
        markdown:
          request.pageNumber === 1
            ? '# Annual report\n\nRevenue grew in every region this year.'
            : '### Outlook\n\nWe expect growth to continue.',
        evidenceText: null,
      }),
    );
    const { world, requestId } = await parsed({
      textProvider: provider,
      engine: new FakeDocumentEngine({ pageCount: 2 }),
    });
    await verify({ requestId }, world);
    // Act
    await deliver({ requestId }, world, progressTo(world.events, requestId));
    // Assert
    const response = ParseResponse.parse(
      await resultOf(world, `results/tenant-a/${requestId}.json`),
    );
    expect(response.pages[1]?.content_markdown).toBe('## Outlook\n\nWe expect growth to continue.');
    expect(response.pages[1]?.warnings?.map((w) => w.kind)).toEqual(['heading_renumbered']);
    expect(response.pages[0]?.warnings).toEqual([]);
  });

  const threePages = (): PipelineOptions => ({
    engine: new FakeDocumentEngine({
      pageCount: 3,
      features: (n) =>
        n === 1
          ? pageFeatures({ pageNumber: 1 })
          : n === 2
            ? scannedPageFeatures(2)
            : pageFeatures({
                pageNumber: 3,
                usableTextLayer: false,
                imageCoverage: 1,
                ruleCount: 120,
                columnCount: 3,
              }),
    }),
  });

  it('assembles a ParseResponse that passes the specification schema', async () => {
    // Arrange
    const { world, requestId } = await parsed(threePages(), 50);
    await verify({ requestId }, world);
    // Act
    await deliver({ requestId }, world, progressTo(world.events, requestId));
    // Assert
    const response = ParseResponse.parse(
      await resultOf(world, `results/tenant-a/${requestId}.json`),
    );
    expect(response).toMatchObject({
      id: requestId,
      status: 'completed',
      document: {
        hash: 'ab'.repeat(32),
        pages: 3,
        format: 'pdf',
        cached: false,
        filename: 'report.pdf',
        size_bytes: 1234,
      },
      extracted: null,
      // Two of three pages are images without a text layer.
      document_type: { detected: 'image_or_scan', suggested_enable_verification: true },
      created_at: T0.toISOString(),
      errors: [],
    });
    expect(response.pages.map((p) => [p.page_number, p.tier_used, p.provider])).toEqual([
      [1, 'fast', 'pdf-text'],
      [2, 'pro', 'ocr'],
      [3, 'premium', 'ocr'],
    ]);
  });

  it('counts pages by tier and prices them from the price table', async () => {
    // Arrange
    const { world, requestId } = await parsed(threePages());
    // Act
    await deliver({ requestId }, world, progressTo(world.events, requestId));
    // Assert
    const response = ParseResponse.parse(
      await resultOf(world, `results/tenant-a/${requestId}.json`),
    );
    expect(response.usage).toEqual({
      total_input_tokens: 360,
      total_output_tokens: 120,
      estimated_cost_usd: 0.041,
      pages_by_tier: { fast: 1, pro: 1, premium: 1 },
    });
  });

  it('reports the total time since the request was created and the stage timings', async () => {
    // Arrange
    const { world, requestId } = await parsed({}, 100);
    await verify({ requestId }, world);
    world.clock.advance(100);
    // Act
    await deliver({ requestId }, world, progressTo(world.events, requestId));
    // Assert
    const response = ParseResponse.parse(
      await resultOf(world, `results/tenant-a/${requestId}.json`),
    );
    expect(response.timing).toEqual({
      total_ms: 500,
      classification_ms: 0,
      routing_ms: 0,
      vlm_processing_ms: 200,
      verification_ms: 0,
    });
  });

  it('marks the request completed with its result key and emits result.final', async () => {
    // Arrange
    const { world, requestId } = await parsed();
    // Act
    await deliver({ requestId }, world, progressTo(world.events, requestId));
    // Assert
    const key = `results/tenant-a/${requestId}.json`;
    const record = await world.requests.get(requestId);
    expect(record).toMatchObject({ status: 'completed', resultKey: key });
    expect((await eventsOf(world.events, requestId)).at(-1)).toEqual({
      event: 'result.final',
      result_key: key,
    });
  });

  it('stores the joined Markdown of the pages next to the JSON result', async () => {
    // Arrange
    const { world, requestId } = await parsed({
      engine: new FakeDocumentEngine({ pageCount: 2 }),
      textProvider: new FakePageProvider('pdf-text', (request) =>
        new FakePageProvider('x', { markdown: `page ${request.pageNumber}` }).parsePage(request),
      ),
    });
    // Act
    await deliver({ requestId }, world, progressTo(world.events, requestId));
    // Assert
    const key = `results/tenant-a/${requestId}.md`;
    expect(new TextDecoder().decode(await world.objects.get(key))).toBe('page 1\n\npage 2');
    expect(world.objects.contentTypeOf(key)).toBe('text/markdown');
  });

  it('joins a table cut by a page break in the stored Markdown and warns on the page continuing it', async () => {
    // Arrange: page 2 repeats the header of the table ending page 1; the page number and the
    // running header between them are grounded as page furniture.
    const header = '| Item | Cost |\n| --- | --- |';
    const page1 = `Costs:\n\n${header}\n| Pen | 2 |\n\n12`;
    const page2 = `ACME annual report\n\n${header}\n| Ink | 3 |\n\nTotal 5.`;
    const furniture = (text: string, label: 'header' | 'footer') => ({
      text,
      bbox: { x: 72, y: label === 'header' ? 20 : 1500, w: 300, h: 20 },
      label,
      elementType: label,
      confidence: 0.9,
    });
    const { world, requestId } = await parsed({
      engine: new FakeDocumentEngine({ pageCount: 2 }),
      textProvider: new FakePageProvider('pdf-text', (request) =>
        aProviderResult(
          request.pageNumber === 1
            ? { markdown: page1, evidenceText: null, elements: [furniture('12', 'footer')] }
            : {
                markdown: page2,
                evidenceText: null,
                elements: [furniture('ACME annual report', 'header')],
              },
        ),
      ),
    });
    // Act
    await deliver({ requestId }, world, progressTo(world.events, requestId));
    // Assert: one table in the document, the furniture after it; each page keeps its own part.
    const markdown = new TextDecoder().decode(
      await world.objects.get(`results/tenant-a/${requestId}.md`),
    );
    expect(markdown).toBe(
      `Costs:\n\n${header}\n| Pen | 2 |\n| Ink | 3 |\n\n12\n\nACME annual report\n\nTotal 5.`,
    );
    const response = ParseResponse.parse(
      await resultOf(world, `results/tenant-a/${requestId}.json`),
    );
    expect(response.pages.map((p) => p.content_markdown)).toEqual([page1, page2]);
    expect(response.pages[0]?.warnings).toEqual([]);
    expect(response.pages[1]?.warnings).toEqual([
      expect.objectContaining({
        kind: 'duplicate_region',
        page_number: 2,
        detail: expect.stringContaining('continues the table ending page 1') as unknown,
      }),
    ]);
  });

  it('rejects an unknown request with NotFoundError', async () => {
    // Arrange
    const world = aPipeline();
    // Act
    const result = deliver(
      { requestId: 'req_unknown' },
      world,
      progressTo(world.events, 'req_unknown'),
    );
    // Assert
    await expect(result).rejects.toBeInstanceOf(NotFoundError);
  });
});
