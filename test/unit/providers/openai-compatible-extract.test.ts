import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiCompatibleProvider } from '../../../functions/providers/openai-compatible.js';
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

/** A Chat Completion whose message content is `content`. */
function completion(content: string | null, finishReason = 'stop') {
  return {
    id: 'chatcmpl-2',
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        finish_reason: finishReason,
      },
    ],
    usage: { prompt_tokens: 3120, completion_tokens: 24, total_tokens: 3144 },
  };
}

/** The parts of a recorded request this test reads. */
interface SentBody {
  messages: { role: string; content: string | { type: string; text?: string }[] }[];
  response_format: Record<string, unknown>;
}

const userParts = (body: unknown) => {
  const content = (body as SentBody).messages[1]?.content;
  if (!Array.isArray(content)) throw new Error('the user message has no content parts');
  return content;
};

let server: FakeApiServer;

function provider(
  overrides: Partial<RemoteProviderSettings> = {},
  rasterizer = fakeRasterizer(),
): OpenAiCompatibleProvider {
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
    rasterizer,
  );
}

beforeAll(async () => {
  server = await FakeApiServer.start();
});
afterAll(async () => {
  await server.close();
});

describe('OpenAiCompatibleProvider.extract', () => {
  it('sends the schema as a json_schema response format with the Markdown and the first four page images', async () => {
    // Arrange
    server.script({ body: completion(JSON.stringify(INVOICE_DATA)) });
    const rasterizer = fakeRasterizer();
    // Act
    const result = await provider({}, rasterizer).extract(extractionRequest(5));
    // Assert
    expect(server.requests).toHaveLength(1);
    const [sent] = server.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(sent?.headers.authorization).toBe('Bearer sk-test');
    expect(sent?.body).toMatchObject({
      model: 'gpt-4o',
      max_tokens: 4096,
      temperature: 0,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'record_extraction', schema: INVOICE_SCHEMA, strict: false },
      },
      messages: [{ role: 'system', content: EXTRACTION_PROMPT }, { role: 'user' }],
    });
    expect(sent?.body).not.toHaveProperty('logprobs');
    const [text, ...images] = userParts(sent?.body);
    expect(text?.type).toBe('text');
    expect(text?.text).toContain('The images show pages 1, 2, 3, 4.');
    expect(text?.text).toContain('<!-- page 1 -->\n# Page 1');
    expect(text?.text).toContain('<!-- page 5 -->\n# Page 5\n\nInvoice INV-0042, line 5.');
    expect(images).toHaveLength(4);
    expect(images[0]).toMatchObject({
      type: 'image_url',
      image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) as unknown },
    });
    expect(rasterizer.calls).toEqual([{ dpi: 144 }, { dpi: 144 }, { dpi: 144 }, { dpi: 144 }]);
    expect(result).toEqual({
      data: INVOICE_DATA,
      model: 'gpt-4o',
      tokens: { input: 3120, output: 24 },
    });
  });

  it('reads the object from a JSON answer wrapped in a code fence', async () => {
    // Arrange
    server.script({ body: completion('```json\n{"invoice_number": "INV-7"}\n```') });
    // Act
    const result = await provider().extract(extractionRequest(1));
    // Assert
    expect(result.data).toEqual({ invoice_number: 'INV-7' });
  });

  it.each(NOT_AN_OBJECT)(
    'fails as unavailable when the answer is %s, without quoting it',
    async (_what, content, reason) => {
      // Arrange
      server.script({ body: completion(content) });
      // Act
      const error = await unavailableOf(provider().extract(extractionRequest()));
      // Assert
      expect(error.message).toMatch(reason);
      expect(`${error.message} ${JSON.stringify(error.details)}`).not.toContain('INV-0042');
      expect(error.details).toMatchObject({ provider: 'openai-gpt-4o' });
    },
  );

  it('fails as unavailable when the answer has no content or is cut at max_tokens', async () => {
    // Arrange
    server.script({ body: completion(null) }, { body: completion('{"invoice', 'length') });
    const subject = provider();
    // Act
    const empty = await unavailableOf(subject.extract(extractionRequest()));
    const cut = await unavailableOf(subject.extract(extractionRequest()));
    // Assert
    expect(empty.message).toMatch(/the extraction is empty/);
    expect(cut.message).toMatch(/truncated/);
  });

  it('retries after a 429 with retry-after: 0 and then succeeds', async () => {
    // Arrange
    server.script(
      { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'slow down' } } },
      { body: completion(JSON.stringify(INVOICE_DATA)) },
    );
    // Act
    const result = await provider().extract(extractionRequest());
    // Assert
    expect(server.requests).toHaveLength(2);
    expect(result.data).toEqual(INVOICE_DATA);
  });

  it('throws ProviderUnavailableError on a 401 without retrying', async () => {
    // Arrange
    server.script({ status: 401, body: { error: { message: 'Incorrect API key provided' } } });
    // Act
    const error = await unavailableOf(provider().extract(extractionRequest()));
    // Assert
    expect(error.message).toMatch(/HTTP 401: Incorrect API key/);
    expect(server.requests).toHaveLength(1);
  });

  it('throws ProviderUnavailableError after maxRetries + 1 attempts when every answer is a 5xx', async () => {
    // Arrange
    server.script({ status: 503, body: { error: { message: 'overloaded' } } });
    // Act
    const error = await unavailableOf(provider({ maxRetries: 1 }).extract(extractionRequest()));
    // Assert
    expect(error.details).toMatchObject({ status: 503 });
    expect(server.requests).toHaveLength(2);
  });

  it('asks again in JSON mode with the schema in the prompt when the server rejects json_schema, and keeps to it', async () => {
    // Arrange
    server.script(
      {
        status: 400,
        body: {
          error: {
            message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported",
          },
        },
      },
      { body: completion(JSON.stringify(INVOICE_DATA)) },
    );
    const subject = provider();
    // Act
    const first = await subject.extract(extractionRequest());
    const second = await subject.extract(extractionRequest());
    // Assert
    expect(server.requests).toHaveLength(3);
    const formats = server.requests.map((r) => (r.body as SentBody).response_format);
    expect(formats[0]).toMatchObject({ type: 'json_schema' });
    expect(formats[1]).toEqual({ type: 'json_object' });
    expect(formats[2]).toEqual({ type: 'json_object' });
    const [text] = userParts(server.requests[1]?.body);
    expect(text?.text).toContain(JSON.stringify(INVOICE_SCHEMA));
    const [schemaless] = userParts(server.requests[0]?.body);
    expect(schemaless?.text).not.toContain(JSON.stringify(INVOICE_SCHEMA));
    expect(first.data).toEqual(INVOICE_DATA);
    expect(second.data).toEqual(INVOICE_DATA);
  });

  it('throws on a 400 that is not about response_format, without asking again', async () => {
    // Arrange
    server.script({ status: 400, body: { error: { message: 'too many images' } } });
    // Act
    const error = await unavailableOf(provider().extract(extractionRequest()));
    // Assert
    expect(error.details).toMatchObject({ status: 400 });
    expect(server.requests).toHaveLength(1);
  });
});
