import { z } from 'zod';
import type { Tier } from '../core/domain/schemas.js';

/**
 * The provider configuration file (`config/providers.json`, or the file named by
 * `PROVIDERS_FILE`, or the JSON in `PROVIDERS_JSON`): the providers, the ordered chain of each
 * tier, the providers that fill extraction schemas, their prices and the circuit breakers'
 * policy. Keys never appear in it: a provider names the environment variable that holds its key
 * (`api_key_env`) or the Secrets Manager secret that does (`api_key_secret`, read by
 * `provider-secrets.ts` where providers run).
 */

/** A provider id: letters, digits, `.`, `_`, `-`, `:` (it appears in `Page.provider` and item keys). */
const ProviderId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, {
  message: 'provider ids are 1 to 64 letters, digits, ".", "_", "-" or ":"',
});

/** What a provider charges, passed through to `usage.estimated_cost_usd` (USD). */
const Price = z
  .strictObject({
    per_page_usd: z.number().min(0).default(0),
    per_input_token_usd: z.number().min(0).default(0),
    per_output_token_usd: z.number().min(0).default(0),
  })
  .default({ per_page_usd: 0, per_input_token_usd: 0, per_output_token_usd: 0 });
export type ProviderPrice = z.infer<typeof Price>;

const remoteCommon = {
  model: z.string().min(1),
  /** Whole-call deadline, retries included. */
  timeout_ms: z.number().int().positive().default(120_000),
  /** Retries after the first attempt on 429, 5xx and network errors. */
  max_retries: z.number().int().min(0).max(10).default(2),
  /** Rendering resolution of the page image sent, when the request leaves `dpi` unset. */
  dpi: z.number().int().min(50).max(600).default(150),
  price: Price,
};

/**
 * The one model id of each offline engine: what its pages report as `Page.model`, what
 * GET /v1/providers lists, and what `preferred_model`, `compare_provider` and compare's
 * `providers` accept for it (the engines' own `model`; a test holds the two together).
 */
export const OFFLINE_MODELS = {
  'local-text': 'pdf-text-layout-1',
  'local-ocr': 'tesseract-5-lstm',
} as const satisfies Record<'local-text' | 'local-ocr', string>;

/**
 * Model ids an offline engine's pages report besides its own: `local-text` answers the pages of
 * office, HTML and Markdown documents with their converted text, reported as `office-convert-1`
 * (the office engine's model; a test holds the two together). Requests may name these too.
 */
export const OFFLINE_OTHER_MODELS = {
  'local-text': ['office-convert-1'],
  'local-ocr': [],
} as const satisfies Record<'local-text' | 'local-ocr', readonly string[]>;

const LocalProvider = z.strictObject({
  kind: z.enum(['local-text', 'local-ocr']),
  price: Price,
});

/** Secrets Manager's characters of a secret name (1 to 512 of them). */
const SECRET_NAME = '[A-Za-z0-9/_+=.@-]{1,512}';
const SECRET_ID = new RegExp(
  `^(?:${SECRET_NAME}|arn:[a-z][a-z0-9-]*:secretsmanager:[a-z0-9-]+:\\d{12}:secret:${SECRET_NAME})$`,
);

const HttpProvider = z
  .strictObject({
    kind: z.enum(['openai-compatible', 'anthropic', 'gemini', 'mistral-ocr']),
    ...remoteCommon,
    /** API base URL (https, or http for a server on this machine or network). */
    base_url: z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, '')),
    /** The environment variable holding the API key; absent for keyless servers. */
    api_key_env: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/)
      .optional(),
    /**
     * The Secrets Manager secret (name or ARN) holding the API key: its SecretString is the key,
     * or a JSON object holding it in {@link api_key_secret_field}. Exclusive with `api_key_env`.
     */
    api_key_secret: z
      .string()
      .regex(SECRET_ID, {
        message: 'must be a secret name (letters, digits and /_+=.@-) or a secret ARN',
      })
      .optional(),
    /** The field of a JSON secret holding the key. @default `api_key` (for a JSON secret) */
    api_key_secret_field: z.string().min(1).optional(),
    max_output_tokens: z.number().int().positive().default(8192),
  })
  .superRefine((entry, ctx) => {
    if (entry.api_key_env !== undefined && entry.api_key_secret !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['api_key_secret'],
        message: 'set api_key_env or api_key_secret, not both: the key comes from one place',
      });
    }
    if (entry.api_key_secret_field !== undefined && entry.api_key_secret === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['api_key_secret_field'],
        message: 'names a field of the secret of api_key_secret, which is not set',
      });
    }
  });

