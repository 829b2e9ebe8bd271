import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { IConstruct } from 'constructs';
import { DEFAULT_RETENTION_DAYS } from '../functions/adapters/aws/dynamodb-items.js';
import { parseProvidersConfig, ProvidersFile } from '../functions/providers/provider-config.js';

/** The CDK context keys of a deployment (`-c key=value`, or `context` in `cdk.json`). */
export const CONTEXT_KEYS = {
  /** A JSON object of service variables (those of `functions/config.ts`) for every function. */
  environment: 'docparse:env',
  /** Path of a provider configuration file, like `config/providers.example.json`. */
  providers: 'docparse:providers',
  /**
   * Days documents, results and their records are kept: the bucket's lifecycle rules and the
   * functions' `RETENTION_DAYS` (the table's TTL), see {@link retentionFrom}.
   */
  retentionDays: 'docparse:retentionDays',
  /** Steady requests per second of the API stage, all routes together. */
  apiRateLimit: 'docparse:apiRateLimit',
  /** Burst of the API stage (requests at once above the steady rate). */
  apiBurstLimit: 'docparse:apiBurstLimit',
  /** Steady requests per second of each route that parses (`isParseRoute`, lib/constructs/parse-api.ts). */
  parseRateLimit: 'docparse:parseRateLimit',
  /** Burst of each route that parses. */
  parseBurstLimit: 'docparse:parseBurstLimit',
  /** Reserved concurrency of the ParsePage function, or `none`. */
  parsePageConcurrency: 'docparse:parsePageConcurrency',
  /** Reserved concurrency of each streaming API function, or `none`. */
  streamingConcurrency: 'docparse:streamingConcurrency',
  /** `true`: a WAFv2 web ACL with a per-address rate rule on the stage (and the distribution). */
  waf: 'docparse:waf',
  /** The WAF rule's limit: requests per client address in any 5 minutes. */
  wafRateLimit: 'docparse:wafRateLimit',
  /** An address the alarm topic mails (subscribed at deployment; confirm the mail). */
  alarmEmail: 'docparse:alarmEmail',
  /** `true`: the stack sets API Gateway's account-wide CloudWatch Logs role (and keeps it). */
  apiGatewayCloudWatchRole: 'docparse:apiGatewayCloudWatchRole',
} as const;

/**
 * The cost guards and operations settings of a deployment, each from one context key of
 * {@link CONTEXT_KEYS}; {@link DEFAULT_GUARDS} holds the defaults.
 */
export interface DeployGuards {
  /** Stage-wide steady requests per second (API Gateway throttling, before any Lambda runs). */
  readonly apiRateLimit: number;
  /** Stage-wide burst. */
  readonly apiBurstLimit: number;
  /** Steady requests per second of each route that parses (uploads, URLs, batches, compare…). */
  readonly parseRateLimit: number;
  /** Burst of each route that parses. */
  readonly parseBurstLimit: number;
  /**
   * Reserved concurrency of ParsePage: pages parsed at once, account-wide, are capped there, and
   * that many are kept for it whatever else runs. `undefined`: no reservation.
   */
  readonly parsePageConcurrency: number | undefined;
  /**
   * Reserved concurrency of each streaming API function (the synchronous parses, SSE, compare,
   * structured, resume), which may each hold a Lambda for up to 15 minutes. `undefined`: none.
   */
  readonly streamingConcurrency: number | undefined;
  /** A WAFv2 rate-based rule in front of the API. */
  readonly waf: boolean;
  /** Requests per client address in any 5 minutes before WAF blocks it (at least 10). */
  readonly wafRateLimit: number;
  /** Mailed by the alarm topic; `undefined`: the topic has no subscriber until one is added. */
  readonly alarmEmail: string | undefined;
  /** The stack sets the account's API Gateway CloudWatch Logs role (an account-wide setting). */
  readonly apiGatewayCloudWatchRole: boolean;
}

/**
 * The defaults of {@link DeployGuards}: sized for a team's deployment, each liftable by its
 * context key. Reserved concurrency takes 50 + 6 × 10 = 110 from the account's pool (Lambda keeps
 * 100 unreserved, so the account needs a concurrency quota of at least 210, the default being
 * 1,000); set `none` where the quota is lower.
 */
