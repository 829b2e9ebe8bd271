import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
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
import type { PageRasterizer } from '../engines/raster.js';
import {
  EXTRACTION_PROMPT,
  EXTRACTION_TOOL_DESCRIPTION,
  EXTRACTION_TOOL_NAME,
  HttpVisionProvider,
  PAGE_TRANSCRIPTION_PROMPT,
  extractionObject,
  extractionUserText,
  parsedAnswer,
  unavailable,
  visionPageResult,
  type RemoteProviderSettings,
} from './remote-provider.js';

/**
 * A content block of a Messages API answer: `text` blocks carry the transcription, the
 * `tool_use` block of {@link EXTRACTION_TOOL_NAME} the extraction (its `input`).
 */
const AnthropicContentBlock = z.object({
  type: z.string(),
  text: z.string().optional(),
  name: z.string().optional(),
  input: z.unknown().optional(),
});
type AnthropicContentBlock = z.infer<typeof AnthropicContentBlock>;

/**
 * The part of a Messages API answer (`POST /v1/messages`, non-streaming) this adapter reads.
 * `usage` is optional so that compatible gateways which leave it out still work (tokens 0).
 */
const AnthropicMessage = z.object({
  content: z.array(AnthropicContentBlock),
  stop_reason: z.string().nullish(),
  usage: z
    .object({
      input_tokens: z.number().nonnegative(),
      output_tokens: z.number().nonnegative(),
      cache_creation_input_tokens: z.number().nonnegative().nullish(),
      cache_read_input_tokens: z.number().nonnegative().nullish(),
    })
    .optional(),
});
type AnthropicMessage = z.infer<typeof AnthropicMessage>;

/**
 * A page provider on Anthropic's Messages API (Claude vision models), through the official
 * `@anthropic-ai/sdk`: renders the page, sends the PNG with {@link PAGE_TRANSCRIPTION_PROMPT} as
 * the system prompt, and returns the Markdown the model writes.
 *
 * The Messages API gives no log-probabilities, so `ocrScore` is always null. Rate limits (429)
 * and overload (529) are retried by {@link HttpVisionProvider}'s fetch; the SDK's own retries
 * are off.
 *
 * As an extractor it offers one tool, {@link EXTRACTION_TOOL_NAME}, whose `input_schema` is the
 * schema to fill, and makes the model call it (`tool_choice`): the call's input is the answer.
 */
