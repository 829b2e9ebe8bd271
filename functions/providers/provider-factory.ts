import type { ConfiguredProvider } from './provider-config.js';
import type { BuiltProvider, ProviderRuntime } from './provider-registry.js';
import type { RemoteProviderSettings } from './remote-provider.js';

type RemoteEntry = Exclude<ConfiguredProvider, { kind: 'local-text' | 'local-ocr' }>;
type HttpEntry = Exclude<RemoteEntry, { kind: 'bedrock-converse' | 'textract' }>;

/**
 * Builds a remote provider of the configuration: its adapter on the vendor's SDK (the AWS SDK
 * client is built here for Bedrock and Textract; the others build their own), and the page
 * renderer it sends images from. The adapters of the kinds that
 * support extraction (all but Textract) are also the `StructuredExtractor` of their id.
 *
 * The adapter's module, and with it the vendor's SDK, is loaded here, on the first build of its
 * kind: a service that calls no vendor loads none of them (they take 0.1 to 1.1 s each to load).
 * @throws {Error} for the offline kinds, which come from the runtime's own providers.
 */
export async function instantiateProvider(
  entry: ConfiguredProvider,
  runtime: ProviderRuntime,
): Promise<BuiltProvider> {
  switch (entry.kind) {
    case 'local-text':
    case 'local-ocr':
      throw new Error(`the offline provider ${entry.id} comes from the runtime, not the factory`);
    case 'bedrock-converse': {
      const { BedrockConverseProvider, bedrockClient } = await import('./bedrock-converse.js');
      const settings = commonSettings(entry);
      return new BedrockConverseProvider(
        settings,
        bedrockClient(settings, entry.region),
        runtime.rasterizer,
      );
    }
    case 'textract': {
      const { TextractProvider, textractClient } = await import('./textract.js');
      const settings = commonSettings(entry);
      return new TextractProvider(
        settings,
        textractClient(settings, entry.region),
        runtime.rasterizer,
      );
    }
    case 'openai-compatible': {
      const { OpenAiCompatibleProvider } = await import('./openai-compatible.js');
      return new OpenAiCompatibleProvider(httpSettings(entry), runtime.rasterizer);
    }
    case 'anthropic': {
      const { AnthropicProvider } = await import('./anthropic.js');
      return new AnthropicProvider(httpSettings(entry), runtime.rasterizer);
    }
    case 'gemini': {
      const { GeminiProvider } = await import('./gemini.js');
      return new GeminiProvider(httpSettings(entry), runtime.rasterizer);
    }
    case 'mistral-ocr': {
      const { MistralOcrProvider } = await import('./mistral-ocr.js');
      return new MistralOcrProvider(httpSettings(entry), runtime.rasterizer);
    }
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