const AwsProvider = z.strictObject({
  kind: z.enum(['bedrock-converse', 'textract']),
  ...remoteCommon,
  /** @default the function's own region */
  region: z.string().min(1).optional(),
  max_output_tokens: z.number().int().positive().default(8192),
});

const ProviderEntry = z.discriminatedUnion('kind', [LocalProvider, HttpProvider, AwsProvider]);
export type ProviderEntry = z.infer<typeof ProviderEntry>;
export type ProviderKind = ProviderEntry['kind'];

const TierEntry = z.strictObject({
  /** Providers tried in order; a page falls over to the next when one fails or is open. */
  providers: z.array(ProviderId).min(1),
  /** The service's own price per page of this tier, the base of the cost and of estimates. */
  price_per_page_usd: z.number().min(0),
});

/**
 * The remote models that fill `extraction_schema` (`extract` and `hybrid` modes), tried in
 * order; the service's offline extractor is always the last resort, and the only one when the
 * list is empty (the default).
 */
const ExtractionEntry = z
  .strictObject({ providers: z.array(ProviderId) })
  .default({ providers: [] });

/** Circuit-breaker policy (see `core/domain/circuit-breaker.ts`); defaults there. */
const Breaker = z
  .strictObject({
    failure_threshold: z.number().int().positive().optional(),
    cooldown_ms: z.number().int().positive().optional(),
    half_open_probes: z.number().int().positive().optional(),
    idle_after_ms: z.number().int().positive().optional(),
  })
  .default({});

export const ProvidersFile = z
  .strictObject({
    $comment: z.string().optional(),
    providers: z.record(ProviderId, ProviderEntry),
    tiers: z.strictObject({ fast: TierEntry, pro: TierEntry, premium: TierEntry }),
    extraction: ExtractionEntry,
    breaker: Breaker,
  })
  .superRefine((file, ctx) => {
    for (const tier of ['fast', 'pro', 'premium'] as const) {
      file.tiers[tier].providers.forEach((id, index) => {
        if (!Object.hasOwn(file.providers, id)) {
          ctx.addIssue({
            code: 'custom',
            path: ['tiers', tier, 'providers', index],
            message: `tier ${tier} names provider "${id}", which is not in "providers"`,
          });
        }
      });
    }
    const seen = new Set<string>();
    file.extraction.providers.forEach((id, index) => {
      const path = ['extraction', 'providers', index];
      const entry = Object.hasOwn(file.providers, id) ? file.providers[id] : undefined;
      if (!entry) {
        ctx.addIssue({
          code: 'custom',
          path,
          message: `extraction names provider "${id}", which is not in "providers"`,
        });
      } else if (!supportsExtraction(entry.kind)) {
        ctx.addIssue({
          code: 'custom',
          path,
          message: `provider "${id}" is of kind ${entry.kind}, which cannot fill an extraction schema; use one of ${EXTRACTION_KINDS.join(', ')}`,
        });
      } else if (seen.has(id)) {
        ctx.addIssue({
          code: 'custom',
          path,
          message: `extraction names provider "${id}" twice; each is tried once`,
        });
      }
      seen.add(id);
    });
  });
export type ProvidersFile = z.infer<typeof ProvidersFile>;

