/**
 * API load bench: the local service parses one document in a process of its own (see
 * `api-server.ts`), then autocannon, in this process, loads `GET /v1/parse/{id}` (authenticated,
 * the key's request rate counted) and `GET /v1/live` for a fixed time over a fixed number of
 * connections. Each endpoint is then loaded the same way on a bare Node `http` server (see
 * `bare-server.ts`) that sends the very same response bytes, in the same run, so that the
 * service's share of what HTTP alone allows on this machine (`ratio`) compares like with like
 * however loaded the machine is.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { ROOT } from './corpus.js';

/** The line a server process prints once ready, followed by the JSON of what it announces. */
export const READY_PREFIX = 'READY ';

/** What the service process announces once the document is parsed. */
export interface ApiServerReady {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The id of the parsed document's request. */
  requestId: string;
  /** Pages of the parsed document. */
  pages: number;
}

/** One response the bare server replays (see `bare-server.ts`). */
export interface BareReply {
  /** Request path it answers, without the query. */
  path: string;
  status: number;
  contentType: string;
  bodyBase64: string;
}

export interface ApiLoadOptions {
  /** The document parsed first, whose stored response the load reads. */
  file: string;
  /** Length of each measured load, in seconds. */
  durationSeconds: number;
  /** Concurrent connections (each with one request in flight). */
  connections: number;
  /** Unmeasured load before each measured one, in seconds (0 for none). */
  warmUpSeconds: number;
  /** The API key of the server (at least 8 characters). */
  apiKey?: string;
  /** Progress lines (stderr by default). */
  log?: (line: string) => void;
}

