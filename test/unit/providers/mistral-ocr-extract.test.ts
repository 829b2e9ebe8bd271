import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MistralOcrProvider } from '../../../functions/providers/mistral-ocr.js';
import {
  EXTRACTION_PROMPT,
  type RemoteProviderSettings,
} from '../../../functions/providers/remote-provider.js';
import { FakeApiServer, fakeRasterizer } from '../../support/fake-api-server.js';
import {
  INVOICE_DATA,
  INVOICE_SCHEMA,
  NOT_AN_OBJECT,
  extractionRequest,
  unavailableOf,
} from './extraction-fixtures.js';

/** An OCR answer of one page with `annotation` as its document annotation. */
const annotated = (annotation: unknown) => ({
  pages: [{ index: 0, markdown: '# Page 1', images: [], dimensions: null }],
  model: 'mistral-ocr-2505',
  document_annotation: annotation,
  usage_info: { pages_processed: 1, doc_size_bytes: 1234 },
});

/** The parts of a recorded request this test reads. */
interface SentBody {
  model: string;
  document: { type: string; image_url: string };
  document_annotation_format: Record<string, unknown>;
  document_annotation_prompt: string;
}

let server: FakeApiServer;

function provider(
  overrides: Partial<RemoteProviderSettings> = {},
  rasterizer = fakeRasterizer(),
): MistralOcrProvider {
  return new MistralOcrProvider(
    {
      id: 'mistral-ocr',
      model: 'mistral-ocr-latest',
      baseUrl: server.url,
      apiKey: 'mistral-key',
      timeoutMs: 5_000,
      maxRetries: 2,
      maxOutputTokens: 4096,
      defaultDpi: 144,
      minRetryDelayMs: 5,
      ...overrides,
    },
    rasterizer,
  );
}

beforeAll(async () => {
  server = await FakeApiServer.start();
});
afterAll(async () => {
  await server.close();
});

describe('MistralOcrProvider.extract', () => {
  it('asks for a document annotation in the schema, the first page as the document and the Markdown in the prompt', async () => {
    // Arrange
    server.script({ body: annotated(JSON.stringify(INVOICE_DATA)) });
    const rasterizer = fakeRasterizer();
    // Act
    const result = await provider({}, rasterizer).extract(extractionRequest(3));
    // Assert
    expect(server.requests).toHaveLength(1);
    const [sent] = server.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/ocr' });
    expect(sent?.headers.authorization).toBe('Bearer mistral-key');
    const body = sent?.body as SentBody;
    expect(body).toMatchObject({
      model: 'mistral-ocr-latest',
      document: { type: 'image_url' },
      include_image_base64: false,
      include_blocks: false,
      document_annotation_format: {
        type: 'json_schema',
        json_schema: { name: 'record_extraction', schema: INVOICE_SCHEMA, strict: false },
      },
    });
    expect(body.document.image_url).toMatch(/^data:image\/png;base64,iVBOR/);
    expect(body.document_annotation_prompt.startsWith(EXTRACTION_PROMPT)).toBe(true);
    expect(body.document_annotation_prompt).toContain('The images show page 1.');
    expect(body.document_annotation_prompt).toContain('<!-- page 3 -->\n# Page 3');
    expect(rasterizer.calls).toEqual([{ dpi: 144 }]);
    expect(result).toEqual({
      data: INVOICE_DATA,
      model: 'mistral-ocr-latest',
      tokens: { input: 0, output: 0 },
    });
  });

  it.each(NOT_AN_OBJECT)(
    'fails as unavailable when the annotation is %s, without quoting it',
    async (_what, annotation, reason) => {
      // Arrange
      server.script({ body: annotated(annotation) });
      // Act
      const error = await unavailableOf(provider().extract(extractionRequest()));
      // Assert
      expect(error.message).toMatch(reason);
      expect(`${error.message} ${JSON.stringify(error.details)}`).not.toContain('INV-0042');
    },
  );

  it('fails as unavailable when the answer has no annotation, or not as text', async () => {
    // Arrange
    server.script({ body: annotated(null) }, { body: annotated({ invoice_number: 'INV-0042' }) });
    const subject = provider();
    // Act
    const missing = await unavailableOf(subject.extract(extractionRequest()));
    const notText = await unavailableOf(subject.extract(extractionRequest()));
    // Assert
    expect(missing.message).toMatch(/the extraction is empty/);
    // The SDK checks the answer's shape: an object there is not an OCR result.
    expect(notText.message).toMatch(/not an OCR result \(unexpected document_annotation\)/);
  });

  it('fails as unavailable without calling the API when the request has no page', async () => {
    // Arrange
    server.script({ body: annotated('{}') });
    // Act
    const error = await unavailableOf(provider().extract(extractionRequest(0)));
    // Assert
    expect(error.message).toMatch(/no page to annotate/);
    expect(server.requests).toHaveLength(0);
  });

  it('retries after a 429 with retry-after: 0 and then succeeds', async () => {
    // Arrange
    server.script(
      { status: 429, headers: { 'retry-after': '0' }, body: { message: 'Requests rate limit' } },
      { body: annotated(JSON.stringify(INVOICE_DATA)) },
    );
    // Act
    const result = await provider().extract(extractionRequest());
    // Assert
    expect(server.requests).toHaveLength(2);
    expect(result.data).toEqual(INVOICE_DATA);
  });

  it('throws ProviderUnavailableError on a 401 without retrying', async () => {
    // Arrange
    server.script({ status: 401, body: { message: 'Unauthorized', request_id: 'r-1' } });
    // Act
    const error = await unavailableOf(provider().extract(extractionRequest()));
    // Assert
    expect(error.message).toMatch(/HTTP 401: Unauthorized/);
    expect(server.requests).toHaveLength(1);
  });
});
