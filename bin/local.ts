import { ConfigError, loadConfig } from '../functions/config.js';
import { startLocalServer, type StaticAsset } from '../functions/local-server.js';
import { buildPlayground, PLAYGROUND_CONTENT_SECURITY_POLICY } from '../web/build.js';

/** The playground's files, or none (and a warning) when it does not build: the API runs anyway. */
const playground = async (): Promise<StaticAsset[]> => {
  try {
    return await buildPlayground();
  } catch (error) {
    console.warn(
      `playground not served: ${error instanceof Error ? error.message : String(error)}`,
    );
    return [];
  }
};
/** `npm start`: the whole service in one process on the embedded default (no cloud, no network). */
const start = async () => {
  const config = loadConfig({ ...process.env, RUNTIME_MODE: 'local' });
  if (config.RUNTIME_MODE !== 'local') throw new Error('unreachable');
  const staticAssets = await playground();
  const server = await startLocalServer(config, {
    staticAssets,
    contentSecurityPolicy: PLAYGROUND_CONTENT_SECURITY_POLICY,
  });
  return { config, server, playgroundServed: staticAssets.length > 0 };
};
const { config, server, playgroundServed } = await start().catch((error: unknown) => {
  // Configuration problems (invalid variables, a data directory or port in use) are the user's to
  // fix: one line, no stack trace.
  if (!(error instanceof ConfigError)) throw error;
  console.error(`docparse: ${error.message}`);
  process.exit(1);
});
console.log(`docparse ${process.env.npm_package_version ?? ''} listening on ${server.url}`);
console.log(`data directory: ${config.DATA_DIR}`);
if (playgroundServed) console.log(`playground: ${server.url}/`);
if (server.demoKey) {
  console.log(`demo API key (kept in ${config.DATA_DIR}/demo-api-key): ${server.demoKey}`);
  console.log(
    `try: curl --fail-with-body -sS -H "X-API-Key: ${server.demoKey}" -F file=@examples/invoice.pdf ${server.url}/v1/parse/upload`,
  );
}
let closing = false;
const shutdown = (signal: string) => {
  if (closing) return;
  closing = true;
  console.log(`${signal}: shutting down`);
  void server.close().then(() => process.exit(0));
};
process.on('SIGINT', () => {
  shutdown('SIGINT');
});
process.on('SIGTERM', () => {
  shutdown('SIGTERM');
});
