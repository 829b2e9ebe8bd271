import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GeminiProvider } from '../../../functions/providers/gemini.js';
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

const GENERATE_PATH = '/v1beta/models/gemini-2.5-flash:generateContent';

/** A finished `generateContent` answer whose text is `text`. */
const answer = (text: string, candidate: Record<string, unknown> = {}) => ({
  candidates: [
    {
      content: { role: 'model', parts: [{ text }] },
      finishReason: 'STOP',
      index: 0,
      ...candidate,
    },
  ],
  usageMetadata: {
    promptTokenCount: 2400,
    candidatesTokenCount: 30,
    thoughtsTokenCount: 12,
    totalTokenCount: 2442,
  },
});

/** The parts of a recorded request this test reads. */
interface SentBody {
  systemInstruction: { parts: { text: string }[] };
  contents: { parts: { text?: string; inlineData?: { mimeType: string; data: string } }[] }[];
  generationConfig: Record<string, unknown>;
}

describe('GeminiProvider.extract', () => {
  let server: FakeApiServer;
  const provider = (
    overrides: Partial<RemoteProviderSettings> = {},
    rasterizer = fakeRasterizer(),
  ) => {
    return new GeminiProvider(
      {
        id: 'google-gemini',
        model: 'gemini-2.5-flash',
        baseUrl: server.url,
        apiKey: 'test-key',
        timeoutMs: 2_000,
        maxRetries: 2,
        maxOutputTokens: 8192,
        defaultDpi: 144,
        minRetryDelayMs: 5,
        ...overrides,
      },
      rasterizer,
    );
  };

  beforeAll(async () => {
    server = await FakeApiServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  it('asks for JSON constrained by responseJsonSchema, with the Markdown and the page images', async () => {
    // Arrange
    server.script({ body: answer(JSON.stringify(INVOICE_DATA)) });
    const rasterizer = fakeRasterizer();
    // Act
    const result = await provider({}, rasterizer).extract(extractionRequest(3));
    // Assert
    expect(server.requests).toHaveLength(1);
    const [sent] = server.requests;
    expect(sent).toMatchObject({ method: 'POST', path: GENERATE_PATH });
    expect(sent?.headers['x-goog-api-key']).toBe('test-key');
    const body = sent?.body as SentBody;
    expect(body.systemInstruction).toEqual({ parts: [{ text: EXTRACTION_PROMPT }] });
    expect(body.generationConfig).toEqual({
      temperature: 0,
      maxOutputTokens: 8192,
      responseMimeType: 'application/json',
      responseJsonSchema: INVOICE_SCHEMA,
    });
    const parts = body.contents[0]!.parts;
    expect(parts).toHaveLength(4);
    expect(parts.slice(0, 3).map((part) => part.inlineData?.mimeType)).toEqual([
      'image/png',
      'image/png',
      'image/png',
    ]);
    expect(parts[0]?.inlineData?.data).toMatch(/^iVBOR/);
    expect(parts[3]?.text).toContain('<!-- page 3 -->\n# Page 3');
    expect(rasterizer.calls).toHaveLength(3);
    expect(result).toEqual({
      data: INVOICE_DATA,
      model: 'gemini-2.5-flash',
      tokens: { input: 2400, output: 42 },
    });
  });

  it('leaves thought parts out of the answer text', async () => {
    // Arrange
    server.script({
      body: answer('', {
        content: {
          parts: [{ text: 'The total is on page 1.', thought: true }, { text: '{"total": 7}' }],
        },
      }),
    });
    // Act
    const result = await provider().extract(extractionRequest());
    // Assert
    expect(result.data).toEqual({ total: 7 });
  });

  it.each(NOT_AN_OBJECT)(
    'fails as unavailable when the answer is %s, without quoting it',
    async (_what, text, reason) => {
      // Arrange
      server.script({ body: answer(text) });
      // Act
      const error = await unavailableOf(provider().extract(extractionRequest()));
      // Assert
      expect(error.message).toMatch(reason);
      expect(`${error.message} ${JSON.stringify(error.details)}`).not.toContain('INV-0042');
    },
  );

  it('fails as unavailable when the answer stops at MAX_TOKENS', async () => {
    // Arrange
    server.script({ body: answer('{"invoice_', { finishReason: 'MAX_TOKENS' }) });
    // Act
    const error = await unavailableOf(provider().extract(extractionRequest()));
    // Assert
    expect(error.message).toMatch(/truncated/);
  });

  it('waits out a 429 with retry-after: 0 and succeeds on the second request', async () => {
    // Arrange
    server.script(
      {
        status: 429,
        headers: { 'retry-after': '0' },
        body: { error: { code: 429, message: 'Resource exhausted', status: 'RESOURCE_EXHAUSTED' } },
      },
      { body: answer(JSON.stringify(INVOICE_DATA)) },
    );
    // Act
    const result = await provider().extract(extractionRequest());
    // Assert
    expect(server.requests).toHaveLength(2);
    expect(result.data).toEqual(INVOICE_DATA);
  });

  it('throws ProviderUnavailableError on a 401 without retrying', async () => {
    // Arrange
    server.script({
      status: 401,
      body: { error: { code: 401, message: 'API key not valid', status: 'UNAUTHENTICATED' } },
    });
    // Act
    const error = await unavailableOf(provider().extract(extractionRequest()));
    // Assert
    expect(error.message).toMatch(/HTTP 401: API key not valid/);
    expect(server.requests).toHaveLength(1);
  });
});
