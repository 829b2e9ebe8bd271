import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
  type ToolUseBlock,
} from '@aws-sdk/client-bedrock-runtime';
import type { ProviderUnavailableError } from '../core/domain/errors.js';
import type {
  PageParseRequest,
  PageProvider,
  ProviderPageResult,
} from '../core/ports/page-provider.js';
import type {
  StructuredExtractionRequest,
  StructuredExtractionResult,
  StructuredExtractor,
} from '../core/ports/structured-extractor.js';
import {
  AwsSdkProvider,
  awsClientOptions,
  type AwsSdkProviderSettings,
} from './aws-sdk-provider.js';
import {
  EXTRACTION_PROMPT,
  EXTRACTION_TOOL_DESCRIPTION,
  EXTRACTION_TOOL_NAME,
  PAGE_TRANSCRIPTION_PROMPT,
  encodeExtractionPages,
  extractionObject,
  extractionUserText,
  unavailable,
  visionPageResult,
  type RemoteProviderSettings,
} from './remote-provider.js';

/** A JSON value as the SDK types a document (a tool's schema and input). */
type JsonDocument = NonNullable<ToolUseBlock['input']>;

/**
 * Settings of {@link BedrockConverseProvider}: those of {@link RemoteProviderSettings} that apply
 * to Bedrock. There is no base URL and no API key: the region and the credentials come from the
 * SDK's default chain (environment, the Lambda role) or from {@link bedrockClient}'s `region`.
 *
 * `model` is a Bedrock model id (`anthropic.claude-3-5-sonnet-20240620-v1:0`) or an inference
 * profile id or ARN (`eu.anthropic.claude-sonnet-4-20250514-v1:0`). `maxRetries` is not applied
 * by the provider: the SDK client retries, so build the client with {@link bedrockClient}.
 */
export type BedrockSettings = AwsSdkProviderSettings &
  Pick<RemoteProviderSettings, 'maxOutputTokens'>;

/** The user turn sent after the page image. */
export const BEDROCK_USER_TEXT = 'Transcribe this page.';

/**
 * A Bedrock runtime client that makes `maxRetries + 1` attempts per call with the SDK's standard
 * retry strategy (exponential backoff with jitter on throttling, 5xx, `ModelNotReadyException`
 * and network errors), the way {@link BedrockConverseProvider} expects it.
 *
 * @param region the AWS region (e.g. `us-east-1`); absent: the SDK's default chain
 *   (`AWS_REGION`, the profile).
 * @throws {Error} when `maxRetries` is not a non-negative integer.
 * @example
 * const provider = new BedrockConverseProvider(settings, bedrockClient(settings, 'eu-west-1'), rasterizer);
 */
export function bedrockClient(
  settings: Pick<BedrockSettings, 'maxRetries'>,
  region?: string,
): BedrockRuntimeClient {
  return new BedrockRuntimeClient(awsClientOptions(settings, region));
}

/**
 * A vision model on Amazon Bedrock, called through the model-neutral Converse API: the page
 * image (PNG) and {@link PAGE_TRANSCRIPTION_PROMPT} as the system prompt, one answer at
 * temperature 0.
 *
 * Bedrock gives no token log-probabilities through Converse, so `ocrScore` is always null.
 * Images larger than the model accepts (Claude: 8000 px a side, 3.75 MB) are refused with a
 * `ValidationException`, reported as unavailable so that the router falls over; keep
 * `defaultDpi` moderate (150–200) for such models.
 *
 * As an extractor it offers one tool, {@link EXTRACTION_TOOL_NAME}, whose input schema is the
 * schema to fill, and makes the model call it (`toolChoice`): the call's input is the answer.
 * Forcing a named tool needs a model that supports it (Anthropic Claude, Amazon Nova, Mistral
 * Large); others refuse the request with a `ValidationException`.
 */