export class AnthropicProvider
  extends HttpVisionProvider
  implements PageProvider, StructuredExtractor
{
  readonly #client: Anthropic;

  /**
   * @param settings the provider configuration; `baseUrl` is the API root without `/v1`
   *   (`https://api.anthropic.com`, or a compatible gateway); `apiKey` is sent the SDK's way
   *   when present, and no credential at all without it (a keyless gateway).
   * @param rasterizer gives the page image; with `dpi: null` the page renders at `defaultDpi`.
   */
  constructor(settings: RemoteProviderSettings, rasterizer: PageRasterizer) {
    super(settings, rasterizer);
    // Some key is needed, or the SDK looks for credentials in the environment and in profile
    // files too: sdkClientOptions gives a placeholder when there is none.
    this.#client = new Anthropic(this.sdkClientOptions());
  }

  /**
   * Transcribes one page with a single Messages API call (plus the client's retries).
   *
   * @returns the trimmed Markdown, no elements, the raster's `dpi`/`width`/`height`, tokens from
   *   `usage` (input includes prompt-cache reads and writes), `ocrScore` null, and the
   *   structure score of the Markdown as `layoutScore`.
   * @throws {ProviderUnavailableError} on an HTTP error (after retries for 429/5xx/529; at once
   *   for 4xx such as 401/403), a deadline, a network error, a body that is not JSON or not a
   *   Messages answer (`malformed answer`), an answer cut at `max_tokens` (`truncated`), or a
   *   refusal (`refused`).
   * @throws {DocumentRejectedError} when the page cannot be rendered.
   */
  async parsePage(request: PageParseRequest): Promise<ProviderPageResult> {
    const page = await this.pageImage(request);
    const body = await this.#create({
      model: this.model,
      max_tokens: this.settings.maxOutputTokens,
      system: PAGE_TRANSCRIPTION_PROMPT,
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: page.base64 },
            },
            { type: 'text', text: 'Transcribe this page.' },
          ],
        },
      ],
    });
    const message = parsedAnswer(this.id, AnthropicMessage, body);
    this.#checkStopReason(message.stop_reason ?? null, 'transcribe the page');
    return visionPageResult({
      markdown: message.content
        .filter((block: AnthropicContentBlock) => block.type === 'text')
        .map((block) => block.text ?? '')
        .join(''),
      raster: page.raster,
      model: this.model,
      tokens: tokensOf(message),
      ocrScore: null,
    });
  }

  /**
   * Fills the request's schema from the document's Markdown and the images of its first pages,
   * through the forced call of the {@link EXTRACTION_TOOL_NAME} tool.
   *
   * @returns the tool call's input (not checked against the schema), the model, and tokens from
   *   `usage` as for a page.
   * @throws {ProviderUnavailableError} as `parsePage` does for the call, and when the answer has
   *   no call of the tool or its input is not a JSON object (`malformed answer`).
   * @throws {DocumentRejectedError} when a page cannot be rendered.
   */
  async extract(request: StructuredExtractionRequest): Promise<StructuredExtractionResult> {
    const images = await this.extractionImages(request);
    const body = await this.#create({
      model: this.model,
      max_tokens: this.settings.maxOutputTokens,
      system: EXTRACTION_PROMPT,
      tools: [
        {
          name: EXTRACTION_TOOL_NAME,
          description: EXTRACTION_TOOL_DESCRIPTION,
          input_schema: { ...request.schema, type: 'object' },
        },
      ],
      tool_choice: { type: 'tool', name: EXTRACTION_TOOL_NAME },
      messages: [
        {
          role: 'user',
          content: [
            ...images.map((image) => ({
              type: 'image' as const,
              source: {
                type: 'base64' as const,
                media_type: 'image/png' as const,
                data: image.base64,
              },
            })),
            { type: 'text', text: extractionUserText(request, images) },
          ],
        },
      ],
    });
    const message = parsedAnswer(this.id, AnthropicMessage, body);
    // A forced tool call ends with `tool_use`; the other reasons are those of a page.
    if (message.stop_reason !== 'tool_use') {
      this.#checkStopReason(message.stop_reason ?? null, 'fill the schema');
    }
    const call = message.content.find(
      (block) => block.type === 'tool_use' && block.name === EXTRACTION_TOOL_NAME,
    );
    if (!call) {
      throw unavailable(this.id, `malformed answer: no call of the ${EXTRACTION_TOOL_NAME} tool`);
    }
    return {
      data: extractionObject(this.id, call.input),
      model: this.model,
      tokens: tokensOf(message),
    };
  }

  /**
   * One Messages API call, its answer unchecked (`unknown`): gateways do not all keep to the
   * SDK's types, so {@link AnthropicMessage} checks what this adapter reads.
   */
  #create(body: MessageCreateParamsNonStreaming): Promise<unknown> {
    return this.call((signal) => this.#client.messages.create(body, { signal }));
  }

  /** Accepts a finished answer; anything cut short or declined is a provider failure. */
  #checkStopReason(stopReason: string | null, task: string): void {
    switch (stopReason) {
      case null:
      case 'end_turn':
      case 'stop_sequence':
        return;
      case 'max_tokens':
        throw unavailable(
          this.id,
          `truncated: the answer reached max_tokens (${this.settings.maxOutputTokens})`,
        );
      case 'model_context_window_exceeded':
        throw unavailable(this.id, 'truncated: the answer reached the context window');
      case 'refusal':
        throw unavailable(this.id, `refused: the model declined to ${task}`);
      default:
        // tool_use, pause_turn...: an unforced tool call or a paused turn is no answer.
        throw unavailable(this.id, `unexpected stop_reason ${stopReason}`);
    }
  }
}

/** Input tokens include prompt-cache reads and writes; all 0 when `usage` is absent. */
function tokensOf(message: AnthropicMessage): { input: number; output: number } {
  const usage = message.usage;
  return {
    input:
      (usage?.input_tokens ?? 0) +
      (usage?.cache_creation_input_tokens ?? 0) +
      (usage?.cache_read_input_tokens ?? 0),
    output: usage?.output_tokens ?? 0,
  };
}
