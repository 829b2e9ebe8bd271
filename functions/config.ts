import { readFileSync } from 'node:fs';
import { z } from 'zod';
import defaultProviders from '../config/providers.json' with { type: 'json' };
import type { Plan } from './core/domain/request.js';
import { isTenantId } from './core/domain/tenant.js';
import { PlanLimitsOverrides, planLimits } from './core/domain/plans.js';
import { parseProvidersConfig, type ProvidersConfig } from './providers/provider-config.js';
import type { Tier } from './core/domain/schemas.js';

const PLANS = ['free', 'pro', 'scale'] as const;

/** `KEY=TENANT:PLAN` entries, comma-separated (plan: free, pro or scale). */
const ApiKeysEnv = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined || raw.trim() === '') return undefined;
    const keys: { key: string; tenant: string; plan: Plan }[] = [];
    for (const entry of raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const match = /^([^=\s]{8,})=([^:]+):([a-z]+)$/.exec(entry);
      const plan = match?.[3];
      if (!match || !isTenantId(match[2] ?? '') || !PLANS.includes(plan as Plan)) {
        ctx.addIssue({
          code: 'custom',
          message: `API_KEYS entry "${entry.split('=')[0] ?? ''}=…" must be KEY=TENANT:PLAN with a key of at least 8 characters, a tenant of letters, digits, _ . - (not dots only) and plan free, pro or scale`,
        });
        return z.NEVER;
      }
      keys.push({ key: match[1] ?? '', tenant: match[2] ?? '', plan: plan as Plan });
    }
    return keys;
  });

/**
 * `PLAN_LIMITS`: JSON overrides of the plans' limits (see `core/domain/plans.ts`), resolved
 * against the defaults; unset: the defaults.
 */
const PlanLimitsEnv = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined) return planLimits();
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        message: `must be JSON such as {"scale":{"requests_per_minute":600,"pages_per_day":null}} (${(error as Error).message})`,
      });
      return z.NEVER;
    }
    const parsed = PlanLimitsOverrides.safeParse(json);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        ctx.addIssue({
          code: 'custom',
          path: issue.path.map(String),
          message: `${issue.message} (plans free, pro, scale; fields requests_per_minute, pages_per_day: a positive integer, or null for no limit)`,
        });
      }
      return z.NEVER;
    }
    return planLimits(parsed.data);
  });

