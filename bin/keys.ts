import { existsSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDbApiKeyStore } from '../functions/adapters/aws/dynamodb-api-key-store.js';
import { createDocumentClient } from '../functions/adapters/aws/dynamodb-items.js';
import { serviceTable } from '../functions/adapters/aws/service-table.js';
import { lockDataDir } from '../functions/adapters/local/data-dir-lock.js';
import {
  LOCAL_TABLE_NAME,
  startEmbeddedDynamo,
} from '../functions/adapters/local/embedded-dynamo.js';
import { ConfigError } from '../functions/config.js';
import {
  createApiKey,
  isApiKeyId,
  revokeApiKey,
  rotateApiKey,
} from '../functions/core/app/api-keys.js';
import { AppError, BadRequestError, NotFoundError } from '../functions/core/domain/errors.js';
import type { Plan } from '../functions/core/domain/request.js';
import { isTenantId } from '../functions/core/domain/tenant.js';
import type { ApiKeyRecord, ApiKeyStore } from '../functions/core/ports/api-key-store.js';

/**
 * `npm run keys -- create|list|rotate|revoke`: manages API keys, by default those of the local
 * server's data directory (the embedded DynamoDB under `--data-dir`, which the server must not
 * be holding), with `--table` those of a deployed service. Keys are printed only when issued;
 * everything else names them by id (`key_` and 12 hex characters of the key's SHA-256).
 *
 * Exit codes: 0 done, 1 the operation failed (an unknown key id, a data directory in use, an
 * AWS error), 2 a usage error (the usage is printed).
 */

export const USAGE = `usage: npm run keys -- <command> [options]

commands:
  create --tenant <tenant> [--plan free|pro|scale] [--label <text>]
      issues a key (plan free by default) and prints it, once, with its id
  list [--tenant <tenant>]
      lists the keys (all, or one tenant's): id, tenant, plan, created, revoked, label
  rotate <keyId>
      issues a new key for the same tenant, plan and label; the old key keeps working until
      it is revoked, so its users can switch over first
  revoke <keyId>
      makes the key fail authentication (401) from now on
  --json prints JSON instead (any command)

where the keys are (default: the local server's):
  --data-dir <dir>      the local data directory (default: $DATA_DIR, else .data); the local
                        server must be stopped
  --table <TableName>   a deployed service's table (stack output TableName), with the usual
                        AWS credentials (AWS_PROFILE, AWS_REGION)
    --endpoint <url>    another DynamoDB endpoint, e.g. DynamoDB Local
    --region <region>   the table's region

exit codes: 0 done, 1 the operation failed, 2 usage error`;

/** Where the CLI prints, and what it reads from its environment. */
export interface KeysIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  now: () => Date;
}

const PLANS: readonly Plan[] = ['free', 'pro', 'scale'];

