import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderUnavailableError } from '../../../functions/core/domain/errors.js';
import type { PageParseRequest } from '../../../functions/core/ports/page-provider.js';
import { OpenAiCompatibleProvider } from '../../../functions/providers/openai-compatible.js';
import {
  PAGE_TRANSCRIPTION_PROMPT,
  type RemoteProviderSettings,
} from '../../../functions/providers/remote-provider.js';
import { FakeApiServer, fakeRasterizer } from '../../support/fake-api-server.js';

const request: PageParseRequest = {
  document: { key: 'uploads/doc', format: 'pdf', hash: 'h' },
  pageNumber: 1,
  dpi: null,
  profile: null,
  maintainFormat: true,
};

/** A Chat Completion answering `content`, with usage and log-probabilities. */
function completion(
  content: unknown,
  overrides: { finishReason?: string; logprobs?: number[] | null; refusal?: string } = {},
) {
  const logprobs =
    overrides.logprobs === undefined ? [Math.log(0.9), Math.log(0.8)] : overrides.logprobs;
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: 'gpt-4o-2024-08-06',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: overrides.refusal ?? null },
        finish_reason: overrides.finishReason ?? 'stop',
        logprobs: logprobs
          ? { content: logprobs.map((logprob) => ({ token: 't', logprob })) }
          : null,
      },
    ],
    usage: { prompt_tokens: 812, completion_tokens: 34, total_tokens: 846 },
  };
}

let server: FakeApiServer;

