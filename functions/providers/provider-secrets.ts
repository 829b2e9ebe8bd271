import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { ConfigError } from '../config.js';
import {
  keySecretOf,
  usedProviderIds,
  type ConfiguredProvider,
  type ProvidersConfig,
} from './provider-config.js';

/** The field of a JSON secret that holds the key when `api_key_secret_field` is unset. */
export const DEFAULT_SECRET_FIELD = 'api_key';

/** The Region of a secret ARN (`arn:<partition>:secretsmanager:<region>:<account>:secret:…`). */
const ARN_REGION = /^arn:[^:]+:secretsmanager:([^:]+):/;

/** What reading one secret gave: its SecretString (absent for a binary secret), or why not. */
type SecretRead =
  | { readonly ok: true; readonly text: string | undefined }
  | { readonly ok: false; readonly reason: string; readonly cause: unknown };

/**
 * The configuration with the `apiKey` of every provider that names an `api_key_secret` read
 * from Secrets Manager; the others are returned unchanged. Only providers some tier uses are
 * resolved (no other is ever built). Each secret is read once, even when several providers name
 * it, and all of them in parallel, with `GetSecretValue` through `client`, whose Region is the
 * function's; a secret ARN of another Region is read through a client of that Region, as
 * Secrets Manager answers only for the secrets of the Region called.
 *
 * A secret's SecretString is the key itself, or a JSON object (text starting with `{`, or any
 * secret when `api_key_secret_field` is set) holding it in the field `api_key_secret_field`
 * (default {@link DEFAULT_SECRET_FIELD}). Surrounding whitespace is dropped.
 * @throws {ConfigError} listing every provider whose key cannot be read (a secret that does not
 *   exist or may not be read, an empty value, text that is not JSON, JSON without the field),
 *   each naming the provider and the secret, never the value.
 */
export async function resolveProviderSecrets(
  config: ProvidersConfig,
  client: SecretsManagerClient,
): Promise<ProvidersConfig> {
  const wanted = usedProviderIds(config).flatMap((id) => {
    const entry = Object.hasOwn(config.providers, id) ? config.providers[id] : undefined;
    const secret = entry === undefined ? undefined : keySecretOf(entry);
    return entry !== undefined && secret !== undefined ? [{ entry, ...secret }] : [];
  });
  if (wanted.length === 0) return config;

  const home = await client.config.region().catch(() => undefined);
  const others = new Map<string, SecretsManagerClient>();
  const clientFor = (region: string | undefined): SecretsManagerClient => {
    if (region === undefined || region === home) return client;
    let regional = others.get(region);
    if (!regional) {
      regional = new SecretsManagerClient({ region, credentials: client.config.credentials });
      others.set(region, regional);
    }
    return regional;
  };
  try {
    const secretIds = [...new Set(wanted.map((w) => w.secretId))];
    const reads = await Promise.all(
      secretIds.map((secretId) => {
        const region = ARN_REGION.exec(secretId)?.[1];
        return readSecret(clientFor(region), secretId, region ?? home);
      }),
    );
    const readOf = new Map(secretIds.map((secretId, i) => [secretId, reads[i]]));

    const providers: Record<string, ConfiguredProvider> = { ...config.providers };
    const problems: string[] = [];
    // One per secret: providers sharing a secret share its failure.
    const causes = new Set<unknown>();
    for (const { entry, secretId, field } of wanted) {
      const read = readOf.get(secretId);
      const key = read?.ok ? keyFrom(read.text, field) : undefined;
      if (key !== undefined && 'key' in key) {
        providers[entry.id] = { ...entry, apiKey: key.key };
        continue;
      }
      const reason = read?.ok === false ? read.reason : (key?.problem ?? 'cannot be read');
      problems.push(`providers.${entry.id}.api_key_secret: the secret ${secretId} ${reason}`);
      if (read?.ok === false) causes.add(read.cause);
    }
    if (problems.length > 0) {
      throw new ConfigError(
        `invalid provider configuration: API keys cannot be read from Secrets Manager:\n  ${problems.join('\n  ')}`,
        causes.size === 0
          ? undefined
          : { cause: causes.size === 1 ? [...causes][0] : new AggregateError([...causes]) },
      );
    }
    return { ...config, providers };
  } finally {
    for (const regional of others.values()) regional.destroy();
  }
}

