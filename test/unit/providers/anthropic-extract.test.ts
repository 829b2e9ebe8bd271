import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../../functions/providers/anthropic.js';
import {
  EXTRACTION_PROMPT,
  type RemoteProviderSettings,
} from '../../../functions/providers/remote-provider.js';
import { FakeApiServer, fakeRasterizer } from '../../support/fake-api-server.js';
import {
  INVOICE_DATA,
  INVOICE_SCHEMA,
  extractionRequest,
  unavailableOf,
} from './extraction-fixtures.js';

/** A Messages API answer calling the extraction tool with `input`. */
const toolAnswer = (input: unknown, overrides: Record<string, unknown> = {}) => ({
  id: 'msg_02',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-6',
  content: [{ type: 'tool_use', id: 'toolu_01', name: 'record_extraction', input }],
  stop_reason: 'tool_use',
  usage: { input_tokens: 2900, output_tokens: 41, cache_read_input_tokens: 100 },
  ...overrides,
});

/** The content blocks of the user message a request sent. */
const userBlocks = (body: unknown) =>
  (body as { messages: { content: { type: string; text?: string }[] }[] }).messages[0]!.content;

describe('AnthropicProvider.extract', () => {
  let server: FakeApiServer;
  const provider = (
    overrides: Partial<RemoteProviderSettings> = {},
    rasterizer = fakeRasterizer(),
  ) => {
    return new AnthropicProvider(
      {
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

  it('offers the schema as the input schema of a forced tool, with the Markdown and the page images', async () => {
    // Arrange
    server.script({ body: toolAnswer(INVOICE_DATA) });
    const rasterizer = fakeRasterizer();
    // Act
    const result = await provider({}, rasterizer).extract(extractionRequest(2));
    // Assert
    expect(server.requests).toHaveLength(1);
    const [sent] = server.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/messages' });
    expect(sent?.headers.authorization).toBe('Bearer test-key');
    expect(sent?.body).toMatchObject({
      model: 'claude-sonnet-4-6',
      max_tokens: 4096,
      system: EXTRACTION_PROMPT,
      tools: [{ name: 'record_extraction', input_schema: INVOICE_SCHEMA }],
      tool_choice: { type: 'tool', name: 'record_extraction' },
    });
    const blocks = userBlocks(sent?.body);
    expect(blocks.map((block) => block.type)).toEqual(['image', 'image', 'text']);
    expect(blocks[0]).toMatchObject({
      source: {
        type: 'base64',
        media_type: 'image/png',
        data: expect.stringMatching(/^iVBOR/) as unknown,
      },
    });
    expect(blocks[2]?.text).toContain('<!-- page 2 -->\n# Page 2');
    expect(rasterizer.calls).toHaveLength(2);
    expect(result).toEqual({
      data: INVOICE_DATA,
      model: 'claude-sonnet-4-6',
      tokens: { input: 3000, output: 41 },
    });
  });

  it('reads the tool call among other blocks', async () => {
    // Arrange
    server.script({
      body: toolAnswer(null, {
        content: [
          { type: 'text', text: 'Recording the invoice.' },
          { type: 'tool_use', id: 'toolu_02', name: 'record_extraction', input: { total: 3 } },
        ],
      }),
    });
    // Act
    const result = await provider().extract(extractionRequest());
    // Assert
    expect(result.data).toEqual({ total: 3 });
  });

  it.each([
    ['an array', ['INV-0042']],
    ['a string', 'INV-0042'],
    ['null', null],
  ])('fails as unavailable when the tool input is %s', async (_what, input) => {
    // Arrange
    server.script({ body: toolAnswer(input) });
    // Act
    const error = await unavailableOf(provider().extract(extractionRequest()));
    // Assert
    expect(error.message).toMatch(/malformed answer: the extraction is .*, not a JSON object/);
    expect(error.message).not.toContain('INV-0042');
  });

  it('fails as unavailable when the answer calls no tool', async () => {
    // Arrange
    server.script({
      body: toolAnswer(null, {
        content: [{ type: 'text', text: '{"invoice_number": "INV-0042"}' }],
        stop_reason: 'end_turn',
      }),
    });
    // Act
    const error = await unavailableOf(provider().extract(extractionRequest()));
    // Assert
    expect(error.message).toMatch(/malformed answer: no call of the record_extraction tool/);
  });

  it('fails as unavailable when the answer is cut at max_tokens or refused', async () => {
    // Arrange
    server.script(
      { body: toolAnswer({}, { stop_reason: 'max_tokens' }) },
      { body: toolAnswer({}, { stop_reason: 'refusal', content: [] }) },
    );
    const subject = provider();
    // Act
    const cut = await unavailableOf(subject.extract(extractionRequest()));
    const refused = await unavailableOf(subject.extract(extractionRequest()));
    // Assert
    expect(cut.message).toMatch(/truncated/);
    expect(refused.message).toMatch(/refused: the model declined to fill the schema/);
  });

  it('retries after a 429 with retry-after: 0 and then succeeds', async () => {
    // Arrange
    server.script(
      {
        status: 429,
        headers: { 'retry-after': '0' },
        body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
      },
      { body: toolAnswer(INVOICE_DATA) },
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
      body: {
        type: 'error',
        error: { type: 'authentication_error', message: 'invalid x-api-key' },
      },
    });
    // Act
    const error = await unavailableOf(provider().extract(extractionRequest()));
    // Assert
    expect(error.message).toMatch(/HTTP 401: invalid x-api-key/);
    expect(server.requests).toHaveLength(1);
  });
});