export const DEFAULT_GUARDS: DeployGuards = Object.freeze({
  apiRateLimit: 50,
  apiBurstLimit: 100,
  parseRateLimit: 10,
  parseBurstLimit: 20,
  parsePageConcurrency: 50,
  streamingConcurrency: 10,
  waf: false,
  wafRateLimit: 1000,
  alarmEmail: undefined,
  apiGatewayCloudWatchRole: false,
});

/** What a deployment's context says about the service's configuration. */
export interface DeployContext {
  /** The variables of `docparse:env`; absent when the key is not set. */
  readonly serviceEnvironment?: Record<string, string>;
  /** The path in `docparse:providers`; absent when the key is not set. */
  readonly providersFile?: string;
  /** Days documents, results and records are kept (`docparse:retentionDays`, default 7). */
  readonly retentionDays: number;
  /** The guards and operations settings, defaults applied. */
  readonly guards: DeployGuards;
}

/**
 * Reads the deployment's context keys ({@link CONTEXT_KEYS}) from the app.
 *
 * `docparse:env` is a JSON object whose values are strings (numbers and booleans are taken as
 * their text), given on the command line as a JSON string or in `cdk.json` as an object.
 * @throws {Error} naming the key when a value has the wrong shape.
 * @example
 * new DocparseStack(app, 'Docparse', { ...deployContext(app) });
 */
export function deployContext(scope: IConstruct): DeployContext {
  const env: unknown = scope.node.tryGetContext(CONTEXT_KEYS.environment);
  const providers: unknown = scope.node.tryGetContext(CONTEXT_KEYS.providers);
  if (providers !== undefined && (typeof providers !== 'string' || providers.trim() === '')) {
    throw new Error(
      `context ${CONTEXT_KEYS.providers} must be the path of a provider configuration file, e.g. -c ${CONTEXT_KEYS.providers}=config/my-providers.json`,
    );
  }
  return {
    ...(env === undefined ? {} : { serviceEnvironment: environmentFrom(env) }),
    ...(providers === undefined ? {} : { providersFile: providers.trim() }),
    retentionDays: retentionFrom(scope),
    guards: guardsFrom(scope),
  };
}

/**
 * The {@link DeployGuards} of the context, each key checked. Values given with `-c` arrive as
 * text (`-c docparse:waf=true`), those of `cdk.json` as JSON numbers and booleans: both are read.
 * @throws {Error} naming the key and its expected form when a value does not fit.
 */