function provider(overrides: Partial<RemoteProviderSettings> = {}): OpenAiCompatibleProvider {
  return new OpenAiCompatibleProvider(
    {
      id: 'openai-gpt-4o',
      model: 'gpt-4o',
      baseUrl: `${server.url}/v1`,
      apiKey: 'sk-test',
      timeoutMs: 5_000,
      maxRetries: 2,
      maxOutputTokens: 4096,
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

describe('OpenAiCompatibleProvider', () => {
  it('sends the page image to /chat/completions and returns the Markdown with tokens and ocrScore', async () => {
    // Arrange
    server.script({ body: completion('# Invoice\n\nTotal: 12.00\n') });
    // Act
    const result = await provider().parsePage(request);
    // Assert
    expect(server.requests).toHaveLength(1);
    const [sent] = server.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(sent?.headers.authorization).toBe('Bearer sk-test');
    expect(sent?.body).toMatchObject({
      model: 'gpt-4o',
      max_tokens: 4096,
      temperature: 0,
      logprobs: true,
      messages: [
        { role: 'system', content: PAGE_TRANSCRIPTION_PROMPT },
        {
          role: 'user',
          content: [
            { type: 'text' },
            {
              type: 'image_url',
              image_url: {
                url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) as unknown,
                detail: 'high',
              },
            },
          ],
        },
      ],
    });
    expect(result).toMatchObject({
      markdown: '# Invoice\n\nTotal: 12.00',
      elements: [],
      dpi: 144,
      width: 200,
      height: 100,
      model: 'gpt-4o',
      tokens: { input: 812, output: 34 },
      evidenceText: null,
    });
    // exp(mean(ln 0.9, ln 0.8)) = sqrt(0.72)
    expect(result.ocrScore).toBeCloseTo(Math.sqrt(0.72), 3);
    expect(result.layoutScore).toBe(1);
  });

  it('renders at the requested DPI when the request gives one', async () => {
    // Arrange
    server.script({ body: completion('Text') });
    // Act
    const result = await provider().parsePage({ ...request, dpi: 300 });
    // Assert
    expect(result.dpi).toBe(300);
  });

  it('sends no Authorization header to a keyless server and accepts content parts', async () => {
    // Arrange
    server.script({
      body: {
        choices: [
          {
            message: {
              content: [
                { type: 'text', text: 'Hello ' },
                { type: 'text', text: 'world' },
              ],
            },
            finish_reason: 'stop',
          },
        ],
      },
    });
    // Act
    const result = await provider({ apiKey: undefined }).parsePage(request);
    // Assert
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(result.markdown).toBe('Hello world');
    expect(result.tokens).toEqual({ input: 0, output: 0 });
    expect(result.ocrScore).toBeNull();
  });

  it('retries after a 429 with retry-after: 0 and then succeeds', async () => {
    // Arrange
    server.script(
      { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'slow down' } } },
      { body: completion('Page text') },
    );
    // Act
    const result = await provider().parsePage(request);
    // Assert
    expect(server.requests).toHaveLength(2);
    expect(result.markdown).toBe('Page text');
  });

  it('throws ProviderUnavailableError after maxRetries + 1 attempts when every answer is a 5xx', async () => {
    // Arrange
    server.script({ status: 503, body: { error: { message: 'overloaded' } } });
    // Act
    const outcome = provider({ maxRetries: 2 }).parsePage(request);
    // Assert
    await expect(outcome).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(outcome).rejects.toMatchObject({ details: { status: 503 } });
    expect(server.requests).toHaveLength(3);
  });

  it('throws ProviderUnavailableError on a 401 without retrying', async () => {
    // Arrange
    server.script({ status: 401, body: { error: { message: 'Incorrect API key provided' } } });
    // Act
    const outcome = provider().parsePage(request);
    // Assert
    await expect(outcome).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(outcome).rejects.toThrow(/HTTP 401: Incorrect API key/);
    expect(server.requests).toHaveLength(1);
  });

  it('throws ProviderUnavailableError naming the network error when nothing listens at base_url', async () => {
    // Arrange
    const gone = await FakeApiServer.start();
    const baseUrl = `${gone.url}/v1`;
    await gone.close();
    // Act
    const outcome = provider({ baseUrl, maxRetries: 1 }).parsePage(request);
    // Assert
    await expect(outcome).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(outcome).rejects.toThrow(/network error ECONNREFUSED/);
  });

  it('makes one attempt when maxRetries is 0: the SDK does not retry on its own', async () => {
    // Arrange
    server.script({ status: 503, body: { error: { message: 'overloaded' } } });
    // Act
    const outcome = provider({ maxRetries: 0 }).parsePage(request);
    // Assert
    await expect(outcome).rejects.toThrow(/HTTP 503: overloaded/);
    expect(server.requests).toHaveLength(1);
  });

  it('throws ProviderUnavailableError when no answer comes within the deadline', async () => {
    // Arrange
    server.script({ delayMs: 1_000, body: completion('late') });
    // Act
    const outcome = provider({ timeoutMs: 300 }).parsePage(request);
    // Assert
    await expect(outcome).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(outcome).rejects.toThrow(/within 300 ms/);
  });

  it('throws ProviderUnavailableError mentioning truncated when the answer stops at max_tokens', async () => {
    // Arrange
    server.script({ body: completion('| a | b |\n|---|---|\n| 1 |', { finishReason: 'length' }) });
    // Act
    const outcome = provider().parsePage(request);
    // Assert
    await expect(outcome).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(outcome).rejects.toThrow(/truncated/);
  });

  it('throws ProviderUnavailableError when the body is not JSON', async () => {
    // Arrange
    server.script({ body: '<html>Bad gateway</html>' });
    // Act
    const outcome = provider().parsePage(request);
    // Assert
    await expect(outcome).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(outcome).rejects.toThrow(/not JSON/);
  });

  it('throws ProviderUnavailableError when the JSON has no choices', async () => {
    // Arrange
    server.script({ body: { id: 'x', object: 'chat.completion' } });
    // Act
    const outcome = provider().parsePage(request);
    // Assert
    await expect(outcome).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(outcome).rejects.toThrow(/not a chat completion \(unexpected choices\)/);
  });

  it('throws ProviderUnavailableError when the choices list is empty', async () => {
    // Arrange
    server.script({ body: { choices: [] } });
    // Act / Assert
    await expect(provider().parsePage(request)).rejects.toBeInstanceOf(ProviderUnavailableError);
  });

  it('throws ProviderUnavailableError when the content is empty or missing', async () => {
    // Arrange
    server.script({ body: completion('  \n ') }, { body: completion(null) });
    const subject = provider();
    // Act / Assert
    await expect(subject.parsePage(request)).rejects.toThrow(/the answer is empty/);
    await expect(subject.parsePage(request)).rejects.toThrow(/no message content/);
  });

  it('throws ProviderUnavailableError without the page text when the model refuses', async () => {
    // Arrange
    server.script({
      body: completion(null, { refusal: 'I cannot transcribe SECRET-42.' }),
    });
    // Act
    const error = await provider()
      .parsePage(request)
      .catch((caught: unknown) => caught);
    // Assert
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect((error as Error).message).toMatch(/refused/);
    const { message, details } = error as ProviderUnavailableError;
    expect(`${message} ${JSON.stringify(details)}`).not.toMatch(/SECRET-42/);
  });

  it('throws ProviderUnavailableError without the page text when a field has the wrong type', async () => {
    // Arrange
    server.script({ body: { choices: [{ message: { content: 42 }, finish_reason: 'stop' }] } });
    // Act
    const outcome = provider().parsePage(request);
    // Assert
    await expect(outcome).rejects.toThrow(/unexpected choices\.0\.message\.content/);
  });

  it('asks again without logprobs when the server rejects them, and stops asking for them', async () => {
    // Arrange
    server.script(
      {
        status: 400,
        body: {
          error: {
            message: 'logprobs is not supported for this model',
            type: 'invalid_request_error',
          },
        },
      },
      { body: completion('First page', { logprobs: null }) },
    );
    const subject = provider();
    // Act
    const first = await subject.parsePage(request);
    const second = await subject.parsePage({ ...request, pageNumber: 2 });
    // Assert
    expect(server.requests).toHaveLength(3);
    const bodies = server.requests.map((r) => r.body as Record<string, unknown>);
    expect(bodies[0]).toHaveProperty('logprobs', true);
    expect(bodies[1]).not.toHaveProperty('logprobs');
    expect(bodies[2]).not.toHaveProperty('logprobs');
    expect(first).toMatchObject({ markdown: 'First page', ocrScore: null });
    expect(second.markdown).toBe('First page');
  });

  it('throws ProviderUnavailableError on a 400 that is not about logprobs, without asking again', async () => {
    // Arrange
    server.script({ status: 400, body: { error: { message: 'image too large' } } });
    // Act
    const outcome = provider().parsePage(request);
    // Assert
    await expect(outcome).rejects.toMatchObject({ details: { status: 400 } });
    expect(server.requests).toHaveLength(1);
  });
});
