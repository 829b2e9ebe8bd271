import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { IConstruct } from 'constructs';
import { parseProvidersConfig, ProvidersFile } from '../functions/providers/provider-config.js';

/** The CDK context keys of a deployment (`-c key=value`, or `context` in `cdk.json`). */
export const CONTEXT_KEYS = {
  /** A JSON object of service variables (those of `functions/config.ts`) for every function. */
  environment: 'docparse:env',
  /** Path of a provider configuration file, like `config/providers.example.json`. */
  providers: 'docparse:providers',
} as const;

/** What a deployment's context says about the service's configuration. */
export interface DeployContext {
  /** The variables of `docparse:env`; absent when the key is not set. */
  readonly serviceEnvironment?: Record<string, string>;
  /** The path in `docparse:providers`; absent when the key is not set. */
  readonly providersFile?: string;
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
  };
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
  return { source, config, json: JSON.stringify(minified) };
}
