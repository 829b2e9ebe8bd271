import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderUnavailableError } from '../../../functions/core/domain/errors.js';
import type { PageParseRequest } from '../../../functions/core/ports/page-provider.js';
import {
  MISTRAL_FIGURE_CONFIDENCE,
  MistralOcrProvider,
  withoutImageLinks,
} from '../../../functions/providers/mistral-ocr.js';
import type { RemoteProviderSettings } from '../../../functions/providers/remote-provider.js';
import { FakeApiServer, fakeRasterizer } from '../../support/fake-api-server.js';

const request: PageParseRequest = {
  document: { key: 'uploads/doc', format: 'pdf', hash: 'h' },
  pageNumber: 1,
  dpi: null,
  profile: null,
  maintainFormat: true,
};

interface Image {
  id: string;
  top_left_x: number | null;
  top_left_y: number | null;
  bottom_right_x: number | null;
  bottom_right_y: number | null;
}

/** An OCR answer with one page measured at `width` × `height` (the raster is 200 × 100). */
function ocrAnswer(markdown: string, images: Image[] = [], width = 200, height = 100) {
  return {
    pages: [{ index: 0, markdown, images, dimensions: { dpi: 200, width, height } }],
    model: 'mistral-ocr-2505-completion',
    usage_info: { pages_processed: 1, doc_size_bytes: 1234 },
  };
}

let server: FakeApiServer;

function provider(overrides: Partial<RemoteProviderSettings> = {}): MistralOcrProvider {
  return new MistralOcrProvider(
    {
      id: 'mistral-ocr',
      model: 'mistral-ocr-latest',
      baseUrl: server.url,
      apiKey: 'mk-test',
      timeoutMs: 5_000,
      maxRetries: 2,
      maxOutputTokens: 8192,
      defaultDpi: 144,
      minRetryDelayMs: 5,
      ...overrides,
    },
    fakeRasterizer(),
  );
}

beforeAll(async () => {
  server = await FakeApiServer.start();
});
afterAll(async () => {
  await server.close();
});

