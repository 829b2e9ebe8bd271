import {
  AccessDeniedException,
  BedrockRuntimeClient,
  ConverseCommand,
  InternalServerException,
  ModelNotReadyException,
  ModelTimeoutException,
  ResourceNotFoundException,
  ServiceUnavailableException,
  ThrottlingException,
  ValidationException,
  type ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProviderUnavailableError } from '../../../functions/core/domain/errors.js';
import type { PageParseRequest } from '../../../functions/core/ports/page-provider.js';
import {
  BedrockConverseProvider,
  bedrockClient,
  type BedrockSettings,
} from '../../../functions/providers/bedrock-converse.js';
import { PAGE_TRANSCRIPTION_PROMPT } from '../../../functions/providers/remote-provider.js';
import { fakeRasterizer } from '../../support/fake-api-server.js';

const MODEL = 'eu.anthropic.claude-sonnet-4-20250514-v1:0';
const SETTINGS: BedrockSettings = {
  id: 'bedrock-claude',
  model: MODEL,
  timeoutMs: 30_000,
  maxRetries: 2,
  maxOutputTokens: 4096,
  defaultDpi: 200,
};
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const bedrock = mockClient(BedrockRuntimeClient);

const request = (overrides: Partial<PageParseRequest> = {}): PageParseRequest => ({
  document: { key: 'uploads/doc.pdf', format: 'pdf', hash: 'a'.repeat(64) },
  pageNumber: 3,
  dpi: null,
  profile: null,
  maintainFormat: true,
  ...overrides,
});

const provider = (rasterizer = fakeRasterizer()) =>
  new BedrockConverseProvider(
    SETTINGS,
    new BedrockRuntimeClient({ region: 'eu-west-1' }),
    rasterizer,
  );

/** A Converse answer with the given text blocks. */
const answer = (texts: string[]): ConverseCommandOutput => ({
  output: { message: { role: 'assistant', content: texts.map((text) => ({ text })) } },
  stopReason: 'end_turn',
  usage: { inputTokens: 1534, outputTokens: 87, totalTokens: 1621 },
  metrics: { latencyMs: 2100 },
  $metadata: {},
});

/** The provider's failure, caught. */
const failure = (sent: Promise<unknown>) => sent.catch((e: unknown) => e);