export class BedrockConverseProvider
  extends AwsSdkProvider<BedrockSettings, BedrockRuntimeClient>
  implements PageProvider, StructuredExtractor
{
  /**
   * Transcribes one page with the model.
   *
   * @returns the answer's Markdown (text blocks concatenated, trimmed), no elements, the
   *   image's `dpi`/`width`/`height`, the reported input and output tokens, `ocrScore` null and
   *   `layoutScore` the structure score of the Markdown ({@link visionPageResult}).
   * @throws {DocumentRejectedError} when the page cannot be rendered.
   * @throws {ProviderUnavailableError} when Bedrock fails after the client's retries (the
   *   reason names the SDK error, e.g. `ThrottlingException`), no answer came within
   *   `timeoutMs` (retries included), the answer was cut at `maxOutputTokens` (`truncated`),
   *   withheld by a guardrail or content filter, or holds no text.
   */
  async parsePage(request: PageParseRequest): Promise<ProviderPageResult> {
    const { id, model, maxOutputTokens } = this.settings;
    const raster = await this.pageRaster(request);
    const response = await this.#converse({
      modelId: model,
      system: [{ text: PAGE_TRANSCRIPTION_PROMPT }],
      messages: [
        {
          role: 'user',
          content: [
            { image: { format: 'png', source: { bytes: raster.png } } },
            { text: BEDROCK_USER_TEXT },
          ],
        },
      ],
      inferenceConfig: { maxTokens: maxOutputTokens, temperature: 0 },
    });
    const refusal = stopFailure(id, response.stopReason, maxOutputTokens);
    if (refusal) throw refusal;
    const content = response.output?.message?.content ?? [];
    // Models may split one answer into several text blocks (e.g. around citations): they are
    // consecutive pieces of the same text. Other blocks (reasoning) carry no `text`.
    const markdown = content.map((block) => block.text ?? '').join('');
    if (markdown.trim() === '') {
      throw unavailable(
        id,
        content.length === 0 ? 'the answer holds no content' : 'the answer holds no text',
      );
    }
    return visionPageResult({
      markdown,
      raster,
      model,
      tokens: tokensOf(response),
      ocrScore: null,
    });
  }

  /**
   * Fills the request's schema from the document's Markdown and the images of its first pages,
   * through the forced call of the {@link EXTRACTION_TOOL_NAME} tool.
   *
   * @returns the tool call's input (not checked against the schema), the model, and the
   *   reported input and output tokens.
   * @throws {DocumentRejectedError} when a page cannot be rendered.
   * @throws {ProviderUnavailableError} as `parsePage` does for the call, and when the answer has
   *   no call of the tool or its input is not a JSON object (`malformed answer`).
   */
  async extract(request: StructuredExtractionRequest): Promise<StructuredExtractionResult> {
    const { id, model, maxOutputTokens, defaultDpi } = this.settings;
    const images = await encodeExtractionPages(this.rasterizer, request, defaultDpi);
    const response = await this.#converse({
      modelId: model,
      system: [{ text: EXTRACTION_PROMPT }],
      messages: [
        {
          role: 'user',
          content: [
            ...images.map((image) => ({
              image: { format: 'png' as const, source: { bytes: image.raster.png } },
            })),
            { text: extractionUserText(request, images) },
          ],
        },
      ],
      inferenceConfig: { maxTokens: maxOutputTokens, temperature: 0 },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: EXTRACTION_TOOL_NAME,
              description: EXTRACTION_TOOL_DESCRIPTION,
              // The schema is JSON, as the port says; the SDK's type for it is narrower.
              inputSchema: { json: request.schema as JsonDocument },
            },
          },
        ],
        toolChoice: { tool: { name: EXTRACTION_TOOL_NAME } },
      },
    });
    // A forced tool call ends with `tool_use`; the other reasons are those of a page.
    if (response.stopReason !== 'tool_use') {
      const failure = stopFailure(id, response.stopReason, maxOutputTokens);
      if (failure) throw failure;
    }
    const call = (response.output?.message?.content ?? []).find(
      (block) => block.toolUse?.name === EXTRACTION_TOOL_NAME,
    )?.toolUse;
    if (!call) {
      throw unavailable(id, `malformed answer: no call of the ${EXTRACTION_TOOL_NAME} tool`);
    }
    return {
      data: extractionObject(id, call.input),
      model,
      tokens: tokensOf(response),
    };
  }

  /** One Converse call within the deadline, its failure reported as unavailable. */
  #converse(input: ConverseCommandInput): Promise<ConverseCommandOutput> {
    return this.send(
      (abortSignal) => this.client.send(new ConverseCommand(input), { abortSignal }),
      BEDROCK_ERRORS,
    );
  }
}

/** The input and output tokens Bedrock reports; 0 when it reports none. */
function tokensOf(response: ConverseCommandOutput): { input: number; output: number } {
  return { input: response.usage?.inputTokens ?? 0, output: response.usage?.outputTokens ?? 0 };
}

/** The failure a stop reason means, or undefined for a complete answer. */
function stopFailure(
  providerId: string,
  stopReason: ConverseCommandOutput['stopReason'],
  maxOutputTokens: number,
): ProviderUnavailableError | undefined {
  switch (stopReason) {
    case undefined:
    case 'end_turn':
    case 'stop_sequence':
      return undefined;
    case 'max_tokens':
      return unavailable(
        providerId,
        `truncated: the answer reached maxOutputTokens (${maxOutputTokens})`,
      );
    case 'guardrail_intervened':
      return unavailable(providerId, 'filtered: a guardrail intervened (guardrail_intervened)');
    case 'content_filtered':
      return unavailable(providerId, 'filtered: the content filter withheld the answer');
    case 'model_context_window_exceeded':
      return unavailable(providerId, 'truncated: the context window of the model was exceeded');
    case 'malformed_model_output':
    case 'malformed_tool_use':
    case 'tool_use':
      return unavailable(providerId, `unexpected stop reason ${stopReason}`);
  }
}

/** What each Bedrock runtime error means, for the failure reason. */
const BEDROCK_ERRORS: Readonly<Record<string, string>> = {
  ThrottlingException: 'throttled',
  ServiceQuotaExceededException: 'over the service quota',
  ServiceUnavailableException: 'the service is unavailable',
  InternalServerException: 'internal error of the service',
  ModelNotReadyException: 'the model is not ready',
  ModelTimeoutException: 'the model took too long',
  ModelErrorException: 'the model failed',
  AccessDeniedException:
    'access denied: the role may not invoke the model, or the model is not enabled in the account',
  ValidationException:
    'the request was refused as invalid (image size or format, model id, a forced tool call the model does not support)',
  ResourceNotFoundException: 'no such model or inference profile in the region',
};
