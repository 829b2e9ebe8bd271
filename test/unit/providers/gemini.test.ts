import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderUnavailableError } from '../../../functions/core/domain/errors.js';
import type { PageParseRequest } from '../../../functions/core/ports/page-provider.js';
import { GeminiProvider } from '../../../functions/providers/gemini.js';
import {
  PAGE_TRANSCRIPTION_PROMPT,
  type RemoteProviderSettings,
} from '../../../functions/providers/remote-provider.js';
import { FakeApiServer, fakeRasterizer } from '../../support/fake-api-server.js';

const PAGE: PageParseRequest = {
  document: { key: 'doc', format: 'pdf', hash: 'doc-hash' },
  pageNumber: 1,
  dpi: null,
  profile: null,
  maintainFormat: true,
};

const GENERATE_PATH = '/v1beta/models/gemini-2.5-flash:generateContent';

/** A finished `generateContent` answer; `candidate` overrides fields of the first candidate. */
const answer = (candidate: Record<string, unknown> = {}, top: Record<string, unknown> = {}) => ({
  candidates: [
    {
      content: { role: 'model', parts: [{ text: '# Invoice\n\nTotal: 42 EUR\n' }] },
      finishReason: 'STOP',
      avgLogprobs: -0.05,
      index: 0,
      ...candidate,
    },
  ],
  usageMetadata: { promptTokenCount: 1290, candidatesTokenCount: 12, totalTokenCount: 1302 },
  modelVersion: 'gemini-2.5-flash',
  ...top,
});

/** The body the fake API received, typed loosely for assertions. */
interface SentBody {
  contents: { parts: { inlineData?: { data: string } }[] }[];
  generationConfig: Record<string, unknown>;
}

/** The error a call rejects with, asserted to be a ProviderUnavailableError. */
async function failureOf(promise: Promise<unknown>): Promise<ProviderUnavailableError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProviderUnavailableError);
  return error as ProviderUnavailableError;
}

