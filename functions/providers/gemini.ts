import { GoogleGenAI, type GenerateContentParameters } from '@google/genai';
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
  HttpVisionProvider,
  PAGE_TRANSCRIPTION_PROMPT,
  extractionFromText,
  extractionUserText,
  meanTokenProbability,
  parsedAnswer,
  unavailable,
  visionPageResult,
  type RemoteProviderSettings,
} from './remote-provider.js';

/**
 * The API version called: `responseLogprobs` and `responseJsonSchema` are v1beta fields, and
 * the SDK's default version follows Google's, not this adapter's.
 */
const GEMINI_API_VERSION = 'v1beta';

/** A part of a candidate's content; `thought` parts (thinking summaries) are not the answer. */
const GeminiPart = z.object({ text: z.string().optional(), thought: z.boolean().optional() });
type GeminiPart = z.infer<typeof GeminiPart>;

/** One candidate answer, with its log-probabilities when `responseLogprobs` was granted. */
const GeminiCandidate = z.object({
  content: z.object({ parts: z.array(GeminiPart).optional() }).optional(),
  // A string, not an enum: a finish reason added by Google later must not read as "malformed".
  finishReason: z.string().optional(),
  avgLogprobs: z.number().optional(),
  logprobsResult: z
    .object({
      chosenCandidates: z.array(z.object({ logProbability: z.number().optional() })).optional(),
    })
    .optional(),
});
type GeminiCandidate = z.infer<typeof GeminiCandidate>;

/**
 * The part of a `generateContent` answer this adapter reads. The SDK does not check answers
 * (compatible proxies may not keep to its types), so this does.
 */
const GeminiResponse = z.object({
  candidates: z.array(GeminiCandidate).optional(),
  promptFeedback: z.object({ blockReason: z.string().optional() }).optional(),
  usageMetadata: z
    .object({
      promptTokenCount: z.number().nonnegative().optional(),
      candidatesTokenCount: z.number().nonnegative().optional(),
      thoughtsTokenCount: z.number().nonnegative().optional(),
    })
    .optional(),
});
type GeminiResponse = z.infer<typeof GeminiResponse>;

/**
 * A page provider on Google's Gemini API (`generateContent`), through the official
 * `@google/genai` SDK: renders the page, sends the PNG inline with
 * {@link PAGE_TRANSCRIPTION_PROMPT} as the system instruction, and returns the Markdown the
 * model writes.
 *
 * It asks for log-probabilities (`responseLogprobs`) to score the recognition. Models that do
 * not offer them answer HTTP 400 naming logprobs; the provider then repeats the call once
 * without them and leaves them out for the rest of its life (`ocrScore` null from then on).
 *
 * As an extractor it asks for a JSON answer constrained by the schema to fill
 * (`responseMimeType: application/json` with `responseJsonSchema`, which takes plain JSON
 * Schema, unlike `responseSchema` and its OpenAPI subset).
 */
