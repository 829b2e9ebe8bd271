import type { ProviderRegistry } from '../core/ports/pipeline.js';
import type { ProviderPrice } from '../core/domain/pricing.js';
import type { ProviderCapability } from '../core/domain/routing.js';
import type { Tier } from '../core/domain/schemas.js';
import type { PageParseRequest, PageProvider } from '../core/ports/page-provider.js';
import type {
  StructuredExtractionRequest,
  StructuredExtractor,
} from '../core/ports/structured-extractor.js';
import type { PageRasterizer } from '../engines/raster.js';
import {
  isGenerative,
  keySecretOf,
  needsTextLayer,
  OFFLINE_MODELS,
  OFFLINE_OTHER_MODELS,
  supportsExtraction,
  type ConfiguredProvider,
  type ProvidersConfig,
} from './provider-config.js';

/**
 * A provider as built: its pages, and for the kinds that support extraction
 * (`supportsExtraction`) the same object fills extraction schemas.
 */
export type BuiltProvider = PageProvider & Partial<Pick<StructuredExtractor, 'extract'>>;

/** What running providers needs from the engines: the offline providers and the page renderer. */
export interface ProviderRuntime {
  /** The offline providers by kind (`local-text`, `local-ocr`). */
  local: ReadonlyMap<'local-text' | 'local-ocr', PageProvider>;
  rasterizer: PageRasterizer;
  /**
   * Builds a remote provider of the configuration (`instantiateProvider` of
   * `provider-factory.ts`, which loads the vendor's SDK then). Passed in rather than imported, so
   * that functions that never parse pages do not bundle the adapters and their SDKs.
   */
  build: (entry: ConfiguredProvider, runtime: ProviderRuntime) => Promise<BuiltProvider>;
}

/** A provider registry with resources to release (remote clients' connections). */
export interface ConfiguredRegistry extends ProviderRegistry {
  close(): Promise<void>;
}

/**
 * The providers of the configuration. Chains, ids and prices come from the configuration alone;
 * provider instances are built on first use from `runtime`, which functions that never parse
 * pages (the API, health) do not have: there `get` and `extractor` throw.
 *
 * A provider whose key is in Secrets Manager (`api_key_secret`, no `apiKey` yet) is built on its
 * first page, with the key of `secretKeys` (the configuration with those keys, see
 * `providerSecretsOnce`): functions that load the engines but call no provider never read
 * secrets. Without `secretKeys`, `get` throws for such a provider.
 *
 * The extraction chain is the configuration's `extraction` list. `extractor(id)` gives the
 * same instance as `get(id)`, built the same way (a key in Secrets Manager included), whether
 * or not a tier uses the provider.
 */
