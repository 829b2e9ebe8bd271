import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { ProviderUnavailableError } from '../core/domain/errors.js';
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
  EXTRACTION_TOOL_NAME,
  HttpVisionProvider,
  PAGE_TRANSCRIPTION_PROMPT,
  extractionFromText,
  extractionUserText,
  meanTokenProbability,
  unavailable,
  visionPageResult,
  type EncodedPage,
  type RemoteProviderSettings,
} from './remote-provider.js';

/** The text part of the user message that goes with the page image. */
const USER_INSTRUCTION = 'Transcribe this page.';

/** One part of a multi-part message content; only `text` parts carry the answer. */
const ContentPart = z.object({ type: z.string(), text: z.string().optional() });

/**
 * Token log-probabilities. Lenient (`catch(null)`): a server that sends them in an unexpected
 * shape still gave a usable transcription, which is then reported without `ocrScore`.
 */
const Logprobs = z
  .object({ content: z.array(z.object({ logprob: z.number() })).nullish() })
  .nullish()
  .catch(null);

/** Token counts. Lenient like {@link Logprobs}: they are accounting, not the answer. */
const Usage = z
  .object({
    prompt_tokens: z.number().int().nonnegative().nullish(),
    completion_tokens: z.number().int().nonnegative().nullish(),
  })
  .nullish()
  .catch(null);

/** The part of a Chat Completions answer this adapter reads. */
const ChatCompletion = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.union([z.string(), z.array(ContentPart)]).nullish(),
          refusal: z.string().nullish(),
        }),
        finish_reason: z.string().nullish(),
        logprobs: Logprobs,
      }),
    )
    .min(1),
  usage: Usage,
});
type ChatCompletion = z.infer<typeof ChatCompletion>;
type ChatChoice = ChatCompletion['choices'][number];

/**
 * A vision model behind the OpenAI Chat Completions wire format: OpenAI itself and the
 * compatible servers (vLLM, Ollama, LM Studio, llama.cpp server, OpenRouter and similar),
 * through the official `openai` SDK pointed at `baseUrl`.
 *
 * Each page is rendered to PNG and sent as a `data:` URL with {@link PAGE_TRANSCRIPTION_PROMPT}
 * as the system message, at temperature 0, asking for token log-probabilities (the source of
 * `ocrScore`). Servers that reject `logprobs` with HTTP 400 are asked again without it, and this
 * instance stops asking for them.
 *
 * As an extractor it asks for a `json_schema` response format (not strict: strict mode accepts
 * only a subset of JSON Schema). Servers that reject it with HTTP 400 are asked again in JSON
 * mode (`json_object`) with the schema in the prompt, and this instance keeps to JSON mode.
 *
 * Settings: `baseUrl` ends before `/chat/completions` (e.g. `https://api.openai.com/v1` or
 * `http://localhost:11434/v1`); the key is sent as a Bearer token only when set; deadline,
 * retries and output-token cap apply to every call. Pages render at the request's DPI or
 * `defaultDpi`. The SDK reads nothing from the environment here (`OPENAI_*` variables are not
 * this provider's configuration) and does not retry: {@link HttpVisionProvider} does.
 */