/**
 * `resolveProviderSecrets` on the first call, its result for every later one. A failed attempt
 * is forgotten, so the next call tries again: a throttled or briefly unreachable Secrets
 * Manager does not fail the process for good.
 * @param newClient the client of an attempt (destroyed after it); default: the Region and
 *   credentials of the environment.
 * @example
 * const keys = providerSecretsOnce(config.providers);
 * const registry = buildProviderRegistry(config.providers, runtime, keys);
 */
export function providerSecretsOnce(
  config: ProvidersConfig,
  newClient: () => SecretsManagerClient = () => new SecretsManagerClient({}),
): () => Promise<ProvidersConfig> {
  let resolving: Promise<ProvidersConfig> | undefined;
  const attempt = async (): Promise<ProvidersConfig> => {
    const client = newClient();
    try {
      return await resolveProviderSecrets(config, client);
    } finally {
      client.destroy();
    }
  };
  return () =>
    (resolving ??= attempt().catch((error: unknown) => {
      resolving = undefined;
      throw error;
    }));
}

/** One `GetSecretValue`, its failure described for a message (never rejects). */
async function readSecret(
  client: SecretsManagerClient,
  secretId: string,
  region: string | undefined,
): Promise<SecretRead> {
  try {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    return { ok: true, text: SecretString };
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    if (error instanceof ResourceNotFoundException || name === 'ResourceNotFoundException') {
      return {
        ok: false,
        reason: `does not exist${region === undefined ? '' : ` in ${region}`}: create it, or name an existing secret (its ARN for another Region)`,
        cause: error,
      };
    }
    const detail = error instanceof Error ? `${name}: ${error.message}` : String(error);
    const hint =
      name === 'AccessDeniedException'
        ? ': the function needs secretsmanager:GetSecretValue on it, and kms:Decrypt on its key when a customer managed KMS key encrypts it'
        : region === undefined
          ? ': reading Secrets Manager needs an AWS Region and credentials (AWS_REGION, AWS_PROFILE); to run locally, give the provider api_key_env, the variable holding its key, instead of api_key_secret'
          : '';
    return { ok: false, reason: `cannot be read (${detail})${hint}`, cause: error };
  }
}

/**
 * The key in a SecretString, or what is wrong with it. Problems never quote the text: JSON
 * parse errors do, so they are not kept as causes either.
 */
function keyFrom(
  text: string | undefined,
  field: string | undefined,
): { key: string } | { problem: string } {
  if (text === undefined) {
    return { problem: 'has no SecretString (a binary secret): store the key as text' };
  }
  const trimmed = text.trim();
  if (field === undefined && !trimmed.startsWith('{')) {
    return trimmed === '' ? { problem: 'is empty' } : { key: trimmed };
  }
  const name = field ?? DEFAULT_SECRET_FIELD;
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    return {
      problem: `is not valid JSON (it must be the key, or a JSON object holding it in "${name}")`,
    };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { problem: `is not a JSON object (api_key_secret_field "${name}" needs one)` };
  }
  const value: unknown = Object.hasOwn(json, name)
    ? (json as Record<string, unknown>)[name]
    : undefined;
  if (typeof value !== 'string') {
    return {
      problem: `has no text field "${name}"${field === undefined ? ' (name the field holding the key with api_key_secret_field)' : ''}`,
    };
  }
  return value.trim() === '' ? { problem: `has an empty field "${name}"` } : { key: value.trim() };
}
