/**
 * The local service as the benches start it: a data directory of their own, one API key on the
 * scale plan with its request and page limits lifted, quiet logs.
 */
import { startLocalServer, type LocalServer } from '../functions/local-server.js';
import { loadConfig } from '../functions/config.js';

/** Lifts the limits of the plan the bench keys are on, so that load is never throttled. */
export const UNLIMITED_PLAN_LIMITS = JSON.stringify({
  scale: { requests_per_minute: null, pages_per_day: null },
});

export interface BenchServerOptions {
  /** Where the server keeps its records and objects (created when missing). */
  dataDir: string;
  /** The one API key the server accepts (at least 8 characters). */
  apiKey: string;
  /** Further settings, e.g. `PDF_TEXT_READER` or `BATCH_CONCURRENCY`. */
  env?: Readonly<Record<string, string>>;
}

/** Starts the local server on a free port of 127.0.0.1. */
export async function startBenchServer(options: BenchServerOptions): Promise<LocalServer> {
  const config = loadConfig({
    RUNTIME_MODE: 'local',
    DATA_DIR: options.dataDir,
    PORT: '0',
    API_KEYS: `${options.apiKey}=bench:scale`,
    PLAN_LIMITS: UNLIMITED_PLAN_LIMITS,
    LOG_LEVEL: 'ERROR',
    // Benches measure parses: documents parsed again must not be answered from the result cache.
    RESULT_CACHE: 'off',
    ...options.env,
  });
  if (config.RUNTIME_MODE !== 'local') throw new Error('local mode expected');
  return startLocalServer(config);
}

/** The status and JSON body of one parse. */
export interface UploadResult {
  status: number;
  body: Record<string, unknown> & { pages?: unknown[] };
}

/** POST /v1/parse/upload of `bytes` as `filename`, waiting for the ParseResponse. */
export async function uploadBytes(
  url: string,
  apiKey: string,
  bytes: Uint8Array,
  filename: string,
): Promise<UploadResult> {
  const form = new FormData();
  form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), filename);
  const res = await fetch(`${url}/v1/parse/upload`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey },
    body: form,
  });
  return {
    status: res.status,
    body: (await res.json()) as UploadResult['body'],
  };
}