export function guardsFrom(scope: IConstruct): DeployGuards {
  const get = (key: string): unknown => scope.node.tryGetContext(key);
  const d = DEFAULT_GUARDS;
  const guards: DeployGuards = {
    apiRateLimit: count(CONTEXT_KEYS.apiRateLimit, get(CONTEXT_KEYS.apiRateLimit), d.apiRateLimit),
    apiBurstLimit: count(
      CONTEXT_KEYS.apiBurstLimit,
      get(CONTEXT_KEYS.apiBurstLimit),
      d.apiBurstLimit,
    ),
    parseRateLimit: count(
      CONTEXT_KEYS.parseRateLimit,
      get(CONTEXT_KEYS.parseRateLimit),
      d.parseRateLimit,
    ),
    parseBurstLimit: count(
      CONTEXT_KEYS.parseBurstLimit,
      get(CONTEXT_KEYS.parseBurstLimit),
      d.parseBurstLimit,
    ),
    parsePageConcurrency: reservation(
      CONTEXT_KEYS.parsePageConcurrency,
      get(CONTEXT_KEYS.parsePageConcurrency),
      d.parsePageConcurrency,
    ),
    streamingConcurrency: reservation(
      CONTEXT_KEYS.streamingConcurrency,
      get(CONTEXT_KEYS.streamingConcurrency),
      d.streamingConcurrency,
    ),
    waf: flag(CONTEXT_KEYS.waf, get(CONTEXT_KEYS.waf), d.waf),
    wafRateLimit: count(CONTEXT_KEYS.wafRateLimit, get(CONTEXT_KEYS.wafRateLimit), d.wafRateLimit),
    alarmEmail: email(get(CONTEXT_KEYS.alarmEmail)),
    apiGatewayCloudWatchRole: flag(
      CONTEXT_KEYS.apiGatewayCloudWatchRole,
      get(CONTEXT_KEYS.apiGatewayCloudWatchRole),
      d.apiGatewayCloudWatchRole,
    ),
  };
  if (guards.wafRateLimit < 10) {
    throw new Error(
      `context ${CONTEXT_KEYS.wafRateLimit} must be at least 10 (WAF's smallest rate limit); got ${String(guards.wafRateLimit)}`,
    );
  }
  for (const [rate, burst] of [
    ['apiRateLimit', 'apiBurstLimit'],
    ['parseRateLimit', 'parseBurstLimit'],
  ] as const) {
    if (guards[burst] < guards[rate]) {
      throw new Error(
        `context ${CONTEXT_KEYS[burst]} (${String(guards[burst])}) must be at least ${CONTEXT_KEYS[rate]} (${String(guards[rate])})`,
      );
    }
  }
  if (guards.parseRateLimit > guards.apiRateLimit) {
    throw new Error(
      `context ${CONTEXT_KEYS.parseRateLimit} (${String(guards.parseRateLimit)}) must be at most ${CONTEXT_KEYS.apiRateLimit} (${String(guards.apiRateLimit)}): the stage's limit applies to the parse routes too`,
    );
  }
  return guards;
}

