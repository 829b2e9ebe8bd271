import '../functions/polyfills.js';
import { loadConfig } from '../functions/config.js';
import { startLocalServer } from '../functions/adapters/local/server.js';

/** `npm start`: the whole service in one process on the embedded default (no cloud, no network). */
const config = loadConfig({ ...process.env, RUNTIME_MODE: 'local' });
if (config.RUNTIME_MODE !== 'local') throw new Error('unreachable');
const server = await startLocalServer(config);
console.log(`docparse ${process.env.npm_package_version ?? ''} listening on ${server.url}`);
console.log(`data directory: ${config.DATA_DIR}`);
if (server.demoKey) {
  console.log(`demo API key (kept in ${config.DATA_DIR}/demo-api-key): ${server.demoKey}`);
  console.log(
    `try: curl -s -H "X-API-Key: ${server.demoKey}" -F file=@document.pdf ${server.url}/v1/parse/upload`,
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