/**
 * A configured provider with its key resolved: from the environment by
 * {@link parseProvidersConfig}, from Secrets Manager by `resolveProviderSecrets`.
 */
export type ConfiguredProvider = ProviderEntry & { id: string; apiKey?: string };

/** The provider configuration the service runs with. */
export interface ProvidersConfig {
  providers: Readonly<Record<string, ConfiguredProvider>>;
  tiers: Readonly<Record<Tier, { providers: readonly string[]; pricePerPageUsd: number }>>;
  /** The providers that fill extraction schemas, in the order they are tried; may be empty. */
  extraction: readonly string[];
  breaker: ProvidersFile['breaker'];
}

/**
 * Validates a provider configuration and resolves each `api_key_env` from `env`. Keys named by
 * `api_key_secret` are left unresolved (no `apiKey`): no variable is needed for them.
 * @param options.keysWithheld the `api_key_env` variables are deliberately not set here (a
 *   function that never calls a provider): an unset one leaves its provider without `apiKey`
 *   instead of being a problem.
 * @returns the configuration, or the list of problems (paths into the file and what is wrong);
 *   a named key variable that is unset or empty is a problem (unless `keysWithheld`).
 */
export function parseProvidersConfig(
  json: unknown,
  env: Readonly<Record<string, string | undefined>>,
  options: { keysWithheld?: boolean } = {},
): { config: ProvidersConfig } | { problems: string[] } {
  // The input of each issue says what was found instead (the file holds no secrets).
  const parsed = ProvidersFile.safeParse(json, { reportInput: true });
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.map((issue) => {
        const path = issue.path.join('.');
        if (issue.code === 'invalid_type') {
          const hint = expectedShape(path);
          if (hint !== undefined) {
            const found = issue.input === undefined ? 'is missing' : `is ${kindOf(issue.input)}`;
            return `${path}: ${found}; write it as ${hint}`;
          }
        }
        // A bad record key's own message (the id rule) is nested in the issue.
        const message =
          issue.code === 'invalid_key'
            ? (issue.issues[0]?.message ?? issue.message)
            : issue.message;
        return `${path || '(file)'}: ${message}`;
      }),
    };
  }
  const problems: string[] = [];
  const providers: Record<string, ConfiguredProvider> = {};
  for (const [id, entry] of Object.entries(parsed.data.providers)) {
    if (entry.kind !== 'local-text' && entry.kind !== 'local-ocr' && 'api_key_env' in entry) {
      const name = entry.api_key_env;
      if (name !== undefined) {
        const key = env[name];
        if (key === undefined || key.trim() === '') {
          if (options.keysWithheld === true) {
            providers[id] = { ...entry, id };
          } else {
            problems.push(`providers.${id}.api_key_env: the variable ${name} is not set`);
          }
          continue;
        }
        providers[id] = { ...entry, id, apiKey: key.trim() };
        continue;
      }
    }
    providers[id] = { ...entry, id };
  }
  if (problems.length > 0) return { problems };
  const tier = (t: Tier) => ({
    providers: parsed.data.tiers[t].providers,
    pricePerPageUsd: parsed.data.tiers[t].price_per_page_usd,
  });
  return {
    config: {
      providers,
      tiers: { fast: tier('fast'), pro: tier('pro'), premium: tier('premium') },
      extraction: parsed.data.extraction.providers,
      breaker: parsed.data.breaker,
    },
  };
}

