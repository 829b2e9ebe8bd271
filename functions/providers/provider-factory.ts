import { AnthropicProvider } from './anthropic.js';
import { BedrockConverseProvider, bedrockClient } from './bedrock-converse.js';
import { GeminiProvider } from './gemini.js';
import { MistralOcrProvider } from './mistral-ocr.js';
import { OpenAiCompatibleProvider } from './openai-compatible.js';
import type { ConfiguredProvider } from './provider-config.js';
import type { BuiltProvider, ProviderRuntime } from './provider-registry.js';
import type { RemoteProviderSettings } from './remote-provider.js';
import { TextractProvider, textractClient } from './textract.js';

type RemoteEntry = Exclude<ConfiguredProvider, { kind: 'local-text' | 'local-ocr' }>;
type HttpEntry = Exclude<RemoteEntry, { kind: 'bedrock-converse' | 'textract' }>;

/**
 * Builds a remote provider of the configuration: its adapter on the vendor's SDK (the AWS SDK
 * client is built here for Bedrock and Textract; the others build their own), and the page
 * renderer it sends images from. The adapters of the kinds that
 * support extraction (all but Textract) are also the `StructuredExtractor` of their id.
 * @throws {Error} for the offline kinds, which come from the runtime's own providers.
 */
export function instantiateProvider(
  entry: ConfiguredProvider,
  runtime: ProviderRuntime,
): BuiltProvider {
  switch (entry.kind) {
    case 'local-text':
    case 'local-ocr':
      throw new Error(`the offline provider ${entry.id} comes from the runtime, not the factory`);
    case 'bedrock-converse': {
      const settings = commonSettings(entry);
      return new BedrockConverseProvider(
        settings,
        bedrockClient(settings, entry.region),
        runtime.rasterizer,
      );
    }
    case 'textract': {
      const settings = commonSettings(entry);
      return new TextractProvider(
        settings,
        textractClient(settings, entry.region),
        runtime.rasterizer,
      );
    }
    case 'openai-compatible':
      return new OpenAiCompatibleProvider(httpSettings(entry), runtime.rasterizer);
    case 'anthropic':
      return new AnthropicProvider(httpSettings(entry), runtime.rasterizer);
    case 'gemini':
      return new GeminiProvider(httpSettings(entry), runtime.rasterizer);
    case 'mistral-ocr':
      return new MistralOcrProvider(httpSettings(entry), runtime.rasterizer);
  }
}

function commonSettings(entry: RemoteEntry) {
  return {
    id: entry.id,
    model: entry.model,
    timeoutMs: entry.timeout_ms,
    maxRetries: entry.max_retries,
    maxOutputTokens: entry.max_output_tokens,
    defaultDpi: entry.dpi,
  };
}

function httpSettings(entry: HttpEntry): RemoteProviderSettings {
  return {
    ...commonSettings(entry),
    baseUrl: entry.base_url,
    ...(entry.apiKey === undefined ? {} : { apiKey: entry.apiKey }),
  };
}
