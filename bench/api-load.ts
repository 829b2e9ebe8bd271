/**
 * API load bench: the local service parses one document in a process of its own (see
 * `api-server.ts`), then autocannon, in this process, loads `GET /v1/parse/{id}` with the bench's
 * API key (scale plan, request limit lifted) for a fixed time over a fixed number of connections.
 */
import { spawn } from 'node:child_process';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { ROOT } from './corpus.js';

/** The line the server process prints once ready, followed by the JSON of {@link ApiServerReady}. */
export const READY_PREFIX = 'READY ';

/** What the server process announces once the document is parsed. */
export interface ApiServerReady {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The id of the parsed document's request. */
  requestId: string;
  /** Pages of the parsed document. */
  pages: number;
}

export interface ApiLoadOptions {
  /** The document parsed first, whose stored response the load reads. */
  file: string;
  /** Length of the measured load, in seconds. */
  durationSeconds: number;
  /** Concurrent connections (each with one request in flight). */
  connections: number;
  /** Unmeasured load before the measured one, in seconds (0 for none). */
  warmUpSeconds: number;
  /** The API key of the server (at least 8 characters). */
  apiKey?: string;
  /** Progress lines (stderr by default). */
  log?: (line: string) => void;
}

/** The figures of one API load run. */
export interface ApiLoadResult {
  /** Method and route template of the loaded endpoint. */
  endpoint: string;
  /** File name of the parsed document. */
  document: string;
  /** Pages of the parsed document. */
  documentPages: number;
  /** Size of one response body, in bytes. */
  responseBytes: number;
  /** Length of the measured load, in seconds. */
  durationSeconds: number;
  connections: number;
  /** Responses received during the measured load. */
  requests: number;
  /** Mean of the per-second request counts, in requests per second. */
  requestsPerSecond: number;
  /** Mean latency, in milliseconds. */
  latencyMeanMs: number;
  /** Median latency, in milliseconds. */
  latencyP50Ms: number;
  /** 99th-percentile latency, in milliseconds. */
  latencyP99Ms: number;
  /** Largest latency, in milliseconds. */
  latencyMaxMs: number;
  /** Responses with a status outside 200–299. */
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
}

/** Starts the server process, parses `options.file`, loads GET /v1/parse/{id} and stops it. */
export async function measureApiLoad(options: ApiLoadOptions): Promise<ApiLoadResult> {
  const apiKey = options.apiKey ?? 'bench-api-key-0001';
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'bench/api-server.ts'),
      '--file',
      options.file,
      '--api-key',
      apiKey,
    ],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const ready = await readReady(child.stdout, exited, () => stderr);
    const target = `${ready.url}/v1/parse/${ready.requestId}`;
    const headers = { 'x-api-key': apiKey };
    const probe = await fetch(target, { headers });
    const responseBytes = (await probe.arrayBuffer()).byteLength;
    if (probe.status !== 200) throw new Error(`GET /v1/parse/{id} answered ${probe.status}`);
    log(
      `api load: ${basename(options.file)} parsed (${ready.pages} pages, response ${responseBytes} bytes); ` +
        `GET /v1/parse/{id}, ${options.connections} connections, ${options.warmUpSeconds} s warm-up + ${options.durationSeconds} s`,
    );
    if (options.warmUpSeconds > 0) {
      await autocannon({
        url: target,
        headers,
        connections: options.connections,
        duration: options.warmUpSeconds,
      });
    }
    const result = await autocannon({
      url: target,
      headers,
      connections: options.connections,
      duration: options.durationSeconds,
    });
    return {
      endpoint: 'GET /v1/parse/{id}',
      document: basename(options.file),
      documentPages: ready.pages,
      responseBytes,
      durationSeconds: result.duration,
      connections: result.connections,
      requests: result.requests.total,
      requestsPerSecond: result.requests.average,
      latencyMeanMs: result.latency.average,
      latencyP50Ms: result.latency.p50,
      latencyP99Ms: result.latency.p99,
      latencyMaxMs: result.latency.max,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
    };
  } finally {
    // Closing its stdin asks the server process to stop and clean up; it is killed if it hangs.
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
}

/** Waits for the READY line of the server process, or fails with its stderr if it exits first. */
async function readReady(
  stdout: NodeJS.ReadableStream,
  exited: Promise<number | null>,
  stderr: () => string,
): Promise<ApiServerReady> {
  const lines = createInterface({ input: stdout });
  const ready = (async () => {
    for await (const line of lines) {
      if (line.startsWith(READY_PREFIX)) {
        return JSON.parse(line.slice(READY_PREFIX.length)) as ApiServerReady;
      }
    }
    return undefined;
  })();
  const result = await Promise.race([ready, exited.then(() => undefined)]);
  if (!result) throw new Error(`the API server process ended before it was ready:\n${stderr()}`);
  return result;
}
