import type { ProviderRegistry } from '../core/domain/pipeline/pipeline-ports.js';
import type { ProviderPrice } from '../core/domain/pricing.js';
import type { ProviderCapability } from '../core/domain/routing.js';
import type { Tier } from '../core/domain/schemas.js';
import type { PageProvider } from '../core/ports/page-provider.js';
import type { PageRasterizer } from '../engines/raster.js';
import { AnthropicProvider } from './anthropic.js';
import { BedrockConverseProvider, bedrockClient } from './bedrock-converse.js';
import { GeminiProvider } from './gemini.js';
import { MistralOcrProvider } from './mistral-ocr.js';
import { OpenAiCompatibleProvider } from './openai-compatible.js';
import {
  isGenerative,
  needsTextLayer,
  type ConfiguredProvider,
  type ProvidersConfig,
} from './provider-config.js';
import type { RemoteProviderSettings } from './remote-provider.js';
import { TextractProvider, textractClient } from './textract.js';

/** What running providers needs from the engines: the offline providers and the page renderer. */
export interface ProviderRuntime {
  /** The offline providers by kind (`local-text`, `local-ocr`). */
  local: ReadonlyMap<'local-text' | 'local-ocr', PageProvider>;
  rasterizer: PageRasterizer;
}

/** A provider registry with resources to release (remote clients' connections). */
export interface ConfiguredRegistry extends ProviderRegistry {
  close(): Promise<void>;
}

/**
 * The providers of the configuration. Chains, ids and prices come from the configuration alone;
 * provider instances are built on first use from `runtime`, which functions that never parse
 * pages (the API, health) do not have: there `get` throws.
 */
export function buildProviderRegistry(
  config: ProvidersConfig,
  runtime: ProviderRuntime | undefined,
): ConfiguredRegistry {
  const instances = new Map<string, PageProvider>();
  const configured = (id: string): ConfiguredProvider => {
    const entry = Object.hasOwn(config.providers, id) ? config.providers[id] : undefined;
    if (!entry) throw new Error(`provider ${id} is not configured`);
    return entry;
  };
  const chains = new Map<Tier, readonly ProviderCapability[]>();
  for (const tier of ['fast', 'pro', 'premium'] as const) {
    chains.set(
      tier,
      config.tiers[tier].providers.map((id) => ({
        id,
        needsTextLayer: needsTextLayer(configured(id).kind),
        generative: isGenerative(configured(id).kind),
      })),
    );
  }
  const ids = [...new Set([...chains.values()].flat().map((c) => c.id))];
  return {
    chain: (tier) => chains.get(tier) ?? [],
    ids: () => ids,
    price(id: string): ProviderPrice {
      const { price } = configured(id);
      return {
        perPageUsd: price.per_page_usd,
        perInputTokenUsd: price.per_input_token_usd,
        perOutputTokenUsd: price.per_output_token_usd,
      };
    },
    get(id: string): PageProvider {
      const existing = instances.get(id);
      if (existing) return existing;
      if (!runtime) throw new Error(`provider ${id} cannot run in this function (no engines)`);
      const provider = instantiate(configured(id), runtime);
      instances.set(id, provider);
      return provider;
    },
    close: async () => {
      const closing: Promise<void>[] = [];
      for (const provider of instances.values()) {
        const close = (provider as { close?: () => Promise<void> }).close;
        if (close) closing.push(close.call(provider));
      }
      await Promise.all(closing);
    },
  };
}

type RemoteEntry = Exclude<ConfiguredProvider, { kind: 'local-text' | 'local-ocr' }>;
type HttpEntry = Exclude<RemoteEntry, { kind: 'bedrock-converse' | 'textract' }>;

/** One provider of the configuration, built for `runtime`. */
function instantiate(entry: ConfiguredProvider, runtime: ProviderRuntime): PageProvider {
  switch (entry.kind) {
    case 'local-text':
    case 'local-ocr': {
      const local = runtime.local.get(entry.kind);
      if (!local) throw new Error(`the offline provider ${entry.kind} is not available`);
      // Reported under its configured id.
      return local.id === entry.id
        ? local
        : { id: entry.id, model: local.model, parsePage: (request) => local.parsePage(request) };
    }
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