const int = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const common = {
  /**
   * The retention, in days (fractions allowed locally: 0.5 is twelve hours; the AWS stack sets it
   * from `docparse:retentionDays`, whole days). Request records, page checkpoints, events,
   * batches and their items are written with the TTL attribute (`expiresAt`) at this long after
   * their last write, and a result cache entry answers this long after its parse completed.
   * Locally: uploads, work files, results and incoming files (`uploads/`, `work/`, `results/`,
   * `incoming/`) under `DATA_DIR` older than this are deleted, and embedded-table items whose
   * `expiresAt` has passed are removed, as the AWS stack's bucket lifecycle rules and the
   * table's TTL do there.
   */
  RETENTION_DAYS: z.coerce.number().positive().default(7),
  /**
   * The result cache: `on` answers a parse of bytes the tenant parsed before with the same options
   * from the stored result; `off` parses every request (benchmarks measure parses, not the cache).
   */
  RESULT_CACHE: z.enum(['on', 'off']).default('on'),
  API_KEYS: ApiKeysEnv,
  /** Per-plan request and page limits (spec §8); overrides as JSON, see {@link PlanLimitsEnv}. */
  PLAN_LIMITS: PlanLimitsEnv,
  /** Largest accepted upload in bytes (spec §8: 50 MB by default). */
  MAX_UPLOAD_BYTES: int(50 * 1024 * 1024),
  /** Largest page count parsed in one request; longer documents need `max_pages`. */
  MAX_DOCUMENT_PAGES: int(1000),
  /** Largest page image in pixels; rendering DPI is lowered to stay under it. */
  MAX_PAGE_PIXELS: int(40_000_000),
  /** Pages processed in parallel by the ProcessPages map. */
  PAGE_CONCURRENCY: int(4),
  /**
   * tesseract.js workers (about 60 MB each); a page image is recognised in this many bands.
   * Unset: the OCR engine's default, min(2, CPUs).
   */
  OCR_WORKERS: z.coerce.number().int().positive().optional(),
  /**
   * Reader of PDF text layers, rules and images: `pdfium` (PDFium compiled to WebAssembly) or
   * `pdfjs`. pdf.js renders page images either way, and reads files PDFium cannot open.
   */
  PDF_TEXT_READER: z.enum(['pdfium', 'pdfjs']).default('pdfium'),
  /**
   * Longest the PDF reader may spend reading or rendering one page, in milliseconds; past it the
   * document is refused with 422 naming the page and this budget. Kept under the 20 s after
   * which a synchronous parse commits its 200 (so a page that loops is answered with a plain
   * 422), and well under the pipeline's 60 s task timeout (aws-local-stepfunctions' default), so
   * OCR still has time after a render. Born-digital pages read in well under a second here.
   */
  PDF_PAGE_TIMEOUT_MS: int(15_000),
  /**
   * Memory budget of the PDF reader's worker thread, in MiB: PDFium's WebAssembly heap may not
   * grow past half of it (a page whose content inflates further is refused with 422 naming the
   * page and that budget), the worker's JavaScript heap is limited to it (`resourceLimits`), and
   * the worker is replaced after a call that leaves it holding more (WebAssembly memory never
   * shrinks).
   */
  PDF_WORKER_MEMORY_MB: int(1024),
  /**
   * Worker threads reading PDFs, each with the memory budget above: the pages of a document are
   * shared out among them as they become free (a page is laid out by the worker that read it). Unset:
   * min(2, CPUs) in local mode; 1 on AWS, where each page is parsed by its own function call.
   */
  PDF_WORKERS: z.coerce.number().int().positive().optional(),
  /**
   * How long an engine worker (the PDF reader's thread, each tesseract.js OCR worker, each office
   * converter thread) may stay idle before it is terminated to give its memory back (WebAssembly
   * memory never shrinks while a worker lives, V8 seldom returns a heap), in milliseconds; the
   * next call starts a new one (about half a second).
   */
  ENGINE_IDLE_MS: int(60_000),
  /** Router thresholds on the complexity score in [0, 1]. */
  FAST_CEILING: z.coerce.number().min(0).max(1).default(0.35),
  PRO_CEILING: z.coerce.number().min(0).max(1).default(0.7),
  /**
   * The provider configuration (tiers, provider chains, prices, breaker policy): a JSON file, or
   * the JSON itself in `PROVIDERS_JSON`. Default: `config/providers.json` (the offline engines).
   */
  PROVIDERS_FILE: z.string().min(1).optional(),
  PROVIDERS_JSON: z.string().min(1).optional(),
  /**
   * `withheld`: this function never calls a provider, and the variables named by the providers'
   * `api_key_env` are not set for it (the AWS stack sets them on ParsePage and Deliver only):
   * the configuration is read without them, and such a provider cannot be called here.
   * `env` (the default): each of those variables must be set.
   */
  PROVIDER_KEYS: z.enum(['env', 'withheld']).default('env'),
  /**
   * Hosts (`host[:port]`, comma-separated) that `POST /v1/parse` may fetch from over plain http
   * or any port, without the public-address check. For tests and local servers only.
   */
  URL_FETCH_ALLOWLIST: z.string().optional(),
  /**
   * The API's public base URL (e.g. `https://api.example.com`), the start of the `result_url` of
   * webhook events. Unset: taken from each request (its Host header and API Gateway stage).
   */
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('INFO'),
};

