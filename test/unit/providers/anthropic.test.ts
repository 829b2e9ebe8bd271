import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderUnavailableError } from '../../../functions/core/domain/errors.js';
import type { PageParseRequest } from '../../../functions/core/ports/page-provider.js';
import { AnthropicProvider } from '../../../functions/providers/anthropic.js';
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

/** A finished Messages API answer. */
const message = (overrides: Record<string, unknown> = {}) => ({
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-6',
  content: [{ type: 'text', text: '# Invoice\n\nTotal: 42 EUR\n' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 1234, output_tokens: 56 },
  ...overrides,
});

/** The base64 PNG of the first request's image block. */
function sentImage(body: unknown): string {
  const messages = (body as { messages: { content: { source?: { data: string } }[] }[] }).messages;
  return messages[0]!.content[0]!.source!.data;
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

describe('AnthropicProvider', () => {
  let server: FakeApiServer;
  const settings = (overrides: Partial<RemoteProviderSettings> = {}): RemoteProviderSettings => ({
    id: 'anthropic-claude',
    model: 'claude-sonnet-4-6',
    baseUrl: server.url,
    apiKey: 'test-key',
    timeoutMs: 2_000,
    maxRetries: 2,
    maxOutputTokens: 4096,
    defaultDpi: 144,
    minRetryDelayMs: 5,
    ...overrides,
  });
  const provider = (overrides: Partial<RemoteProviderSettings> = {}) => {
    return new AnthropicProvider(settings(overrides), fakeRasterizer());
  };

  beforeAll(async () => {
    server = await FakeApiServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  it('sends the page as a Messages API request and returns its Markdown', async () => {
    // Arrange
    server.script({ status: 200, body: message() });
    const anthropic = provider();
    // Act
    const result = await anthropic.parsePage(PAGE);
    // Assert: the request
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/messages' });
    expect(request!.headers.authorization).toBe('Bearer test-key');
    // The API version is the SDK's own.
    expect(request!.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(request!.body).toMatchObject({
      model: 'claude-sonnet-4-6',
      max_tokens: 4096,
      system: PAGE_TRANSCRIPTION_PROMPT,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png' } },
            { type: 'text', text: 'Transcribe this page.' },
          ],
        },
      ],
    });
    const png = Buffer.from(sentImage(request!.body), 'base64');
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    // Assert: the result
    expect(result).toMatchObject({
      markdown: '# Invoice\n\nTotal: 42 EUR',
      elements: [],
      dpi: 144,
      width: 200,
      height: 100,
      model: 'claude-sonnet-4-6',
      tokens: { input: 1234, output: 56 },
      ocrScore: null,
      evidenceText: null,
    });
    expect(anthropic.id).toBe('anthropic-claude');
    expect(result.layoutScore).toBe(1);
  });

  it('renders at the requested DPI and joins only the text blocks', async () => {
    // Arrange
    server.script({
      status: 200,
      body: message({
        content: [
          { type: 'text', text: 'Line one\n' },
          { type: 'thinking', thinking: 'not part of the page' },
          { type: 'text', text: 'Line two' },
        ],
      }),
    });
    const rasterizer = fakeRasterizer();
    const anthropic = new AnthropicProvider(settings(), rasterizer);
    // Act
    const result = await anthropic.parsePage({ ...PAGE, dpi: 300 });
    // Assert
    expect(rasterizer.calls).toEqual([{ dpi: 300 }]);
    expect(result.dpi).toBe(300);
    expect(result.markdown).toBe('Line one\nLine two');
  });

  it('waits out a 429 with retry-after: 0 and succeeds on the second request', async () => {
    // Arrange
    server.script(
      {
        status: 429,
        headers: { 'retry-after': '0' },
        body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
      },
      { status: 200, body: message() },
    );
    // Act
    const result = await provider().parsePage(PAGE);
    // Assert
    expect(server.requests).toHaveLength(2);
    expect(result.markdown).toBe('# Invoice\n\nTotal: 42 EUR');
  });

  it.each([500, 503, 529])(
    'gives up with ProviderUnavailableError when every attempt answers %i',
    async (status) => {
      // Arrange
      server.script({
        status,
        body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      });
      // Act
      const error = await failureOf(provider({ maxRetries: 2 }).parsePage(PAGE));
      // Assert
      expect(server.requests).toHaveLength(3);
      expect(error.details).toMatchObject({ provider: 'anthropic-claude', status });
    },
  );

  it.each([401, 403])('fails at once on HTTP %i without retrying', async (status) => {
    // Arrange
    server.script({
      status,
      body: {
        type: 'error',
        error: { type: 'authentication_error', message: 'invalid x-api-key' },
      },
    });
    // Act
    const error = await failureOf(provider().parsePage(PAGE));
    // Assert
    expect(server.requests).toHaveLength(1);
    expect(error.message).toContain(`HTTP ${status}`);
    expect(error.message).toContain('invalid x-api-key');
    expect(error.message).not.toContain('test-key');
  });

  it('fails when the API does not answer within the deadline', async () => {
    // Arrange
    server.script({ status: 200, body: message(), delayMs: 1_500 });
    const started = Date.now();
    // Act
    const error = await failureOf(provider({ timeoutMs: 300, maxRetries: 0 }).parsePage(PAGE));
    // Assert
    expect(error.message).toMatch(/no answer within 300 ms/);
    expect(Date.now() - started).toBeLessThan(1_400);
  });

  it('fails with "truncated" when the answer stops at max_tokens', async () => {
    // Arrange
    server.script({ status: 200, body: message({ stop_reason: 'max_tokens' }) });
    // Act
    const error = await failureOf(provider({ maxOutputTokens: 64 }).parsePage(PAGE));
    // Assert
    expect(error.message).toMatch(/truncated/);
    expect(error.message).toContain('64');
    expect(server.requests).toHaveLength(1);
  });

  it('fails when the model refuses the page', async () => {
    // Arrange
    server.script({
      status: 200,
      body: message({ content: [], stop_reason: 'refusal' }),
    });
    // Act
    const error = await failureOf(provider().parsePage(PAGE));
    // Assert
    expect(error.message).toMatch(/refused/);
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
    ['no content', { id: 'msg_01', stop_reason: 'end_turn', usage: {} }],
    ['content that is not a list', message({ content: 'hello' })],
    ['a JSON array', [message()]],
  ])('fails on a JSON answer with %s', async (_case, body) => {
    // Arrange
    server.script({ status: 200, body });
    // Act
    const error = await failureOf(provider().parsePage(PAGE));
    // Assert
    expect(error.message).toMatch(/malformed answer/);
  });

  it('sends no credential to a keyless server and accepts a trailing slash on the base URL', async () => {
    // Arrange
    server.script({ status: 200, body: message() });
    const keyless = provider({ apiKey: undefined, baseUrl: `${server.url}/` });
    // Act
    await keyless.parsePage(PAGE);
    // Assert
    expect(server.requests[0]!.path).toBe('/v1/messages');
    expect(server.requests[0]!.headers).not.toHaveProperty('x-api-key');
    expect(server.requests[0]!.headers).not.toHaveProperty('authorization');
  });
});