const OPTIONS = {
  tenant: { type: 'string' },
  plan: { type: 'string' },
  label: { type: 'string' },
  json: { type: 'boolean' },
  'data-dir': { type: 'string' },
  table: { type: 'string' },
  endpoint: { type: 'string' },
  region: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type OptionName = keyof typeof OPTIONS;
type Values = Partial<Record<OptionName, string | boolean>>;

/** The options each command takes, besides those choosing the store and `--json`. */
const COMMAND_OPTIONS = {
  create: ['tenant', 'plan', 'label'],
  list: ['tenant'],
  rotate: [],
  revoke: [],
} as const satisfies Record<string, readonly OptionName[]>;

type Command = keyof typeof COMMAND_OPTIONS;

const COMMON_OPTIONS: readonly OptionName[] = [
  'json',
  'data-dir',
  'table',
  'endpoint',
  'region',
  'help',
];

/** A command line that cannot run as written: exit code 2, with the usage. */
class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** `--help` or `-h` anywhere on the command line: the usage, and exit code 0. */
class HelpRequested extends Error {}

/** A failure the message explains fully: exit code 1, without a stack. */
class KeysError extends Error {
  override readonly name = 'KeysError';
}

/** The keys' store and how to let go of it. */
interface Store {
  keys: ApiKeyStore;
  close(): Promise<void>;
}

/**
 * Runs one command line (the arguments after `keys`).
 * @returns the exit code.
 */
export async function runKeys(argv: readonly string[], io: KeysIo): Promise<number> {
  let command: Command;
  let values: Values;
  let keyId: string | undefined;
  try {
    ({ command, values, keyId } = parseCommandLine(argv));
  } catch (error) {
    if (error instanceof HelpRequested) {
      io.out(USAGE);
      return 0;
    }
    if (!(error instanceof UsageError)) throw error;
    io.err(`keys: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  try {
    const store = await openStore(command, values, io.env);
    try {
      await run(command, values, keyId, store?.keys, io);
    } finally {
      await store?.close();
    }
    return 0;
  } catch (error) {
    if (error instanceof BadRequestError) {
      io.err(`keys: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    io.err(`keys: ${describe(error)}`);
    return 1;
  }
}

/** The message of a failure the CLI expects, the name and message of any other. */
function describe(error: unknown): string {
  if (error instanceof KeysError || error instanceof AppError) return error.message;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function parseCommandLine(argv: readonly string[]): {
  command: Command;
  values: Values;
  keyId: string | undefined;
} {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help === true) throw new HelpRequested();
  const [name, ...operands] = positionals;
  if (name === undefined) throw new UsageError('name a command');
  if (!Object.hasOwn(COMMAND_OPTIONS, name)) throw new UsageError(`unknown command "${name}"`);
  const command = name as Command;
  const allowed: readonly OptionName[] = [...COMMAND_OPTIONS[command], ...COMMON_OPTIONS];
  for (const option of Object.keys(values) as OptionName[]) {
    if (!allowed.includes(option)) throw new UsageError(`${command} takes no --${option}`);
  }
  if (values.table !== undefined && values['data-dir'] !== undefined) {
    throw new UsageError('give --table or --data-dir, not both');
  }
  if (values.table === undefined && (values.endpoint ?? values.region) !== undefined) {
    throw new UsageError('--endpoint and --region go with --table');
  }

  let keyId: string | undefined;
  if (command === 'rotate' || command === 'revoke') {
    if (operands.length !== 1) throw new UsageError(`${command} takes one key id`);
    keyId = operands[0] ?? '';
    if (!isApiKeyId(keyId)) {
      throw new UsageError(`"${keyId}" is not a key id (key_ and 12 hex characters, see list)`);
    }
  } else if (operands.length > 0) {
    throw new UsageError(`${command} takes no arguments (got "${operands.join(' ')}")`);
  }

  const tenant = values.tenant;
  if (command === 'create' && tenant === undefined) throw new UsageError('create needs --tenant');
  if (typeof tenant === 'string' && !isTenantId(tenant)) {
    throw new UsageError(`--tenant must be letters, digits, "_", "." or "-" (got "${tenant}")`);
  }
  if (values.plan !== undefined && !PLANS.includes(values.plan as Plan)) {
    throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
  }
  return { command, values, keyId };
}

/**
 * The store the options name, or undefined when the local data directory has no store yet
 * (nothing to list, rotate or revoke; only create makes one).
 * @throws {KeysError} when the local server holds the data directory.
 */
async function openStore(
  command: Command,
  values: Values,
  env: KeysIo['env'],
): Promise<Store | undefined> {
  if (typeof values.table === 'string') {
    const client = new DynamoDBClient({
      ...(typeof values.endpoint === 'string' ? { endpoint: values.endpoint } : {}),
      ...(typeof values.region === 'string' ? { region: values.region } : {}),
    });
    return {
      keys: new DynamoDbApiKeyStore(createDocumentClient(client), values.table),
      close: () => {
        client.destroy();
        return Promise.resolve();
      },
    };
  }
  const dataDir = resolve(stringOption(values['data-dir']) ?? (env.DATA_DIR || '.data'));
  const path = join(dataDir, 'dynamodb');
  if (command !== 'create' && !existsSync(path)) return undefined;
  let unlock: () => Promise<void>;
  try {
    unlock = await lockDataDir(dataDir);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new KeysError(
      `the local server is running on this data directory; stop it first, or name another ` +
        `directory with --data-dir (${dataDir} is locked)`,
      { cause: error },
    );
  }
  try {
    const dynamo = await startEmbeddedDynamo({ path, port: 0 });
    try {
      await dynamo.ensureTable(serviceTable(LOCAL_TABLE_NAME));
    } catch (error) {
      await dynamo.stop();
      throw error;
    }
    return {
      keys: new DynamoDbApiKeyStore(dynamo.documentClient, LOCAL_TABLE_NAME),
      close: async () => {
        await dynamo.stop();
        await unlock();
      },
    };
  } catch (error) {
    await unlock();
    throw error;
  }
}

async function run(
  command: Command,
  values: Values,
  keyId: string | undefined,
  keys: ApiKeyStore | undefined,
  io: KeysIo,
): Promise<void> {
  const json = values.json === true;
  const now = io.now();
  switch (command) {
    case 'create': {
      if (!keys) throw new Error('unreachable: create opens the store');
      const { key, record } = await createApiKey(
        keys,
        {
          tenant: stringOption(values.tenant) ?? '',
          plan: (stringOption(values.plan) ?? 'free') as Plan,
          ...(typeof values.label === 'string' ? { label: values.label } : {}),
        },
        now,
      );
      printIssued(io, json, key, record);
      return;
    }
    case 'list': {
      const tenant = stringOption(values.tenant);
      const records = keys ? await keys.list(tenant) : [];
      if (json) io.out(JSON.stringify(records.map(view), null, 2));
      else if (records.length === 0)
        io.out(tenant ? `no API keys for tenant ${tenant}` : 'no API keys');
      else io.out(table(records));
      return;
    }
    case 'rotate': {
      const id = keyId ?? '';
      if (!keys) throw unknownKey(id);
      const { key, record, previous } = await rotateApiKey(keys, id, now);
      printIssued(io, json, key, record);
      if (!json && previous.revokedAt === undefined) {
        io.err(`${id} keeps working until it is revoked: npm run keys -- revoke ${id}`);
      }
      return;
    }
    case 'revoke': {
      const id = keyId ?? '';
      if (!keys) throw unknownKey(id);
      const before = await keys.getById(id);
      // Revoking again still runs: it completes a revocation that was interrupted.
      const record = await revokeApiKey(keys, id, now);
      if (json) io.out(JSON.stringify(view(record), null, 2));
      else if (before?.revokedAt === undefined) io.out(`revoked ${id} (tenant ${record.tenant})`);
      else io.out(`${id} was revoked already, at ${before.revokedAt}`);
      return;
    }
  }
}

function printIssued(io: KeysIo, json: boolean, key: string, record: ApiKeyRecord): void {
  if (json) {
    io.out(JSON.stringify({ ...view(record), key }, null, 2));
    return;
  }
  const lines = [
    `id:      ${record.keyId}`,
    `tenant:  ${record.tenant}`,
    `plan:    ${record.plan}`,
    ...(record.label === undefined ? [] : [`label:   ${record.label}`]),
    ...(record.rotatedFrom === undefined ? [] : [`replaces: ${record.rotatedFrom}`]),
    `key:     ${key}`,
  ];
  io.out(lines.join('\n'));
  io.err('The key is shown this once only (only its hash is stored): keep it now.');
}

/** What the CLI shows of a key: never the hash, which only the service needs. */
function view(record: ApiKeyRecord) {
  return {
    id: record.keyId,
    tenant: record.tenant,
    plan: record.plan,
    createdAt: record.createdAt,
    revokedAt: record.revokedAt ?? null,
    label: record.label ?? null,
    rotatedFrom: record.rotatedFrom ?? null,
  };
}

function table(records: readonly ApiKeyRecord[]): string {
  const rows = [
    ['ID', 'TENANT', 'PLAN', 'CREATED', 'REVOKED', 'LABEL'],
    ...records.map((r) => [
      r.keyId,
      r.tenant,
      r.plan,
      r.createdAt,
      r.revokedAt ?? '-',
      r.label ?? '',
    ]),
  ];
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function unknownKey(keyId: string): NotFoundError {
  return new NotFoundError(`no API key has the id ${keyId}`);
}

function stringOption(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** True when this module is the script Node was started with (not imported by a test). */
function isMain(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  process.exitCode = await runKeys(process.argv.slice(2), {
    out: (text) => {
      process.stdout.write(`${text}\n`);
    },
    err: (text) => {
      process.stderr.write(`${text}\n`);
    },
    env: process.env,
    now: () => new Date(),
  });
}
