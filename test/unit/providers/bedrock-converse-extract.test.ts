import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsClientOptions } from '../../../functions/providers/aws-sdk-provider.js';
import {
  BedrockConverseProvider,
  type BedrockSettings,
} from '../../../functions/providers/bedrock-converse.js';
import { EXTRACTION_PROMPT } from '../../../functions/providers/remote-provider.js';
import { FakeApiServer, fakeRasterizer } from '../../support/fake-api-server.js';
import {
  INVOICE_DATA,
  INVOICE_SCHEMA,
  extractionRequest,
  unavailableOf,
} from './extraction-fixtures.js';

const MODEL = 'eu.anthropic.claude-sonnet-4-20250514-v1:0';
const SETTINGS: BedrockSettings = {
  id: 'bedrock-claude',
  model: MODEL,
  timeoutMs: 10_000,
  maxRetries: 2,
  maxOutputTokens: 4096,
  defaultDpi: 200,
};

/**
 * A Converse answer (the JSON of the REST API) whose content is `content`; by default one call
 * of the extraction tool with `INVOICE_DATA`.
 */
const converseAnswer = (
  content: unknown[] = [
    { toolUse: { toolUseId: 'tooluse_1', name: 'record_extraction', input: INVOICE_DATA } },
  ],
  stopReason = 'tool_use',
) => ({
  output: { message: { role: 'assistant', content } },
  stopReason,
  usage: { inputTokens: 4100, outputTokens: 52, totalTokens: 4152 },
  metrics: { latencyMs: 1800 },
});

/** An error answer of the Bedrock runtime, typed by the header the SDK reads. */
const awsError = (status: number, type: string, message: string) => ({
  status,
  headers: { 'x-amzn-errortype': type },
  body: { message },
});

/** The parts of a recorded Converse request this test reads. */
interface SentBody {
  system: { text: string }[];
  messages: {
    role: string;
    content: { image?: { format: string; source: { bytes: string } }; text?: string }[];
  }[];
  inferenceConfig: Record<string, unknown>;
  toolConfig: Record<string, unknown>;
}

let server: FakeApiServer;
const clients: BedrockRuntimeClient[] = [];

/**
 * A provider on a real SDK client sent to the fake API: the request is the SDK's wire format,
 * and the SDK's own retry strategy runs. Over HTTP/1.1, which the fake API speaks (the client
 * defaults to HTTP/2).
 */
function provider(rasterizer = fakeRasterizer(), maxRetries = SETTINGS.maxRetries) {
  const client = new BedrockRuntimeClient({
    ...awsClientOptions({ maxRetries }, 'eu-west-1'),
    endpoint: server.url,
    requestHandler: new NodeHttpHandler(),
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
  });
  clients.push(client);
  return new BedrockConverseProvider({ ...SETTINGS, maxRetries }, client, rasterizer);
}

beforeAll(async () => {
  server = await FakeApiServer.start();
});
afterAll(async () => {
  for (const client of clients) client.destroy();
  await server.close();
});

describe('BedrockConverseProvider.extract', () => {
  it('forces a tool whose input schema is the schema, with the Markdown and the page images', async () => {
    // Arrange
    server.script({ body: converseAnswer() });
    const rasterizer = fakeRasterizer();
    // Act
    const result = await provider(rasterizer).extract(extractionRequest(2));
    // Assert
    expect(server.requests).toHaveLength(1);
    const [sent] = server.requests;
    expect(sent).toMatchObject({
      method: 'POST',
      path: `/model/${encodeURIComponent(MODEL)}/converse`,
    });
    const body = sent?.body as SentBody;
    expect(body.system).toEqual([{ text: EXTRACTION_PROMPT }]);
    expect(body.inferenceConfig).toEqual({ maxTokens: 4096, temperature: 0 });
    expect(body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'record_extraction',
            description: expect.any(String) as unknown,
            inputSchema: { json: INVOICE_SCHEMA },
          },
        },
      ],
      toolChoice: { tool: { name: 'record_extraction' } },
    });
    const content = body.messages[0]!.content;
    expect(content).toHaveLength(3);
    expect(content[0]?.image?.format).toBe('png');
    expect(content[0]?.image?.source.bytes).toMatch(/^iVBOR/);
    expect(content[2]?.text).toContain('<!-- page 2 -->\n# Page 2');
    expect(rasterizer.calls).toEqual([{ dpi: 200 }, { dpi: 200 }]);
    expect(result).toEqual({
      data: INVOICE_DATA,
      model: MODEL,
      tokens: { input: 4100, output: 52 },
    });
  });

  it('fails as unavailable when the answer calls no tool', async () => {
    // Arrange
    server.script({ body: converseAnswer([{ text: '{"total": 1}' }], 'end_turn') });
    // Act
    const error = await unavailableOf(provider().extract(extractionRequest()));
    // Assert
    expect(error.details).toEqual({
      provider: 'bedrock-claude',
      reason: 'malformed answer: no call of the record_extraction tool',
    });
  });

  it.each([
    ['an array', ['INV-0042']],
    ['a string', 'INV-0042'],
  ])('fails as unavailable when the tool input is %s', async (_what, input) => {
    // Arrange
    server.script({
      body: converseAnswer([
        { toolUse: { toolUseId: 'tooluse_2', name: 'record_extraction', input } },
      ]),
    });
    // Act
    const error = await unavailableOf(provider().extract(extractionRequest()));
    // Assert
    expect(error.message).toMatch(/malformed answer: the extraction is .*, not a JSON object/);
    expect(error.message).not.toContain('INV-0042');
  });

  it('fails as unavailable when the answer is cut at maxOutputTokens', async () => {
    // Arrange
    server.script({ body: converseAnswer([], 'max_tokens') });
    // Act
    const error = await unavailableOf(provider().extract(extractionRequest()));
    // Assert
    expect(error.message).toMatch(/truncated/);
  });

  it('retries a throttled call (429) and then succeeds', async () => {
    // Arrange
    server.script(awsError(429, 'ThrottlingException', 'Too many requests'), {
      body: converseAnswer(),
    });
    // Act
    const result = await provider().extract(extractionRequest());
    // Assert
    expect(server.requests).toHaveLength(2);
    expect(result.data).toEqual(INVOICE_DATA);
  });

  it('throws ProviderUnavailableError on access denied (403) without retrying', async () => {
    // Arrange
    server.script(awsError(403, 'AccessDeniedException', 'not authorized to invoke the model'));
    // Act
    const error = await unavailableOf(provider().extract(extractionRequest()));
    // Assert
    expect(error.details?.reason).toMatch(/access denied.*\(AccessDeniedException\)/);
    expect(error.message).not.toContain('not authorized to invoke the model');
    expect(server.requests).toHaveLength(1);
  });

  it('throws ProviderUnavailableError after maxRetries + 1 attempts when the service stays unavailable', async () => {
    // Arrange
    server.script(awsError(503, 'ServiceUnavailableException', 'Service unavailable'));
    // Act
    const error = await unavailableOf(provider(fakeRasterizer(), 1).extract(extractionRequest()));
    // Assert
    expect(error.details?.reason).toMatch(/\(ServiceUnavailableException\)/);
    expect(server.requests).toHaveLength(2);
  });
});