export function buildProviderRegistry(
  config: ProvidersConfig,
  runtime: ProviderRuntime | undefined,
  secretKeys?: () => Promise<ProvidersConfig>,
): ConfiguredRegistry {
  const instances = new Map<string, BuiltProvider>();
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
        model: modelOf(configured(id)),
        otherModels: otherModelsOf(configured(id)),
      })),
    );
  }
  const ids = [...new Set([...chains.values()].flat().map((c) => c.id))];
  // Checked like the tiers' ids: a configuration not made by parseProvidersConfig fails here.
  const extractionChain = config.extraction.map((id) => configured(id).id);
  const instance = (id: string): BuiltProvider => {
    const existing = instances.get(id);
    if (existing) return existing;
    if (!runtime) throw new Error(`provider ${id} cannot run in this function (no engines)`);
    const entry = configured(id);
    if ('api_key_env' in entry && entry.api_key_env !== undefined && entry.apiKey === undefined) {
      // Only a configuration read with PROVIDER_KEYS=withheld has such a provider.
      throw new Error(
        `provider ${id} cannot run in this function: its API key (${entry.api_key_env}) is given only to the functions that call providers`,
      );
    }
    let provider: BuiltProvider;
    if (entry.kind === 'local-text' || entry.kind === 'local-ocr') {
      provider = offline(entry, runtime);
    } else if (keySecretOf(entry) === undefined || entry.apiKey !== undefined) {
      provider = builtOnFirstUse(entry, () => runtime.build(entry, runtime));
    } else if (secretKeys) {
      provider = builtOnFirstUse(entry, async () => {
        const keyed = (await secretKeys()).providers[id];
        if (keyed?.apiKey === undefined) throw new Error(`provider ${id} got no API key`);
        return runtime.build(keyed, runtime);
      });
    } else {
      throw new Error(
        `provider ${id} reads its API key from Secrets Manager (api_key_secret), which this registry was not given`,
      );
    }
    instances.set(id, provider);
    return provider;
  };
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
    get: (id: string): PageProvider => instance(id),
    prefetch(id: string, request: PageParseRequest): void {
      // Offline providers only: they run here already, and a remote one is never built for it.
      const entry = Object.hasOwn(config.providers, id) ? config.providers[id] : undefined;
      if (!runtime || (entry?.kind !== 'local-text' && entry?.kind !== 'local-ocr')) return;
      try {
        runtime.local.get(entry.kind)?.prefetch?.(request);
      } catch {
        // A hint: the page is parsed all the same when asked for.
      }
    },
    extractionChain: () => extractionChain,
    extractor(id: string): StructuredExtractor {
      if (!extractionChain.includes(id)) {
        throw new Error(`provider ${id} is not in the extraction chain (extraction.providers)`);
      }
      const { kind } = configured(id);
      if (!supportsExtraction(kind)) {
        throw new Error(`provider ${id} is of kind ${kind}, which cannot fill extraction schemas`);
      }
      const provider = instance(id);
      if (!isExtractor(provider)) {
        throw new Error(`provider ${id} (${kind}) was built without extraction`);
      }
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

/**
 * A remote provider built by `build` on its first page or extraction (once; a failed build is
 * tried again on the next call): its vendor SDK is loaded then, and its key read from Secrets
 * Manager then when it is kept there. `build`'s errors are those of the call.
 */
function builtOnFirstUse(
  entry: ConfiguredProvider,
  build: () => Promise<BuiltProvider>,
): BuiltProvider & { close(): Promise<void> } {
  let built: Promise<BuiltProvider> | undefined;
  const provider = () =>
    (built ??= build().catch((error: unknown) => {
      built = undefined;
      throw error;
    }));
  return {
    id: entry.id,
    model: modelOf(entry),
    parsePage: async (request) => (await provider()).parsePage(request),
    ...(supportsExtraction(entry.kind)
      ? {
          extract: async (request: StructuredExtractionRequest) => {
            const inner = await provider();
            if (!isExtractor(inner)) {
              throw new Error(`provider ${entry.id} (${entry.kind}) was built without extraction`);
            }
            return inner.extract(request);
          },
        }
      : {}),
    close: async () => {
      const inner = await built?.catch(() => undefined);
      const close = (inner as { close?: () => Promise<void> } | undefined)?.close;
      if (close) await close.call(inner);
    },
  };
}

function isExtractor(provider: BuiltProvider): provider is PageProvider & StructuredExtractor {
  return typeof provider.extract === 'function';
}

/** An offline provider of the configuration, from the runtime, reported under its configured id. */
function offline(
  entry: Extract<ConfiguredProvider, { kind: 'local-text' | 'local-ocr' }>,
  runtime: ProviderRuntime,
): BuiltProvider {
  const local = runtime.local.get(entry.kind);
  if (!local) throw new Error(`the offline provider ${entry.kind} is not available`);
  return local.id === entry.id
    ? local
    : { id: entry.id, model: local.model, parsePage: (request) => local.parsePage(request) };
}

/**
 * The model a configured provider runs, as its pages report it: the configured model, or the
 * offline engine's own ({@link OFFLINE_MODELS}).
 */
function modelOf(entry: ConfiguredProvider): string {
  return 'model' in entry ? entry.model : OFFLINE_MODELS[entry.kind];
}

/** The other model ids a configured provider's pages report ({@link OFFLINE_OTHER_MODELS}). */
function otherModelsOf(entry: ConfiguredProvider): readonly string[] {
  return 'model' in entry ? [] : OFFLINE_OTHER_MODELS[entry.kind];
}