/** The figures of one endpoint under load on one server. */
export interface EndpointLoad {
  /** Method and route template of the loaded endpoint. */
  endpoint: string;
  /** Size of one response body, in bytes. */
  responseBytes: number;
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

/** An endpoint of the service beside the bare server sending the same bytes. */
export interface EndpointComparison {
  service: EndpointLoad;
  bare: EndpointLoad;
  /** `service.requestsPerSecond / bare.requestsPerSecond` (0 to 1; 0.25 is 25%). */
  ratio: number;
}

/**
 * The figures of one API load run. The top-level fields are the service's on
 * `GET /v1/parse/{id}`; `bare` and `ratio` compare them with the bare server, `live` does the
 * same for `GET /v1/live`.
 */
export interface ApiLoadResult extends EndpointLoad {
  /** File name of the parsed document. */
  document: string;
  /** Pages of the parsed document. */
  documentPages: number;
  /** Length of each measured load, in seconds. */
  durationSeconds: number;
  connections: number;
  /** The bare server on the same response as `GET /v1/parse/{id}`. */
  bare: EndpointLoad;
  /** Service requests/s over the bare server's on `GET /v1/parse/{id}`. */
  ratio: number;
  live: EndpointComparison;
}

/**
 * Starts the service process, parses `options.file`, starts the bare server with the service's
 * responses, then loads each endpoint on the service and on the bare server one after the other
 * (each after its own warm-up), and stops both processes.
 * @throws {Error} when a server process ends before it is ready, or an endpoint does not answer
 *   200 before the load.
 */
export async function measureApiLoad(options: ApiLoadOptions): Promise<ApiLoadResult> {
  const apiKey = options.apiKey ?? 'bench-api-key-0001';
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const headers = { 'x-api-key': apiKey };
  const tmp = mkdtempSync(join(tmpdir(), 'docparse-bench-bare-'));
  const service = startServerProcess('bench/api-server.ts', [
    '--file',
    options.file,
    '--api-key',
    apiKey,
  ]);
  let bare: ServerProcess | undefined;
  try {
    const ready = (await service.ready) as ApiServerReady;
    const paths = { parse: `/v1/parse/${ready.requestId}`, live: '/v1/live' };
    const replies = await Promise.all(
      Object.values(paths).map((path) => probe(`${ready.url}${path}`, path, headers)),
    );
    const repliesFile = join(tmp, 'replies.json');
    writeFileSync(repliesFile, JSON.stringify(replies));
    bare = startServerProcess('bench/bare-server.ts', ['--replies', repliesFile]);
    const bareUrl = ((await bare.ready) as { url: string }).url;
    const parseBytes = Buffer.from(replies[0]?.bodyBase64 ?? '', 'base64').length;
    log(
      `api load: ${basename(options.file)} parsed (${ready.pages} pages, response ${parseBytes} bytes); ` +
        `${options.connections} connections, ${options.warmUpSeconds} s warm-up + ${options.durationSeconds} s per endpoint and server`,
    );
    const load = async (
      endpoint: string,
      url: string,
      responseBytes: number,
    ): Promise<EndpointLoad> => {
      const run = (duration: number) =>
        autocannon({ url, headers, connections: options.connections, duration });
      if (options.warmUpSeconds > 0) await run(options.warmUpSeconds);
      const r = await run(options.durationSeconds);
      return {
        endpoint,
        responseBytes,
        requests: r.requests.total,
        requestsPerSecond: r.requests.average,
        latencyMeanMs: r.latency.average,
        latencyP50Ms: r.latency.p50,
        latencyP99Ms: r.latency.p99,
        latencyMaxMs: r.latency.max,
        non2xx: r.non2xx,
        errors: r.errors,
        timeouts: r.timeouts,
      };
    };
    const compare = async (
      endpoint: string,
      path: string,
      bytes: number,
    ): Promise<EndpointComparison> => {
      const s = await load(endpoint, `${ready.url}${path}`, bytes);
      const b = await load(endpoint, `${bareUrl}${path}`, bytes);
      return { service: s, bare: b, ratio: s.requestsPerSecond / b.requestsPerSecond };
    };
    const parse = await compare('GET /v1/parse/{id}', paths.parse, parseBytes);
    const liveBytes = Buffer.from(replies[1]?.bodyBase64 ?? '', 'base64').length;
    const live = await compare('GET /v1/live', paths.live, liveBytes);
    return {
      ...parse.service,
      document: basename(options.file),
      documentPages: ready.pages,
      durationSeconds: options.durationSeconds,
      connections: options.connections,
      bare: parse.bare,
      ratio: parse.ratio,
      live,
    };
  } finally {
    await Promise.all([service.stop(), bare?.stop()]);
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The reply of one GET, as the bare server replays it. @throws {Error} unless it is a 200. */
async function probe(
  url: string,
  path: string,
  headers: Record<string, string>,
): Promise<BareReply> {
  const res = await fetch(url, { headers });
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${String(body)}`);
  return {
    path,
    status: res.status,
    contentType: res.headers.get('content-type') ?? 'application/json',
    bodyBase64: body.toString('base64'),
  };
}

interface ServerProcess {
  /** The JSON after the READY line. */
  ready: Promise<unknown>;
  /** Closes its stdin (the process stops and cleans up), kills it after 15 s. */
  stop(): Promise<void>;
}

/** Runs `script` (relative to the repository) with tsx in a process of its own. */
function startServerProcess(script: string, args: string[]): ServerProcess {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, script), ...args],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    ready: readReady(child.stdout, exited, () => `${script}: ${stderr}`),
    stop: async () => {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Waits for the READY line of a server process, or fails with its stderr if it exits first. */
async function readReady(
  stdout: NodeJS.ReadableStream,
  exited: Promise<number | null>,
  stderr: () => string,
): Promise<unknown> {
  const lines = createInterface({ input: stdout });
  const ready = (async () => {
    for await (const line of lines) {
      if (line.startsWith(READY_PREFIX))
        return JSON.parse(line.slice(READY_PREFIX.length)) as unknown;
    }
    return undefined;
  })();
  const result: unknown = await Promise.race([ready, exited.then(() => undefined)]);
  if (result === undefined) {
    throw new Error(`a bench server process ended before it was ready:\n${stderr()}`);
  }
  return result;
}
