import { z } from 'zod';
import type {
  PageParseRequest,
  PageProvider,
  ProviderPageResult,
} from '../core/ports/page-provider.js';
import type { PageRasterizer } from '../engines/raster.js';
import {
  JsonHttpClient,
  PAGE_TRANSCRIPTION_PROMPT,
  encodePage,
  unavailable,
  visionPageResult,
  type RemoteProviderSettings,
} from './remote-provider.js';

/** Where the Messages API lives when the configuration leaves `baseUrl` empty. */
export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/** The Messages API version this adapter speaks (sent as `anthropic-version`). */
export const ANTHROPIC_API_VERSION = '2023-06-01';

/** A content block of a Messages API answer; only `text` blocks carry the transcription. */
const AnthropicContentBlock = z.object({ type: z.string(), text: z.string().optional() });
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
 * A page provider on Anthropic's Messages API (Claude vision models): renders the page, sends
 * the PNG with {@link PAGE_TRANSCRIPTION_PROMPT} as the system prompt, and returns the Markdown
 * the model writes.
 *
 * The Messages API gives no log-probabilities, so `ocrScore` is always null. Rate limits (429)
 * and overload (529) are retried by {@link JsonHttpClient}.
 */
export class AnthropicProvider implements PageProvider {
  readonly id: string;
  readonly model: string;
  readonly #settings: RemoteProviderSettings;
  readonly #rasterizer: PageRasterizer;
  readonly #client: JsonHttpClient;

  /**
   * @param settings the provider configuration; `baseUrl` is the API root without `/v1`
   *   (empty → {@link ANTHROPIC_BASE_URL}); `apiKey` is sent as `x-api-key` when present.
   * @param rasterizer gives the page image; with `dpi: null` the page renders at `defaultDpi`.
   */
  constructor(settings: RemoteProviderSettings, rasterizer: PageRasterizer) {
    this.#settings = {
      ...settings,
      baseUrl: (settings.baseUrl || ANTHROPIC_BASE_URL).replace(/\/+$/, ''),
    };
    this.id = settings.id;
    this.model = settings.model;
    this.#rasterizer = rasterizer;
    this.#client = new JsonHttpClient(this.#settings);
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
    const page = await encodePage(this.#rasterizer, request, this.#settings.defaultDpi);
    const { body } = await this.#client.postJson(
      '/v1/messages',
      {
        model: this.model,
        max_tokens: this.#settings.maxOutputTokens,
        temperature: 0,
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
      },
      this.#headers(),
    );
    const message = this.#parseMessage(body);
    this.#checkStopReason(message.stop_reason ?? null);
    const usage = message.usage;
    return visionPageResult({
      markdown: message.content
        .filter((block: AnthropicContentBlock) => block.type === 'text')
        .map((block) => block.text ?? '')
        .join(''),
      raster: page.raster,
      model: this.model,
      tokens: {
        input:
          (usage?.input_tokens ?? 0) +
          (usage?.cache_creation_input_tokens ?? 0) +
          (usage?.cache_read_input_tokens ?? 0),
        output: usage?.output_tokens ?? 0,
      },
      ocrScore: null,
    });
  }

  /** Closes the HTTP connections. */
  close(): Promise<void> {
    return this.#client.close();
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_API_VERSION };
    if (this.#settings.apiKey) headers['x-api-key'] = this.#settings.apiKey;
    return headers;
  }

  #parseMessage(body: unknown): AnthropicMessage {
    const parsed = AnthropicMessage.safeParse(body);
    if (!parsed.success) {
      throw unavailable(this.id, `malformed answer: ${firstIssue(parsed.error)}`, parsed.error);
    }
    return parsed.data;
  }

  /** Accepts a finished answer; anything cut short or declined is a provider failure. */
  #checkStopReason(stopReason: string | null): void {
    switch (stopReason) {
      case null:
      case 'end_turn':
      case 'stop_sequence':
        return;
      case 'max_tokens':
        throw unavailable(
          this.id,
          `truncated: the answer reached max_tokens (${this.#settings.maxOutputTokens})`,
        );
      case 'model_context_window_exceeded':
        throw unavailable(this.id, 'truncated: the answer reached the context window');
      case 'refusal':
        throw unavailable(this.id, 'refused: the model declined to transcribe the page');
      default:
        // tool_use, pause_turn...: no tools are offered, so the answer is not a transcription.
        throw unavailable(this.id, `unexpected stop_reason ${stopReason}`);
    }
  }
}

/** The first schema violation as `path: message`, short enough for an error message. */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'unexpected shape';
  const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
  return `${path}: ${issue.message}`;
}