describe('GeminiProvider', () => {
  let server: FakeApiServer;
  const settings = (overrides: Partial<RemoteProviderSettings> = {}): RemoteProviderSettings => ({
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
  });
  const provider = (overrides: Partial<RemoteProviderSettings> = {}) => {
    return new GeminiProvider(settings(overrides), fakeRasterizer());
  };

  beforeAll(async () => {
    server = await FakeApiServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  it('sends the page to generateContent and returns its Markdown and token probability', async () => {
    // Arrange
    server.script({ status: 200, body: answer() });
    // Act
    const result = await provider().parsePage(PAGE);
    // Assert: the request, with the key in a header and never in the URL
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'POST', path: GENERATE_PATH });
    expect(request!.path).not.toContain('key=');
    expect(request!.headers['x-goog-api-key']).toBe('test-key');
    expect(request!.body).toMatchObject({
      systemInstruction: { parts: [{ text: PAGE_TRANSCRIPTION_PROMPT }] },
      contents: [
        {
          role: 'user',
          parts: [{ inlineData: { mimeType: 'image/png' } }, { text: 'Transcribe this page.' }],
        },
      ],
      generationConfig: { temperature: 0, maxOutputTokens: 8192, responseLogprobs: true },
    });
    const sent = request!.body as SentBody;
    const png = Buffer.from(sent.contents[0]!.parts[0]!.inlineData!.data, 'base64');
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    // Assert: the result
    expect(result).toMatchObject({
      markdown: '# Invoice\n\nTotal: 42 EUR',
      elements: [],
      dpi: 144,
      width: 200,
      height: 100,
      model: 'gemini-2.5-flash',
      tokens: { input: 1290, output: 12 },
      ocrScore: Math.round(Math.exp(-0.05) * 1000) / 1000,
      evidenceText: null,
    });
  });

  it('accepts a model id with the models/ prefix and joins the answer parts, thoughts left out', async () => {
    // Arrange
    server.script({
      status: 200,
      body: answer(
        {
          content: {
            parts: [
              { text: 'planning the transcription', thought: true },
              { text: 'Line one\n' },
              { text: 'Line two' },
            ],
          },
        },
        {
          usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 8, thoughtsTokenCount: 30 },
        },
      ),
    });
    // Act
    const result = await provider({ model: 'models/gemini-2.5-flash' }).parsePage(PAGE);
    // Assert
    expect(server.requests[0]!.path).toBe(GENERATE_PATH);
    expect(result.markdown).toBe('Line one\nLine two');
    expect(result.tokens).toEqual({ input: 100, output: 38 });
  });

  it('scores from the chosen tokens when avgLogprobs is absent, and null without either', async () => {
    // Arrange
    const chosen = [
      { token: 'Line', logProbability: -0.1 },
      { token: ' one', logProbability: -0.3 },
    ];
    server.script(
      {
        status: 200,
        body: answer({ avgLogprobs: undefined, logprobsResult: { chosenCandidates: chosen } }),
      },
      { status: 200, body: answer({ avgLogprobs: undefined }) },
    );
    const gemini = provider();
    // Act
    const fromTokens = await gemini.parsePage(PAGE);
    const without = await gemini.parsePage(PAGE);
    // Assert
    expect(fromTokens.ocrScore).toBe(Math.round(Math.exp(-0.2) * 1000) / 1000);
    expect(without.ocrScore).toBeNull();
  });

  it('waits out a 429 with retry-after: 0 and succeeds on the second request', async () => {
    // Arrange
    server.script(
      {
        status: 429,
        headers: { 'retry-after': '0' },
        body: { error: { code: 429, message: 'Resource exhausted', status: 'RESOURCE_EXHAUSTED' } },
      },
      { status: 200, body: answer() },
    );
    // Act
    const result = await provider().parsePage(PAGE);
    // Assert
    expect(server.requests).toHaveLength(2);
    expect(result.markdown).toBe('# Invoice\n\nTotal: 42 EUR');
  });

  it.each([500, 503])(
    'gives up with ProviderUnavailableError when every attempt answers %i',
    async (status) => {
      // Arrange
      server.script({
        status,
        body: {
          error: { code: status, message: 'The model is overloaded.', status: 'UNAVAILABLE' },
        },
      });
      // Act
      const error = await failureOf(provider({ maxRetries: 2 }).parsePage(PAGE));
      // Assert
      expect(server.requests).toHaveLength(3);
      expect(error.details).toMatchObject({ provider: 'google-gemini', status });
    },
  );

  it.each([401, 403])('fails at once on HTTP %i without retrying', async (status) => {
    // Arrange
    server.script({
      status,
      body: { error: { code: status, message: 'API key not valid.', status: 'PERMISSION_DENIED' } },
    });
    // Act
    const error = await failureOf(provider().parsePage(PAGE));
    // Assert
    expect(server.requests).toHaveLength(1);
    expect(error.message).toContain(`HTTP ${status}`);
    expect(error.message).not.toContain('test-key');
  });

  it('fails when the API does not answer within the deadline', async () => {
    // Arrange
    server.script({ status: 200, body: answer(), delayMs: 1_500 });
    const started = Date.now();
    // Act
    const error = await failureOf(provider({ timeoutMs: 300, maxRetries: 0 }).parsePage(PAGE));
    // Assert
    expect(error.message).toMatch(/no answer within 300 ms/);
    expect(Date.now() - started).toBeLessThan(1_400);
  });

  it('fails with "truncated" when the answer stops at MAX_TOKENS', async () => {
    // Arrange
    server.script({ status: 200, body: answer({ finishReason: 'MAX_TOKENS' }) });
    // Act
    const error = await failureOf(provider({ maxOutputTokens: 64 }).parsePage(PAGE));
    // Assert
    expect(error.message).toMatch(/truncated/);
    expect(error.message).toContain('64');
  });

  it.each(['SAFETY', 'RECITATION', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'OTHER'])(
    'fails naming the reason when the candidate stops with %s',
    async (finishReason) => {
      // Arrange
      server.script({
        status: 200,
        body: answer({ finishReason, content: { parts: [{ text: 'partial' }] } }),
      });
      // Act
      const error = await failureOf(provider().parsePage(PAGE));
      // Assert
      expect(error.message).toContain(finishReason);
      expect(error.details).toMatchObject({ provider: 'google-gemini' });
    },
  );

  it('fails naming the block reason when the prompt is blocked', async () => {
    // Arrange
    server.script({
      status: 200,
      body: {
        promptFeedback: { blockReason: 'PROHIBITED_CONTENT' },
        usageMetadata: { promptTokenCount: 1290, totalTokenCount: 1290 },
      },
    });
    // Act
    const error = await failureOf(provider().parsePage(PAGE));
    // Assert
    expect(error.message).toMatch(/blocked: PROHIBITED_CONTENT/);
  });

  it('fails when the body is not JSON', async () => {
    // Arrange
    server.script({ status: 200, body: '<html>gateway</html>' });
    // Act
    const error = await failureOf(provider().parsePage(PAGE));
    // Assert
    expect(error.message).toMatch(/not JSON/);
  });

  it.each([
    ['no candidates', { usageMetadata: { promptTokenCount: 10 } }],
    ['an empty candidate list', answer({}, { candidates: [] })],
    ['a candidate without content', answer({ content: undefined })],
    ['candidates that are not a list', answer({}, { candidates: 'hello' })],
  ])('fails on a JSON answer with %s', async (_case, body) => {
    // Arrange
    server.script({ status: 200, body });
    // Act
    const error = await failureOf(provider().parsePage(PAGE));
    // Assert
    expect(error.message).toMatch(/malformed answer/);
  });

  it('repeats the call without responseLogprobs when the model rejects them, and remembers', async () => {
    // Arrange
    server.script(
      {
        status: 400,
        body: {
          error: {
            code: 400,
            message: 'Logprobs is not enabled for models/gemini-2.5-flash',
            status: 'INVALID_ARGUMENT',
          },
        },
      },
      { status: 200, body: answer({ avgLogprobs: undefined }) },
    );
    const gemini = provider();
    // Act
    const first = await gemini.parsePage(PAGE);
    const firstRequests = [...server.requests];
    server.script({ status: 200, body: answer({ avgLogprobs: undefined }) });
    const second = await gemini.parsePage(PAGE);
    // Assert: one refused and one plain request, then only plain requests
    expect(firstRequests).toHaveLength(2);
    const configs = [...firstRequests, ...server.requests].map(
      (request) => (request.body as SentBody).generationConfig,
    );
    expect(configs[0]).toHaveProperty('responseLogprobs', true);
    expect(configs[1]).not.toHaveProperty('responseLogprobs');
    expect(configs[2]).not.toHaveProperty('responseLogprobs');
    expect(server.requests).toHaveLength(1);
    expect(first.markdown).toBe('# Invoice\n\nTotal: 42 EUR');
    expect(first.ocrScore).toBeNull();
    expect(second.markdown).toBe('# Invoice\n\nTotal: 42 EUR');
  });

  it('does not fall back on a 400 about something other than logprobs', async () => {
    // Arrange
    server.script({
      status: 400,
      body: { error: { code: 400, message: 'Invalid image data.', status: 'INVALID_ARGUMENT' } },
    });
    // Act
    const error = await failureOf(provider().parsePage(PAGE));
    // Assert
    expect(server.requests).toHaveLength(1);
    expect(error.message).toContain('HTTP 400');
  });
});
