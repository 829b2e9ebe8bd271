import { describe, expect, it } from 'vitest';
import { ProviderUnavailableError } from '../../../../functions/core/domain/errors.js';
import { classify } from '../../../../functions/core/domain/pipeline/classify.js';
import { ingest } from '../../../../functions/core/domain/pipeline/ingest.js';
import {
  failoverOrder,
  parsePage,
  readCheckpoints,
} from '../../../../functions/core/domain/pipeline/parse-page.js';
import { route } from '../../../../functions/core/domain/pipeline/route.js';
import type { ParseOptions } from '../../../../functions/core/domain/request.js';
import { canParse, chooseProvider } from '../../../../functions/core/domain/routing.js';
import {
  FakeDocumentEngine,
  FakePageProvider,
  aPipeline,
  aStoredRequest,
  pageFeatures,
  parseOptions,
  progressTo,
  providerRegistry,
  type PipelineOptions,
} from '../../../support/builders.js';

/** An office page: the file's own text, no image to render. */
const officePage = () => pageFeatures({ hasPageImage: false, textChars: 800 });

async function routedOfficePage(options: PipelineOptions, parse: Partial<ParseOptions> = {}) {
  const world = aPipeline({
    engine: new FakeDocumentEngine({ pageCount: 1, features: officePage }),
    ...options,
  });
  const record = await aStoredRequest(world, { options: parseOptions(parse) });
  const progress = progressTo(world.events, record.id);
  await ingest({ requestId: record.id }, world, progress);
  await classify({ requestId: record.id }, world, progress);
  return { world, requestId: record.id, progress };
}

describe('pages without a page image (office, HTML, Markdown)', () => {
  it('can be parsed only by text-layer providers', () => {
    // Arrange
    const textLayer = { needsTextLayer: true };
    const imageReader = { needsTextLayer: false };
    // Act
    const office = [canParse(textLayer, officePage()), canParse(imageReader, officePage())];
    const pdf = [canParse(textLayer, pageFeatures()), canParse(imageReader, pageFeatures())];
    // Assert
    expect(office).toEqual([true, false]);
    expect(pdf).toEqual([true, true]);
  });

  it('are routed past a vision model to the text-layer provider', async () => {
    // Arrange
    const vlm = new FakePageProvider('vlm');
    const text = new FakePageProvider('pdf-text');
    const providers = providerRegistry(
      [
        { provider: vlm, needsTextLayer: false, generative: true },
        { provider: text, needsTextLayer: true },
      ],
      { fast: ['vlm', 'pdf-text'] },
    );
    const { world, requestId, progress } = await routedOfficePage({ providers });
    // Act
    const { pages } = await route({ requestId }, world, progress);
    // Assert
    expect(pages).toEqual([{ requestId, pageNumber: 1 }]);
    expect((await world.requests.get(requestId))?.routes?.[0]).toMatchObject({
      tier: 'fast',
      provider: 'pdf-text',
    });
    expect(chooseProvider(providers.chain('fast'), officePage())?.id).toBe('pdf-text');
  });

  it('find no provider when only image readers are configured (503, no provider called)', async () => {
    // Arrange
    const ocr = new FakePageProvider('ocr');
    const providers = providerRegistry([{ provider: ocr, needsTextLayer: false }]);
    const { world, requestId, progress } = await routedOfficePage({ providers });
    // Act
    const routing = route({ requestId }, world, progress);
    // Assert
    await expect(routing).rejects.toBeInstanceOf(ProviderUnavailableError);
    expect(ocr.calls).toHaveLength(0);
  });

  it('never fail over to OCR when the text-layer provider fails', async () => {
    // Arrange
    const busy = new FakePageProvider('pdf-text', () => {
      throw new ProviderUnavailableError('pdf-text is busy');
    });
    const { world, requestId, progress } = await routedOfficePage({ textProvider: busy });
    await route({ requestId }, world, progress);
    // Act
    const parsing = parsePage({ requestId, pageNumber: 1 }, world, progress);
    // Assert
    await expect(parsing).rejects.toThrow(/every provider of the fast tier failed/);
    expect(world.ocrProvider.calls).toHaveLength(0);
    expect(failoverOrder(world.providers.chain('fast'), 'pdf-text', true, false)).toEqual([
      'pdf-text',
    ]);
  });

  it('are not re-routed to OCR when their confidence is low', async () => {
    // Arrange
    const weak = new FakePageProvider('pdf-text', {
      layoutScore: 0.3,
      ocrScore: 0.3,
      evidenceText: null,
    });
    const { world, requestId, progress } = await routedOfficePage(
      { textProvider: weak },
      { enable_verification: true },
    );
    await route({ requestId }, world, progress);
    // Act
    await parsePage({ requestId, pageNumber: 1 }, world, progress);
    // Assert
    const [page] = await readCheckpoints(world, requestId);
    expect(page).toMatchObject({ provider: 'pdf-text', re_routed: false });
    expect(String(page?.re_route_result?.outcome)).toMatch(
      /no other provider of the pro tier can parse this page/,
    );
    expect(world.ocrProvider.calls).toHaveLength(0);
  });
});