beforeEach(() => {
  bedrock.reset();
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('BedrockConverseProvider', () => {
  it('sends the page as a PNG with the transcription prompt and reads the answer', async () => {
    // Arrange
    bedrock.on(ConverseCommand).resolves(answer(['# Results\n\nRevenue rose by 4 %.\n']));
    const rasterizer = fakeRasterizer();
    const timeout = vi.spyOn(AbortSignal, 'timeout');
    // Act
    const result = await provider(rasterizer).parsePage(request());
    // Assert
    const [call] = bedrock.commandCalls(ConverseCommand);
    const input = call!.args[0].input;
    expect(input.modelId).toBe(MODEL);
    expect(input.system).toEqual([{ text: PAGE_TRANSCRIPTION_PROMPT }]);
    expect(input.inferenceConfig).toEqual({ maxTokens: 4096, temperature: 0 });
    expect(input.messages).toHaveLength(1);
    const [image, text] = input.messages![0]!.content!;
    expect(input.messages![0]!.role).toBe('user');
    expect(image?.image?.format).toBe('png');
    expect([...(image?.image?.source?.bytes ?? []).slice(0, 8)]).toEqual(PNG_SIGNATURE);
    expect(text).toEqual({ text: 'Transcribe this page.' });
    expect(rasterizer.calls).toEqual([{ dpi: 200 }]);
    expect(timeout).toHaveBeenCalledWith(30_000);
    const options = (call!.args as unknown[])[1] as { abortSignal?: unknown };
    expect(options.abortSignal).toBeInstanceOf(AbortSignal);
    expect(result).toEqual({
      markdown: '# Results\n\nRevenue rose by 4 %.',
      elements: [],
      dpi: 200,
      width: 200,
      height: 100,
      model: MODEL,
      tokens: { input: 1534, output: 87 },
      ocrScore: null,
      layoutScore: 1,
      evidenceText: null,
    });
  });

  it('renders at the DPI the request asks for', async () => {
    // Arrange
    bedrock.on(ConverseCommand).resolves(answer(['text']));
    const rasterizer = fakeRasterizer();
    // Act
    const result = await provider(rasterizer).parsePage(request({ dpi: 96 }));
    // Assert
    expect(rasterizer.calls).toEqual([{ dpi: 96 }]);
    expect(result.dpi).toBe(96);
  });

  it('joins the text blocks of the answer and skips blocks without text', async () => {
    // Arrange
    bedrock.on(ConverseCommand).resolves({
      ...answer([]),
      output: {
        message: {
          role: 'assistant',
          content: [
            { reasoningContent: { reasoningText: { text: 'Looking at the page' } } },
            { text: 'First half, ' },
            { text: 'second half.' },
          ],
        },
      },
    });
    // Act
    const result = await provider().parsePage(request());
    // Assert
    expect(result.markdown).toBe('First half, second half.');
  });

  it('counts missing usage as zero tokens', async () => {
    // Arrange
    bedrock.on(ConverseCommand).resolves({ ...answer(['text']), usage: undefined });
    // Act
    const result = await provider().parsePage(request());
    // Assert
    expect(result.tokens).toEqual({ input: 0, output: 0 });
  });

  it.each([
    [
      'ThrottlingException',
      new ThrottlingException({ message: 'Too many requests', $metadata: {} }),
    ],
    [
      'ServiceUnavailableException',
      new ServiceUnavailableException({ message: 'Service unavailable', $metadata: {} }),
    ],
    [
      'ModelNotReadyException',
      new ModelNotReadyException({ message: 'Model is not ready', $metadata: {} }),
    ],
    [
      'InternalServerException',
      new InternalServerException({ message: 'Internal error', $metadata: {} }),
    ],
    ['ModelTimeoutException', new ModelTimeoutException({ message: 'Timed out', $metadata: {} })],
    [
      'AccessDeniedException',
      new AccessDeniedException({ message: 'not authorized', $metadata: {} }),
    ],
    [
      'ValidationException',
      new ValidationException({ message: 'image exceeds 5 MB maximum', $metadata: {} }),
    ],
    [
      'ResourceNotFoundException',
      new ResourceNotFoundException({ message: 'model not found', $metadata: {} }),
    ],
  ])('maps %s to ProviderUnavailableError naming it', async (name, error) => {
    // Arrange
    bedrock.on(ConverseCommand).rejects(error);
    // Act
    const caught = await failure(provider().parsePage(request()));
    // Assert
    expect(caught).toBeInstanceOf(ProviderUnavailableError);
    expect(caught).toMatchObject({
      name: 'ProviderUnavailableError',
      kind: 'transient',
      cause: error,
    });
    const { details } = caught as ProviderUnavailableError;
    expect(details?.provider).toBe('bedrock-claude');
    expect(details?.reason).toContain(`(${name})`);
    // The service's message may quote the request: it stays in the cause only.
    expect((caught as Error).message).not.toContain(error.message);
  });

  it('says what the service error means in the reason', async () => {
    // Arrange
    bedrock
      .on(ConverseCommand)
      .rejects(new ThrottlingException({ message: 'slow down', $metadata: {} }));
    // Act
    const caught = await failure(provider().parsePage(request()));
    // Assert
    expect((caught as ProviderUnavailableError).details).toEqual({
      provider: 'bedrock-claude',
      reason: 'throttled (ThrottlingException)',
    });
  });

  it('reports a call aborted at the deadline as unavailable within timeoutMs', async () => {
    // Arrange
    bedrock
      .on(ConverseCommand)
      .rejects(Object.assign(new Error('Request aborted'), { name: 'AbortError' }));
    // Act
    const caught = await failure(provider().parsePage(request()));
    // Assert
    expect(caught).toBeInstanceOf(ProviderUnavailableError);
    expect((caught as ProviderUnavailableError).details).toEqual({
      provider: 'bedrock-claude',
      reason: 'no answer within 30000 ms (AbortError)',
    });
  });

  it('reports a socket timeout and a network error as unavailable', async () => {
    // Arrange
    bedrock
      .on(ConverseCommand)
      .rejectsOnce(Object.assign(new Error('socket timed out'), { name: 'TimeoutError' }))
      .rejectsOnce(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    const bedrockProvider = provider();
    // Act
    const timedOut = await failure(bedrockProvider.parsePage(request()));
    const reset = await failure(bedrockProvider.parsePage(request()));
    // Assert
    expect(timedOut).toMatchObject({
      details: { reason: 'no answer within 30000 ms (TimeoutError)' },
    });
    expect(reset).toMatchObject({ details: { reason: 'network error ECONNRESET' } });
  });

  it('fails an answer cut at maxOutputTokens as truncated', async () => {
    // Arrange
    bedrock
      .on(ConverseCommand)
      .resolves({ ...answer(['| a | b |\n| --- | --- |\n| 1 |']), stopReason: 'max_tokens' });
    // Act
    const caught = await failure(provider().parsePage(request()));
    // Assert
    expect(caught).toBeInstanceOf(ProviderUnavailableError);
    expect((caught as Error).message).toBe(
      'provider bedrock-claude failed: truncated: the answer reached maxOutputTokens (4096)',
    );
  });

  it.each(['guardrail_intervened', 'content_filtered'] as const)(
    'fails an answer withheld with stop reason %s as filtered',
    async (stopReason) => {
      // Arrange
      bedrock
        .on(ConverseCommand)
        .resolves({ ...answer(['Sorry, I cannot help with that.']), stopReason });
      // Act
      const caught = await failure(provider().parsePage(request()));
      // Assert
      expect(caught).toBeInstanceOf(ProviderUnavailableError);
      expect((caught as ProviderUnavailableError).details?.reason).toMatch(/^filtered: /);
    },
  );

  it.each([
    ['no output', { output: undefined }, 'the answer holds no content'],
    [
      'an empty content list',
      { output: { message: { role: 'assistant', content: [] } } },
      'the answer holds no content',
    ],
    [
      'only blocks without text',
      {
        output: {
          message: {
            role: 'assistant',
            content: [{ reasoningContent: { reasoningText: { text: 'hmm' } } }],
          },
        },
      },
      'the answer holds no text',
    ],
    [
      'blank text',
      { output: { message: { role: 'assistant', content: [{ text: ' \n ' }] } } },
      'the answer holds no text',
    ],
  ] satisfies [string, Partial<ConverseCommandOutput>, string][])(
    'fails an answer with %s',
    async (_case, overrides, reason) => {
      // Arrange
      bedrock.on(ConverseCommand).resolves({ ...answer([]), ...overrides });
      // Act
      const caught = await failure(provider().parsePage(request()));
      // Assert
      expect(caught).toBeInstanceOf(ProviderUnavailableError);
      expect((caught as ProviderUnavailableError).details).toEqual({
        provider: 'bedrock-claude',
        reason,
      });
    },
  );

  it('fails an answer that stopped for an unexpected reason', async () => {
    // Arrange
    bedrock.on(ConverseCommand).resolves({ ...answer(['x']), stopReason: 'tool_use' });
    // Act
    const caught = await failure(provider().parsePage(request()));
    // Assert
    expect(caught).toMatchObject({ details: { reason: 'unexpected stop reason tool_use' } });
  });
});

describe('bedrockClient', () => {
  it('makes maxRetries + 1 attempts in the given region', async () => {
    // Act
    const client = bedrockClient({ maxRetries: 2 }, 'eu-central-1');
    // Assert
    expect(await client.config.maxAttempts()).toBe(3);
    expect(await client.config.region()).toBe('eu-central-1');
  });

  it('makes a single attempt with no retries, and refuses a negative count', async () => {
    // Act
    const client = bedrockClient({ maxRetries: 0 });
    // Assert
    expect(await client.config.maxAttempts()).toBe(1);
    expect(() => bedrockClient({ maxRetries: -1 })).toThrow(/maxRetries must be/);
  });
});