describe('MistralOcrProvider', () => {
  it('sends the page image to /v1/ocr and returns the Markdown of the first page', async () => {
    // Arrange
    server.script({ body: ocrAnswer('# Report\n\n| a | b |\n|---|---|\n| 1 | 2 |\n') });
    // Act
    const result = await provider().parsePage(request);
    // Assert
    expect(server.requests).toHaveLength(1);
    const [sent] = server.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/ocr' });
    expect(sent?.headers.authorization).toBe('Bearer mk-test');
    expect(sent?.body).toEqual({
      model: 'mistral-ocr-latest',
      document: {
        type: 'image_url',
        image_url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) as unknown,
      },
      include_image_base64: false,
      include_blocks: false,
    });
    expect(result).toEqual({
      markdown: '# Report\n\n| a | b |\n|---|---|\n| 1 | 2 |',
      elements: [],
      dpi: 144,
      width: 200,
      height: 100,
      model: 'mistral-ocr-latest',
      tokens: { input: 0, output: 0 },
      ocrScore: null,
      layoutScore: 1,
      evidenceText: null,
    });
  });

  it('removes the image links and returns the images as figure boxes scaled to the raster', async () => {
    // Arrange: Mistral measured the page at 400 × 200, twice the raster's 200 × 100
    server.script({
      body: ocrAnswer(
        '# Title\n\n![img-0.jpeg](img-0.jpeg)\n\nSee the chart ![img-1.png](img-1.png) above.\n\n![logo](https://example.com/logo.png)',
        [
          {
            id: 'img-0.jpeg',
            top_left_x: 20,
            top_left_y: 40,
            bottom_right_x: 220,
            bottom_right_y: 140,
          },
          // Runs past the right and bottom edges: clipped to the page.
          {
            id: 'img-1.png',
            top_left_x: 300,
            top_left_y: 150,
            bottom_right_x: 480,
            bottom_right_y: 260,
          },
          // Not located: no element.
          {
            id: 'img-2.png',
            top_left_x: null,
            top_left_y: null,
            bottom_right_x: null,
            bottom_right_y: null,
          },
        ],
        400,
        200,
      ),
    });
    // Act
    const result = await provider().parsePage(request);
    // Assert
    expect(result.markdown).toBe(
      '# Title\n\nSee the chart  above.\n\n![logo](https://example.com/logo.png)',
    );
    expect(result.elements).toEqual([
      {
        text: '',
        bbox: { x: 10, y: 20, w: 100, h: 50 },
        label: 'figure',
        elementType: 'figure',
        confidence: MISTRAL_FIGURE_CONFIDENCE,
      },
      {
        text: '',
        bbox: { x: 150, y: 75, w: 50, h: 25 },
        label: 'figure',
        elementType: 'figure',
        confidence: MISTRAL_FIGURE_CONFIDENCE,
      },
    ]);
  });

  it('keeps the boxes in raster pixels when the answer gives no dimensions', async () => {
    // Arrange
    server.script({
      body: {
        pages: [
          {
            index: 0,
            markdown: '![img-0.jpeg](img-0.jpeg)',
            images: [
              {
                id: 'img-0.jpeg',
                top_left_x: 5,
                top_left_y: 6,
                bottom_right_x: 50,
                bottom_right_y: 60,
              },
            ],
            dimensions: null,
          },
        ],
        model: 'mistral-ocr-2505-completion',
        usage_info: { pages_processed: 1 },
      },
    });
    // Act
    const result = await provider().parsePage(request);
    // Assert
    expect(result.markdown).toBe('');
    expect(result.elements.map((e) => e.bbox)).toEqual([{ x: 5, y: 6, w: 45, h: 54 }]);
  });

  it('retries after a 429 with retry-after: 0 and then succeeds', async () => {
    // Arrange
    server.script(
      {
        status: 429,
        headers: { 'retry-after': '0' },
        body: { message: 'Requests rate limit exceeded' },
      },
      { body: ocrAnswer('Text') },
    );
    // Act
    const result = await provider().parsePage(request);
    // Assert
    expect(server.requests).toHaveLength(2);
    expect(result.markdown).toBe('Text');
  });

  it('throws ProviderUnavailableError after maxRetries + 1 attempts when every answer is a 5xx', async () => {
    // Arrange
    server.script({ status: 500, body: { message: 'internal error' } });
    // Act
    const outcome = provider({ maxRetries: 3 }).parsePage(request);
    // Assert
    await expect(outcome).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(outcome).rejects.toMatchObject({ details: { status: 500 } });
    expect(server.requests).toHaveLength(4);
  });

  it('throws ProviderUnavailableError on a 401 without retrying', async () => {
    // Arrange
    server.script({ status: 401, body: { message: 'Unauthorized' } });
    // Act
    const outcome = provider().parsePage(request);
    // Assert
    await expect(outcome).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(outcome).rejects.toThrow(/HTTP 401: Unauthorized/);
    expect(server.requests).toHaveLength(1);
  });

  it('throws ProviderUnavailableError when no answer comes within the deadline', async () => {
    // Arrange
    server.script({ delayMs: 1_000, body: ocrAnswer('late') });
    // Act
    const outcome = provider({ timeoutMs: 300 }).parsePage(request);
    // Assert
    await expect(outcome).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(outcome).rejects.toThrow(/within 300 ms/);
  });

  it('throws ProviderUnavailableError when the body is not JSON', async () => {
    // Arrange
    server.script({ body: 'upstream connect error' });
    // Act
    const outcome = provider().parsePage(request);
    // Assert
    await expect(outcome).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(outcome).rejects.toThrow(/not JSON/);
  });

  it('throws ProviderUnavailableError when the JSON has no pages', async () => {
    // Arrange
    server.script({ body: { model: 'mistral-ocr-latest', usage_info: { pages_processed: 0 } } });
    // Act
    const outcome = provider().parsePage(request);
    // Assert
    await expect(outcome).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(outcome).rejects.toThrow(/not an OCR result \(unexpected pages\)/);
  });

  it('throws ProviderUnavailableError when the pages list is empty', async () => {
    // Arrange
    server.script({
      body: { pages: [], model: 'mistral-ocr-latest', usage_info: { pages_processed: 0 } },
    });
    // Act / Assert
    await expect(provider().parsePage(request)).rejects.toThrow(/no pages/);
  });

  it('throws ProviderUnavailableError without the page text when the markdown is missing', async () => {
    // Arrange
    server.script({ body: { pages: [{ index: 0, text: 'SECRET-42', images: [] }] } });
    // Act
    const error = await provider()
      .parsePage(request)
      .catch((caught: unknown) => caught);
    // Assert
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    const { message, details } = error as ProviderUnavailableError;
    expect(message).toMatch(/unexpected pages\.0\.markdown/);
    expect(`${message} ${JSON.stringify(details)}`).not.toMatch(/SECRET-42/);
  });
});

describe('withoutImageLinks', () => {
  it('keeps links to images that are not extracted images', () => {
    // Arrange
    const markdown = 'A ![chart](img-0.jpeg) B ![photo](photo.jpg)\n\n\n\nC';
    // Act
    const cleaned = withoutImageLinks(markdown, [{ id: 'img-0.jpeg' }]);
    // Assert
    expect(cleaned).toBe('A  B ![photo](photo.jpg)\n\n\n\nC');
  });
});