/** What a part of the file looks like, for the message of a part of the wrong type. */
const SHAPES: readonly (readonly [RegExp, string])[] = [
  [
    /^tiers$/,
    'an object with one entry per tier: { "fast": {...}, "pro": {...}, "premium": {...} }, each like { "providers": ["local-text", "local-ocr"], "price_per_page_usd": 0.001 }',
  ],
  [
    /^tiers\.(fast|pro|premium)$/,
    'an object: { "providers": ["local-text", "local-ocr"], "price_per_page_usd": 0.001 } (the providers tried in order, and the price per page)',
  ],
  [/^tiers\.(fast|pro|premium)\.providers$/, 'a list of provider ids: ["local-text", "local-ocr"]'],
  [/^tiers\.(fast|pro|premium)\.price_per_page_usd$/, 'a price in USD: 0.001'],
  [
    /^providers$/,
    'an object keyed by provider id: { "local-ocr": { "kind": "local-ocr" }, "gpt": { "kind": "openai-compatible", "model": "gpt-4.1-mini", "base_url": "https://api.openai.com/v1", "api_key_env": "OPENAI_API_KEY" } }',
  ],
  [
    /^providers\.[^.]+$/,
    'an object with its kind: { "kind": "local-ocr" }, or for a remote model { "kind": "openai-compatible", "model": "gpt-4.1-mini", "base_url": "https://api.openai.com/v1", "api_key_env": "OPENAI_API_KEY" }',
  ],
  [
    /^providers\.[^.]+\.price$/,
    'an object: { "per_page_usd": 0.001, "per_input_token_usd": 0, "per_output_token_usd": 0 }',
  ],
  [/^extraction$/, 'an object: { "providers": ["<provider id>", ...] }'],
  [/^extraction\.providers$/, 'a list of provider ids: ["<provider id>", ...]'],
  [/^breaker$/, 'an object: { "failure_threshold": 5, "cooldown_ms": 30000 }'],
];

function expectedShape(path: string): string | undefined {
  return SHAPES.find(([pattern]) => pattern.test(path))?.[1];
}

/** The JSON type of a value, as a message names it: `an array`, `a string`, `null`. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The Secrets Manager secret holding a provider's key, when it names one (`api_key_secret`). */
export function keySecretOf(
  entry: ProviderEntry,
): { secretId: string; field: string | undefined } | undefined {
  if (!('api_key_secret' in entry) || entry.api_key_secret === undefined) return undefined;
  return { secretId: entry.api_key_secret, field: entry.api_key_secret_field };
}

/**
 * The ids of the providers some tier or the extraction chain uses (the only ones ever built),
 * each once: tiers first, in configuration order.
 */
export function usedProviderIds(config: {
  tiers: Readonly<Record<Tier, { providers: readonly string[] }>>;
  extraction?: readonly string[];
}): string[] {
  return [
    ...new Set([
      ...Object.values(config.tiers).flatMap((tier) => tier.providers),
      ...(config.extraction ?? []),
    ]),
  ];
}

/** Whether a provider some tier or the extraction chain uses reads its key from Secrets Manager. */
export function usesKeySecrets(config: ProvidersConfig): boolean {
  return usedProviderIds(config).some((id) => {
    const entry = Object.hasOwn(config.providers, id) ? config.providers[id] : undefined;
    return entry !== undefined && keySecretOf(entry) !== undefined;
  });
}

/** Providers whose answers a generative model writes (see `ProviderCapability.generative`). */
export function isGenerative(kind: ProviderKind): boolean {
  return (
    kind === 'openai-compatible' ||
    kind === 'anthropic' ||
    kind === 'gemini' ||
    kind === 'bedrock-converse' ||
    kind === 'mistral-ocr'
  );
}

/** The kinds whose adapters fill a JSON Schema with their vendor's structured-output feature. */
const EXTRACTION_KINDS = [
  'openai-compatible',
  'anthropic',
  'gemini',
  'bedrock-converse',
  'mistral-ocr',
] as const satisfies readonly ProviderKind[];

/**
 * Providers that can be in the extraction chain (`StructuredExtractor`s): the remote models.
 * The offline engines and Textract read pages but fill no schema.
 */
export function supportsExtraction(kind: ProviderKind): boolean {
  return (EXTRACTION_KINDS as readonly ProviderKind[]).includes(kind);
}

/** Providers that read the PDF text layer cannot parse pages without a usable one. */
export function needsTextLayer(kind: ProviderKind): boolean {
  return kind === 'local-text';
}