export class GeminiProvider
  extends HttpVisionProvider
  implements PageProvider, StructuredExtractor
{
  readonly #client: GoogleGenAI;
  /** False once the model has refused `responseLogprobs`. */
  #logprobs = true;

  /**
   * @param settings the provider configuration; `baseUrl` is the API root without `/v1beta`
   *   (`https://generativelanguage.googleapis.com`, or a proxy); `apiKey` is sent as
   *   `x-goog-api-key` (never in the URL); `model` may carry the `models/` prefix. The SDK
   *   requires a key: a keyless proxy receives the placeholder `none`.
   * @param rasterizer gives the page image; with `dpi: null` the page renders at `defaultDpi`.
   */
  constructor(settings: RemoteProviderSettings, rasterizer: PageRasterizer) {
    super(settings, rasterizer);
    // Everything explicit: the SDK would otherwise read GOOGLE_* variables (Vertex AI mode,
    // keys) from the environment. No `retryOptions`: the SDK then makes one attempt.
    this.#client = new GoogleGenAI({
      vertexai: false,
      apiKey: settings.apiKey ?? 'none',
      apiVersion: GEMINI_API_VERSION,
      httpOptions: {
        baseUrl: this.settings.baseUrl,
        timeout: settings.timeoutMs,
        fetch: this.fetch,
      },
    });
  }

  /**
   * Transcribes one page with a `generateContent` call (plus the client's retries, plus one
   * repeat without log-probabilities when the model refuses them).
   *
   * @returns the trimmed Markdown of the first candidate (thought parts left out), no elements,
   *   the raster's `dpi`/`width`/`height`, tokens from `usageMetadata` (output includes thinking
   *   tokens, which are billed as output), `ocrScore` = exp(`avgLogprobs`), else the mean token
   *   probability of `logprobsResult.chosenCandidates`, else null; and the structure score of
   *   the Markdown as `layoutScore`.
   * @throws {ProviderUnavailableError} on an HTTP error (after retries for 429/5xx; at once for
   *   other 4xx such as 401/403), a deadline, a network error, a body that is not JSON or not a
   *   `generateContent` answer (`malformed answer`), an answer cut at `maxOutputTokens`
   *   (`truncated`), a blocked prompt (`blocked: <blockReason>`) or a candidate stopped for
   *   another reason than STOP (`stopped: <finishReason>`, e.g. SAFETY, RECITATION).
   * @throws {DocumentRejectedError} when the page cannot be rendered.
   */
  async parsePage(request: PageParseRequest): Promise<ProviderPageResult> {
    const page = await this.pageImage(request);
    const body = await this.#transcribe(page.base64);
    const answer = parsedAnswer(this.id, GeminiResponse, body);
    const candidate = this.#acceptedCandidate(answer);
    return visionPageResult({
      markdown: this.#answerText(candidate),
      raster: page.raster,
      model: this.model,
      tokens: tokensOf(answer),
      ocrScore: ocrScoreOf(candidate),
    });
  }

  /**
   * Fills the request's schema from the document's Markdown and the images of its first pages,
   * with a `generateContent` call whose answer is constrained to JSON by the schema.
   *
   * @returns the answer's JSON object (not checked against the schema), the model, and tokens
   *   from `usageMetadata` as for a page.
   * @throws {ProviderUnavailableError} as `parsePage` does for the call, and when the answer
   *   text is not a JSON object (`malformed answer`).
   * @throws {DocumentRejectedError} when a page cannot be rendered.
   */
  async extract(request: StructuredExtractionRequest): Promise<StructuredExtractionResult> {
    const images = await this.extractionImages(request);
    const body = await this.#generate({
      model: this.model,
      contents: [
        {
          role: 'user',
          parts: [
            ...images.map((image) => ({
              inlineData: { mimeType: 'image/png', data: image.base64 },
            })),
            { text: extractionUserText(request, images) },
          ],
        },
      ],
      config: {
        systemInstruction: { parts: [{ text: EXTRACTION_PROMPT }] },
        temperature: 0,
        maxOutputTokens: this.settings.maxOutputTokens,
        responseMimeType: 'application/json',
        responseJsonSchema: request.schema,
      },
    });
    const answer = parsedAnswer(this.id, GeminiResponse, body);
    const candidate = this.#acceptedCandidate(answer);
    return {
      data: extractionFromText(this.id, this.#answerText(candidate)),
      model: this.model,
      tokens: tokensOf(answer),
    };
  }

  /** A page's `generateContent` call, repeated once without log-probabilities if refused. */
  async #transcribe(base64Png: string): Promise<unknown> {
    const withLogprobs = this.#logprobs;
    try {
      return await this.#generate(this.#pageRequest(base64Png, withLogprobs));
    } catch (error) {
      if (!withLogprobs || !rejectsLogprobs(error)) throw error;
      this.#logprobs = false;
      return await this.#generate(this.#pageRequest(base64Png, false));
    }
  }

  /** One `generateContent` call under the deadline, its answer unchecked. */
  #generate(parameters: GenerateContentParameters): Promise<unknown> {
    return this.call((abortSignal) =>
      this.#client.models.generateContent({
        ...parameters,
        config: { ...parameters.config, abortSignal },
      }),
    );
  }

  /** The candidate's text, thought parts left out. */
  #answerText(candidate: GeminiCandidate): string {
    const parts = candidate.content?.parts;
    if (!parts) throw unavailable(this.id, 'malformed answer: the candidate has no content');
    return parts
      .filter((part: GeminiPart) => part.thought !== true)
      .map((part) => part.text ?? '')
      .join('');
  }

  #pageRequest(base64Png: string, withLogprobs: boolean): GenerateContentParameters {
    return {
      model: this.model,
      contents: [
        {
          role: 'user',
          parts: [
            { inlineData: { mimeType: 'image/png', data: base64Png } },
            { text: 'Transcribe this page.' },
          ],
        },
      ],
      config: {
        systemInstruction: { parts: [{ text: PAGE_TRANSCRIPTION_PROMPT }] },
        temperature: 0,
        maxOutputTokens: this.settings.maxOutputTokens,
        ...(withLogprobs ? { responseLogprobs: true } : {}),
      },
    };
  }

  /** The first candidate when it finished normally; a blocked, cut or stopped answer throws. */
  #acceptedCandidate(answer: GeminiResponse): GeminiCandidate {
    const candidate = answer.candidates?.[0];
    if (!candidate) {
      const blockReason = answer.promptFeedback?.blockReason;
      if (blockReason) throw unavailable(this.id, `blocked: ${blockReason}`);
      throw unavailable(this.id, 'malformed answer: no candidates');
    }
    const finishReason = candidate.finishReason;
    // Absent only in streamed chunks; FINISH_REASON_UNSPECIFIED is the enum's default value.
    if (!finishReason || finishReason === 'STOP' || finishReason === 'FINISH_REASON_UNSPECIFIED') {
      return candidate;
    }
    if (finishReason === 'MAX_TOKENS') {
      throw unavailable(
        this.id,
        `truncated: the answer reached maxOutputTokens (${this.settings.maxOutputTokens})`,
      );
    }
    // SAFETY, RECITATION, PROHIBITED_CONTENT, BLOCKLIST, SPII, OTHER, and any later reason.
    throw unavailable(this.id, `stopped: ${finishReason}`);
  }
}

/** Tokens from `usageMetadata`; output includes thinking tokens, which are billed as output. */
function tokensOf(answer: GeminiResponse): { input: number; output: number } {
  const usage = answer.usageMetadata;
  return {
    input: usage?.promptTokenCount ?? 0,
    output: (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0),
  };
}

/** exp(avgLogprobs), else the mean token probability of the chosen tokens, else null. */
function ocrScoreOf(candidate: GeminiCandidate): number | null {
  if (candidate.avgLogprobs !== undefined && Number.isFinite(candidate.avgLogprobs)) {
    return Math.min(1, Math.exp(candidate.avgLogprobs));
  }
  const logprobs = (candidate.logprobsResult?.chosenCandidates ?? [])
    .map((token) => token.logProbability)
    .filter((lp): lp is number => lp !== undefined);
  const probability = meanTokenProbability(logprobs);
  return probability === null ? null : Math.min(1, probability);
}

/** An HTTP 400 whose message names logprobs: the model does not offer them. */
function rejectsLogprobs(error: unknown): boolean {
  return (
    error instanceof ProviderUnavailableError &&
    error.details?.status === 400 &&
    /logprob/i.test(error.message)
  );
}
