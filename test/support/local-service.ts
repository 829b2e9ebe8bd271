import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startLocalServer,
  type LocalServer,
  type LocalServerOptions,
} from '../../functions/local-server.js';
import { loadConfig } from '../../functions/config.js';

/** A local server on a fresh data directory, for integration tests. */
export interface TestService {
  server: LocalServer;
  /** The server's base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  dataDir: string;
  /** Stops the server and deletes its data directory (unless it was given, see `dataDir`). */
  close(): Promise<void>;
}

/** Options of {@link startTestService}: `startLocalServer`'s, and where the data lives. */
export interface TestServiceOptions extends LocalServerOptions {
  /** An existing data directory (a restart), kept on close; default a new temporary one. */
  dataDir?: string;
}

/**
 * Starts the local service (real engines, embedded DynamoDB) on a new temporary data directory
 * named after `name`, on a free port, with `env` added to the configuration (API_KEYS,
 * PLAN_LIMITS, ...). `options` go to `startLocalServer` (`staticAssets`: files to serve), but
 * `dataDir`, which starts it on an existing data directory instead.
 */
export async function startTestService(
  name: string,
  env: Readonly<Record<string, string>>,
  options: TestServiceOptions = {},
): Promise<TestService> {
  const { dataDir: given, ...serverOptions } = options;
  const dataDir = given ?? mkdtempSync(join(tmpdir(), `docparse-${name}-`));
  const config = loadConfig({ RUNTIME_MODE: 'local', DATA_DIR: dataDir, PORT: '0', ...env });
  if (config.RUNTIME_MODE !== 'local') throw new Error('local config expected');
  const server = await startLocalServer(config, serverOptions);
  return {
    server,
    url: server.url,
    dataDir,
    close: async () => {
      await server.close();
      if (given === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
