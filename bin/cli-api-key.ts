import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isRecord } from './cli-api.js';
import { DEFAULT_API_URL, type GlobalOptions } from './cli-args.js';

/**
 * Which API key a command sends, and where it came from (named in the message of a 401).
 */

/** Where the API key sent came from. */
export type KeySource = GlobalOptions['apiKeySource'] | 'demo-key-file';

/**
 * The API key to send: `--api-key`, else `DOCPARSE_API_KEY`, else, when the API URL is a local
 * server's, the demo key that `npm start` keeps in `.data/demo-api-key` (or
 * `$DATA_DIR/demo-api-key`) under `cwd`, if it belongs to that server: the server records its
 * address beside the key while it runs (`demo-server.json`), and the key is used when that port
 * is the URL's. Without the record (a server of an older version), the key goes with the default
 * URL only (`http://127.0.0.1:8080`).
 */
export async function resolveApiKey(
  global: GlobalOptions,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<{ apiKey: string | undefined; source: KeySource }> {
  if (global.apiKey !== undefined) return { apiKey: global.apiKey, source: global.apiKeySource };
  const none = { apiKey: undefined, source: undefined };
  const port = localApiPort(global.apiUrl);
  if (port === undefined) return none;
  const dataDir = resolve(cwd, env.DATA_DIR?.trim() || '.data');
  const served = await demoServerPort(dataDir);
  if (served === undefined ? !isDefaultApiUrl(global.apiUrl) : served !== port) return none;
  try {
    const key = (await readFile(join(dataDir, 'demo-api-key'), 'utf8')).trim();
    return key === '' ? none : { apiKey: key, source: 'demo-key-file' };
  } catch {
    return none;
  }
}

/**
 * The port of a local server's base URL (`http://127.0.0.1:PORT`, `localhost` or `[::1]`, no
 * path), or undefined for any other URL.
 */
export function localApiPort(url: string): number | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:') return undefined;
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname)) return undefined;
    if (parsed.pathname.replace(/\/+$/, '') !== '') return undefined;
    return parsed.port === '' ? 80 : Number(parsed.port);
  } catch {
    return undefined;
  }
}

/**
 * The port that the local server using the demo key of `dataDir` records in
 * `demo-server.json` (see `demoServerFile` in functions/adapters/local/api-key-bootstrap.ts),
 * or undefined when there is no such record.
 */
async function demoServerPort(dataDir: string): Promise<number | undefined> {
  try {
    const record: unknown = JSON.parse(await readFile(join(dataDir, 'demo-server.json'), 'utf8'));
    return isRecord(record) && typeof record.port === 'number' ? record.port : undefined;
  } catch {
    return undefined;
  }
}

/** True for the local server's default address (`http://127.0.0.1:8080`, or `localhost`). */
export function isDefaultApiUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    const normal = new URL(DEFAULT_API_URL);
    return (
      parsed.protocol === normal.protocol &&
      parsed.port === normal.port &&
      ['127.0.0.1', 'localhost'].includes(parsed.hostname) &&
      parsed.pathname.replace(/\/+$/, '') === ''
    );
  } catch {
    return false;
  }
}