const LocalEnv = z.object({
  RUNTIME_MODE: z.literal('local'),
  /**
   * Documents of batches parsed at once by the in-process batch consumer. On AWS the batch
   * consumer's event source `maxConcurrency` bounds it instead (`WorkQueues`).
   */
  BATCH_CONCURRENCY: int(4),
  DATA_DIR: z.string().min(1).default('.data'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  /**
   * Longest the local server waits for a whole request, headers and body, in milliseconds (5
   * minutes: a 50 MB upload at 170 KB/s); past it the answer is 408 and the connection is closed.
   * It bounds receiving the request only, never producing the response (SSE, long parses).
   */
  REQUEST_TIMEOUT_MS: int(300_000),
  /** Longest the local server waits for a request's headers, in milliseconds (at most REQUEST_TIMEOUT_MS). */
  HEADERS_TIMEOUT_MS: int(20_000),
  /** Longest a request body may send no byte, in milliseconds; then 408 and the connection is closed. */
  REQUEST_IDLE_TIMEOUT_MS: int(30_000),
  /** Longest an idle keep-alive connection is kept open between requests, in milliseconds. */
  KEEP_ALIVE_TIMEOUT_MS: int(5_000),
  ...common,
});

const AwsEnv = z.object({
  RUNTIME_MODE: z.literal('aws'),
  BUCKET_NAME: z.string().min(1),
  TABLE_NAME: z.string().min(1),
  /** The parse state machine; needed by functions that start or stop parses (not by stages). */
  STATE_MACHINE_ARN: z.string().min(1).optional(),
  /**
   * The webhook queue: set on the functions that announce finished parses (Deliver,
   * RecordFailure), the webhook deliverer and the functions that accept `webhook_url`.
   */
  WEBHOOK_QUEUE_URL: z.url().optional(),
  /** The webhook queue's dead-letter queue, where the deliverer puts events after the last attempt. */
  WEBHOOK_DLQ_URL: z.url().optional(),
  /** The batch queue (one message per document of a batch): set on the function accepting batches. */
  BATCH_QUEUE_URL: z.url().optional(),
  ...common,
});

const Env = z.discriminatedUnion('RUNTIME_MODE', [LocalEnv, AwsEnv]);

type EnvShape = z.infer<typeof Env>;

/** Validated service configuration (the only reader of `process.env`). */
export type Config = Readonly<
  EnvShape & {
    /** The service's price per page of each tier (from the provider configuration). */
    priceByTier: Readonly<Record<Tier, number>>;
    providers: ProvidersConfig;
  }
>;

/** Configuration errors at start-up list every bad variable at once. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Parses the environment once. `RUNTIME_MODE` defaults to `local`.
 * @throws {ConfigError} naming every invalid variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = Env.safeParse({ RUNTIME_MODE: 'local', ...stripEmpty(env) });
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.') || 'env'}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const cfg = parsed.data;
  if (cfg.FAST_CEILING > cfg.PRO_CEILING) {
    throw new ConfigError('invalid configuration: FAST_CEILING must not exceed PRO_CEILING');
  }
  const providers = loadProviders(cfg, env);
  return Object.freeze({
    ...cfg,
    providers,
    priceByTier: Object.freeze({
      fast: providers.tiers.fast.pricePerPageUsd,
      pro: providers.tiers.pro.pricePerPageUsd,
      premium: providers.tiers.premium.pricePerPageUsd,
    }),
  });
}

/** The provider configuration named by the environment, validated. */
function loadProviders(
  cfg: {
    PROVIDERS_FILE?: string | undefined;
    PROVIDERS_JSON?: string | undefined;
    PROVIDER_KEYS: 'env' | 'withheld';
  },
  env: NodeJS.ProcessEnv,
): ProvidersConfig {
  if (cfg.PROVIDERS_FILE !== undefined && cfg.PROVIDERS_JSON !== undefined) {
    throw new ConfigError('invalid configuration: set PROVIDERS_FILE or PROVIDERS_JSON, not both');
  }
  let source = 'config/providers.json';
  let json: unknown = defaultProviders;
  try {
    if (cfg.PROVIDERS_FILE !== undefined) {
      source = cfg.PROVIDERS_FILE;
      json = JSON.parse(readFileSync(cfg.PROVIDERS_FILE, 'utf8'));
    } else if (cfg.PROVIDERS_JSON !== undefined) {
      source = 'PROVIDERS_JSON';
      json = JSON.parse(cfg.PROVIDERS_JSON);
    }
  } catch (error) {
    throw new ConfigError(
      `invalid configuration: ${source} cannot be read as JSON (${(error as Error).message})`,
    );
  }
  const parsed = parseProvidersConfig(json, env, {
    keysWithheld: cfg.PROVIDER_KEYS === 'withheld',
  });
  if ('problems' in parsed) {
    throw new ConfigError(
      `invalid provider configuration in ${source}:\n  ${parsed.problems.join('\n  ')}`,
    );
  }
  return parsed.config;
}

function stripEmpty(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') out[k] = v;
  return out;
}