export class OpenAiCompatibleProvider
  extends HttpVisionProvider
  implements PageProvider, StructuredExtractor
{
  /** False once the server has rejected `logprobs`; kept for the life of the instance. */
  #askLogprobs = true;
  /** False once the server has rejected the `json_schema` response format. */
  #askJsonSchema = true;
  readonly #client: OpenAI;

  constructor(settings: RemoteProviderSettings, rasterizer: PageRasterizer) {
    super(settings, rasterizer);
    // A keyless server (Ollama, a local vLLM) gets no Authorization header at all.
    this.#client = new OpenAI({ ...this.sdkClientOptions(), organization: null, project: null });
  }

  /**
   * Transcribes one page with the model.
   *
   * @returns the trimmed Markdown answer, no elements, the raster's `dpi`/`width`/`height`,
   *   `tokens` from `usage` (0 when absent), `ocrScore` = mean token probability (null when the
   *   server gives no log-probabilities), `layoutScore` = structure score of the Markdown.
   * @throws {ProviderUnavailableError} on HTTP failure after the retries, the deadline, a body
   *   that is not a Chat Completion, an empty answer, a refusal, a content-filter stop, or an
   *   answer cut at `maxOutputTokens` (`truncated`).
   * @throws {DocumentRejectedError} from the rasterizer when the page cannot be rendered.
   */
  async parsePage(request: PageParseRequest): Promise<ProviderPageResult> {
    const { raster, base64 } = await this.pageImage(request);
    const completion = await this.#complete(`data:image/png;base64,${base64}`);
    const choice = this.#acceptedChoice(completion, 'page');
    const markdown = contentText(choice.message.content);
    if (markdown === null) throw unavailable(this.id, 'the answer has no message content');
    if (!markdown.trim()) throw unavailable(this.id, 'the answer is empty');
    const logprobs = choice.logprobs?.content?.map((token) => token.logprob) ?? [];
    return visionPageResult({
      markdown,
      raster,
      model: this.model,
      tokens: tokensOf(completion),
      ocrScore: meanTokenProbability(logprobs),
    });
  }

  /**
   * Fills the request's schema from the document's Markdown and the images of its first pages,
   * with the `json_schema` response format (or JSON mode, see the class).
   *
   * @returns the answer's JSON object (not checked against the schema), the model, and tokens
   *   from `usage` (0 when absent).
   * @throws {ProviderUnavailableError} on HTTP failure after the retries, the deadline, a body
   *   that is not a Chat Completion, a refusal, a content-filter stop, an answer cut at
   *   `maxOutputTokens` (`truncated`), or content that is not a JSON object (`malformed answer`).
   * @throws {DocumentRejectedError} from the rasterizer when a page cannot be rendered.
   */
  async extract(request: StructuredExtractionRequest): Promise<StructuredExtractionResult> {
    const images = await this.extractionImages(request);
    let body: unknown;
    if (this.#askJsonSchema) {
      try {
        body = await this.#create(this.#extractionBody(request, images, true));
      } catch (error) {
        if (!this.#rejects(error, /response_format|json_schema/i)) throw error;
        this.#askJsonSchema = false;
      }
    }
    body ??= await this.#create(this.#extractionBody(request, images, false));
    const completion = this.#parseCompletion(body);
    const choice = this.#acceptedChoice(completion, 'document');
    return {
      data: extractionFromText(this.id, contentText(choice.message.content)),
      model: this.model,
      tokens: tokensOf(completion),
    };
  }

  /** Sends the request, falling back once to a request without `logprobs` when it is rejected. */
  async #complete(imageUrl: string): Promise<ChatCompletion> {
    let body: unknown;
    if (this.#askLogprobs) {
      try {
        body = await this.#create(this.#requestBody(imageUrl, true));
      } catch (error) {
        if (!this.#rejects(error, /logprob/i)) throw error;
        this.#askLogprobs = false;
      }
    }
    body ??= await this.#create(this.#requestBody(imageUrl, false));
    return this.#parseCompletion(body);
  }

  /**
   * One Chat Completions call, its answer unchecked (`unknown`): compatible servers do not all
   * keep to the SDK's types, so {@link #parseCompletion} checks what this adapter reads.
   */
  #create(body: ChatCompletionCreateParamsNonStreaming): Promise<unknown> {
    return this.call((signal) => this.#client.chat.completions.create(body, { signal }));
  }

  #parseCompletion(body: unknown): ChatCompletion {
    const parsed = ChatCompletion.safeParse(body);
    if (!parsed.success) {
      // Paths only: the issues' messages may quote values, and the body holds page content.
      const where = [
        ...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || '(root)')),
      ];
      throw unavailable(
        this.id,
        `the answer is not a chat completion (unexpected ${where.slice(0, 3).join(', ')})`,
        parsed.error,
      );
    }
    return parsed.data;
  }

  /** The first choice when it is a finished answer; a refused, filtered or cut one throws. */
  #acceptedChoice(completion: ChatCompletion, subject: 'page' | 'document'): ChatChoice {
    const choice = completion.choices[0];
    if (!choice) throw unavailable(this.id, 'the answer has no choices');
    if (choice.message.refusal) throw unavailable(this.id, `the model refused the ${subject}`);
    if (choice.finish_reason === 'length') {
      throw unavailable(
        this.id,
        `truncated: the answer reached max_tokens (${this.settings.maxOutputTokens})`,
      );
    }
    if (choice.finish_reason === 'content_filter') {
      throw unavailable(this.id, 'the answer was stopped by the content filter');
    }
    return choice;
  }

  /**
   * An extraction request: the schema as a `json_schema` response format, or (`jsonSchema`
   * false) JSON mode with the schema in the user text.
   */
  #extractionBody(
    request: StructuredExtractionRequest,
    images: readonly EncodedPage[],
    jsonSchema: boolean,
  ): ChatCompletionCreateParamsNonStreaming {
    return {
      model: this.model,
      messages: [
        { role: 'system', content: EXTRACTION_PROMPT },
        {
          role: 'user',
          content: [
            {
              type: 'text',
              text: extractionUserText(request, images, jsonSchema ? undefined : request.schema),
            },
            ...images.map((image) => ({
              type: 'image_url' as const,
              image_url: { url: `data:image/png;base64,${image.base64}`, detail: 'high' as const },
            })),
          ],
        },
      ],
      ...this.#answerLimits(),
      response_format: jsonSchema
        ? {
            type: 'json_schema',
            json_schema: { name: EXTRACTION_TOOL_NAME, schema: request.schema, strict: false },
          }
        : { type: 'json_object' },
    };
  }

  #requestBody(imageUrl: string, logprobs: boolean): ChatCompletionCreateParamsNonStreaming {
    return {
      model: this.model,
      messages: [
        { role: 'system', content: PAGE_TRANSCRIPTION_PROMPT },
        {
          role: 'user',
          content: [
            { type: 'text', text: USER_INSTRUCTION },
            { type: 'image_url', image_url: { url: imageUrl, detail: 'high' } },
          ],
        },
      ],
      ...this.#answerLimits(),
      ...(logprobs ? { logprobs: true } : {}),
    };
  }

  /** The output cap and temperature 0 of every request. */
  #answerLimits(): Pick<ChatCompletionCreateParamsNonStreaming, 'max_tokens' | 'temperature'> {
    return {
      // The compatible servers (Ollama, LM Studio, llama.cpp) read max_tokens, not its successor
      // max_completion_tokens; OpenAI still takes it for the non-reasoning vision models.
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      max_tokens: this.settings.maxOutputTokens,
      temperature: 0,
    };
  }

  /**
   * An HTTP 400 whose API message names what `about` matches (`logprobs`, `response_format`):
   * a parameter this server does not take.
   */
  #rejects(error: unknown, about: RegExp): boolean {
    return (
      error instanceof ProviderUnavailableError &&
      error.details?.status === 400 &&
      // The provider id is part of the message; only the API's own words count.
      about.test(error.message.replace(`provider ${this.id}`, ''))
    );
  }
}

/** Tokens from `usage`; 0 when the server leaves it out. */
function tokensOf(completion: ChatCompletion): { input: number; output: number } {
  return {
    input: completion.usage?.prompt_tokens ?? 0,
    output: completion.usage?.completion_tokens ?? 0,
  };
}

/** The answer text: a string, or the `text` parts of a content array joined; null when absent. */
function contentText(
  content: string | { type: string; text?: string | undefined }[] | null | undefined,
): string | null {
  if (content === null || content === undefined) return null;
  if (typeof content === 'string') return content;
  const texts = content
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text ?? '');
  return texts.length === 0 ? null : texts.join('');
}