/** A positive integer given as a number or its text. */
function count(key: string, raw: unknown, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new Error(
      `context ${key} must be a positive integer, e.g. -c ${key}=${String(fallback)}; got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

/** A reserved concurrency: a positive integer, or `none` (also `false`) for no reservation. */
function reservation(key: string, raw: unknown, fallback: number | undefined): number | undefined {
  if (raw === 'none' || raw === false || raw === 'false') return undefined;
  if (raw === undefined) return fallback;
  try {
    return count(key, raw, fallback ?? 1);
  } catch (error) {
    throw new Error(
      `context ${key} must be a positive integer (a reserved concurrency) or none; got ${JSON.stringify(raw)}`,
      { cause: error },
    );
  }
}

/** `true` or `false`, as a boolean or its text. */
function flag(key: string, raw: unknown, fallback: boolean): boolean {
  if (raw === undefined) return fallback;
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new Error(`context ${key} must be true or false; got ${JSON.stringify(raw)}`);
}

/** The alarm mail address, roughly checked (SNS confirms it by mail). */
function email(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(raw.trim())) {
    throw new Error(
      `context ${CONTEXT_KEYS.alarmEmail} must be a mail address, e.g. -c ${CONTEXT_KEYS.alarmEmail}=ops@example.com; got ${JSON.stringify(raw)}`,
    );
  }
  return raw.trim();
}

/** `docparse:env` as a map of strings. */
function environmentFrom(raw: unknown): Record<string, string> {
  const shape = `context ${CONTEXT_KEYS.environment} must be a JSON object of strings, e.g. -c '${CONTEXT_KEYS.environment}={"MAX_UPLOAD_BYTES":"104857600"}'`;
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new Error(`${shape} (${(error as Error).message})`, { cause: error });
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(shape);
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(value)) {
    if (typeof v === 'string') out[name] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[name] = String(v);
    else throw new Error(`${shape}: the value of ${name} is not a string`);
  }
  return out;
}

/** A provider configuration checked at synth, as the functions will receive it. */
export interface DeployProviders {
  /** Where it came from, for messages: the file, or `docparse:env PROVIDERS_JSON`. */
  readonly source: string;
  /** The validated configuration (defaults applied). */
  readonly config: ProvidersFile;
  /** The configuration as the value of `PROVIDERS_JSON`: minified, without `$comment`. */
  readonly json: string;
  /**
   * The environment variables holding provider API keys (`api_key_env`), by provider id: set
   * only on the functions that call providers, never on the others.
   */
  readonly keyVariables: Readonly<Record<string, string>>;
}

/**
 * The provider configuration a deployment passes to its functions, validated the way the
 * functions will validate it at cold start, against the variables they will have: the file of
 * `docparse:providers` or, without one, `PROVIDERS_JSON` of `docparse:env`. Absent when neither is
 * set (the functions then run with the bundled `config/providers.json`, or with the file named
 * by `PROVIDERS_FILE`, which is not checked here).
 *
 * @param providersFile path of the file, relative to the working directory (the project root
 *   under `cdk`).
 * @param environment the variables of `docparse:env`: every `api_key_env` the configuration
 *   names must be set there, as the functions read those keys from their environment (keys of
 *   `api_key_secret` are read from Secrets Manager at run time and are not checked here).
 * @throws {Error} when the file cannot be read, is not a valid configuration, names a key
 *   variable that `environment` does not set, or when both sources are set.
 */
export function deployProviders(
  providersFile: string | undefined,
  environment: Readonly<Record<string, string>>,
): DeployProviders | undefined {
  const inEnvironment = ['PROVIDERS_JSON', 'PROVIDERS_FILE'].filter((k) => k in environment);
  if (providersFile !== undefined && inEnvironment.length > 0) {
    throw new Error(
      `${CONTEXT_KEYS.providers} and ${inEnvironment.join(' and ')} of ${CONTEXT_KEYS.environment} both configure the providers: keep one`,
    );
  }
  let source: string;
  let text: string;
  if (providersFile !== undefined) {
    source = `${CONTEXT_KEYS.providers} (${providersFile})`;
    try {
      text = readFileSync(resolve(providersFile), 'utf8');
    } catch (error) {
      throw new Error(`${source} cannot be read: ${(error as Error).message}`, { cause: error });
    }
  } else if (environment.PROVIDERS_JSON !== undefined) {
    source = `PROVIDERS_JSON of ${CONTEXT_KEYS.environment}`;
    text = environment.PROVIDERS_JSON;
  } else {
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const checked = parseProvidersConfig(json, environment);
  if ('problems' in checked) {
    const missingKey = checked.problems.some((p) => p.includes('.api_key_env:'));
    throw new Error(
      `${source} is not a valid provider configuration:\n  ${checked.problems.join('\n  ')}${
        missingKey
          ? `\nThe functions read api_key_env keys from their environment: set each named variable in ${CONTEXT_KEYS.environment}, e.g. -c '${CONTEXT_KEYS.environment}={"OPENAI_API_KEY":"…"}', or keep the key in Secrets Manager and name the secret with api_key_secret.`
          : ''
      }`,
    );
  }
  // parseProvidersConfig succeeded, so the file parses; its output has the defaults applied.
  const config = ProvidersFile.parse(json);
  // The comment is for readers of the file; the environment has 4 KB for everything.
  const minified = { ...(json as Record<string, unknown>) };
  delete minified.$comment;
  const keyVariables: Record<string, string> = {};
  for (const [id, entry] of Object.entries(config.providers)) {
    if ('api_key_env' in entry && entry.api_key_env !== undefined) {
      keyVariables[id] = entry.api_key_env;
    }
  }
  return { source, config, json: JSON.stringify(minified), keyVariables };
}

/**
 * The retention of `docparse:retentionDays`: a whole number of days (S3 lifecycle rules count
 * whole days), {@link DEFAULT_RETENTION_DAYS} when unset. It drives, as one setting, the
 * expiry of `uploads/`, `work/`, `results/` and `incoming/` in the bucket and the functions'
 * `RETENTION_DAYS` (the TTL written on request records, page checkpoints, events, batches and
 * result cache entries).
 * @throws {Error} naming the key when the value is not a positive integer.
 */
export function retentionFrom(scope: IConstruct): number {
  const key = CONTEXT_KEYS.retentionDays;
  const raw: unknown = scope.node.tryGetContext(key);
  if (raw === undefined) return DEFAULT_RETENTION_DAYS;
  const value = typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new Error(
      `context ${key} must be a whole number of days (at least 1), e.g. -c ${key}=30; got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}
