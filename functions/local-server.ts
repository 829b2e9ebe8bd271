import { randomUUID } from 'node:crypto';
import {
  STATUS_CODES,
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { rm, writeFile } from 'node:fs/promises';
import type { AddressInfo, Socket } from 'node:net';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { bodyBytesOf } from './api/responses.js';
import { matchRoute } from './api/routes.js';
import { authenticate } from './core/app/authenticate.js';
import { UnauthenticatedError } from './core/domain/errors.js';
import { LocalResponseStream, invokeStreaming, isStreamingHandler } from './api/streaming.js';
import type { Deps } from './container.js';
import { buildLocalRuntime } from './local-runtime.js';
import { ConfigError, type Config } from './config.js';
import { bootstrapApiKeys, demoServerFile } from './adapters/local/api-key-bootstrap.js';
import { lambdaContext } from './adapters/local/lambda-context.js';
import { toProxyEvent } from './adapters/local/proxy-event.js';
import { LOCAL_UPLOAD_PATH, LocalUploadSigner } from './adapters/local/local-upload-signer.js';
import { receiveUpload } from './adapters/local/upload-receiver.js';
import { logger } from './observability/logger.js';

/** Multipart framing allowed on top of `MAX_UPLOAD_BYTES` before the body is refused outright. */
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

/**
 * Requests served on one keep-alive connection before the server asks the client to reconnect
 * (`Connection: close` on the last answer).
 */
const MAX_REQUESTS_PER_SOCKET = 10_000;

/**
 * A file served as is on GET and HEAD of exactly `path` (the playground page and its scripts),
 * before the route table. `contentType` is the full `Content-Type` header value.
 */
export interface StaticAsset {
  path: string;
  contentType: string;
  body: Buffer;
}

/** Options of {@link startLocalServer}. */
export interface LocalServerOptions {
  /** Files to serve besides the API (see {@link StaticAsset}); none by default. */
  staticAssets?: readonly StaticAsset[];
  /** The `Content-Security-Policy` header sent with the static assets, if any. */
  contentSecurityPolicy?: string;
}

/** A running local server. */
export interface LocalServer {
  url: string;
  port: number;
  deps: Deps;
  /** The demo API key when `API_KEYS` is unset. */
  demoKey: string | undefined;
  close(): Promise<void>;
}

/**
 * Serves the route table over HTTP through the same handler modules the Lambdas use, made over the
 * local runtime's dependencies (`buildLocalRuntime`): each request becomes an API Gateway (REST)
 * proxy event, bodies base64-encoded as with `binaryMediaTypes`.
 * Bodies above `MAX_UPLOAD_BYTES` plus multipart framing are refused with 413 before buffering.
 * It also stands in for S3's form upload: `POST /v1/uploads/{upload_id}` (the `url` that
 * POST /v1/uploads returns here) stores a file sent with a signed form, see `receiveUpload`.
 * `options.staticAssets` are served on GET and HEAD of their paths, with
 * `options.contentSecurityPolicy` and `Cache-Control: no-cache`.
 *
 * Receiving a request is bounded, producing its answer is not: headers within
 * `HEADERS_TIMEOUT_MS`, the whole request within `REQUEST_TIMEOUT_MS`, and no more than
 * `REQUEST_IDLE_TIMEOUT_MS` without a byte of the body; past any of them the answer is 408 with a
 * `detail` and the connection is closed. Idle keep-alive connections close after
 * `KEEP_ALIVE_TIMEOUT_MS`, and after {@link MAX_REQUESTS_PER_SOCKET} requests.
 *
 * With the demo key in use, the server records its address in `demoServerFile(DATA_DIR)` while
 * it runs, so that the CLI uses the key with this server only.
 * @throws {ConfigError} when `PORT` is taken by another process.
 */
export async function startLocalServer(
  config: Config & { RUNTIME_MODE: 'local' },
  options: LocalServerOptions = {},
): Promise<LocalServer> {
  const runtime = await buildLocalRuntime(config);
  const { deps } = runtime;
  const uploads = localSigner(deps);
  await deps.warmUp();
  const { demoKey } = await bootstrapApiKeys(
    deps.apiKeys,
    config.API_KEYS,
    config.DATA_DIR,
    new Date(),
  );
  const maxBody = config.MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD_BYTES;
  // Bytes of request bodies being received, over all connections.
  const buffering = { bytes: 0, limit: MAX_BUFFERED_BODIES * maxBody };
  const assets = new Map((options.staticAssets ?? []).map((asset) => [asset.path, asset]));

  const responses = new WeakMap<Socket, ServerResponse>();
  const server = createServer(
    {
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      headersTimeout: Math.min(config.HEADERS_TIMEOUT_MS, config.REQUEST_TIMEOUT_MS),
      keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_MS,
      // How often Node checks the two timeouts above: often enough for short test values.
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(
          30_000,
          Math.floor(Math.min(config.HEADERS_TIMEOUT_MS, config.REQUEST_TIMEOUT_MS) / 4),
        ),
      ),
    },
    (req, res) => {
      responses.set(req.socket, res);
      // A later request on the same keep-alive socket is answered anew if its framing fails.
      res.once('finish', () => {
        if (responses.get(req.socket) === res) responses.delete(req.socket);
      });
      limitBodyIdleTime(req, res, config.REQUEST_IDLE_TIMEOUT_MS);
      handle(req, res);
    },
  );
  server.maxRequestsPerSocket = MAX_REQUESTS_PER_SOCKET;
  answerClientErrors(server, responses, config);

  function handle(req: IncomingMessage, res: ServerResponse): void {
    serve(req, res).catch((error: unknown) => {
      const id = randomUUID();
      logger.error('request failed', { requestId: id, error });
      if (!res.headersSent) send(res, 500, { detail: `internal error (request ${id})` });
      else res.destroy();
    });
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    // Form uploads go where S3 would take them on AWS, not through the route table.
    const uploadId = req.method === 'POST' ? LOCAL_UPLOAD_PATH.exec(url.pathname)?.[1] : undefined;
    if (uploadId !== undefined) {
      if (Number(req.headers['content-length'] ?? '0') > maxBody) {
        tooLarge(res);
        req.resume();
        return;
      }
      await receiveUpload(req, res, uploadId, uploads, deps.objects);
      return;
    }
    const asset =
      req.method === 'GET' || req.method === 'HEAD' ? assets.get(url.pathname) : undefined;
    if (asset !== undefined) {
      sendAsset(res, asset, req.method === 'HEAD', options.contentSecurityPolicy);
      req.resume();
      return;
    }
    const match = matchRoute(req.method ?? 'GET', url.pathname);
    if (match === undefined) {
      send(res, 404, { detail: `no route for ${req.method ?? 'GET'} ${url.pathname}` });
      req.resume();
      return;
    }
    if (match === 'method') {
      send(res, 405, { detail: `method ${req.method ?? ''} is not allowed on ${url.pathname}` });
      req.resume();
      return;
    }
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > maxBody) {
      tooLarge(res);
      req.resume();
      return;
    }
    // The key is checked before a byte of the body is read, as API Gateway's authorizer does:
    // a client without a valid key cannot make the server hold an upload.
    if (match.route.auth && hasBody(req)) {
      const refused = await refusedKey(deps, req.headers['x-api-key']);
      if (refused !== undefined) {
        send(res, 401, { detail: refused });
        // The rest of the body is read and dropped, never held, so that the client reads the 401.
        req.resume();
        return;
      }
    }
    const body = await readBody(req, maxBody, buffering);
    if (body === 'too_large') {
      tooLarge(res);
      return;
    }
    if (body === 'busy') {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(JSON.stringify({ detail: BUSY_DETAIL }));
      req.resume();
      return;
    }
    // The client went away, or a timeout closed the connection (and answered 408).
    if (body === 'aborted') return;
    const event = toProxyEvent(
      {
        method: req.method ?? 'GET',
        url,
        headers: req.headers,
        body,
        route: match.route,
        params: match.params,
      },
      req.socket.remoteAddress,
    );
    const handler = runtime.apiHandler(match.route);
    if (isStreamingHandler(handler)) {
      // As API Gateway's STREAM mode: the head when the handler sends it, then the body as written.
      const stream = new LocalResponseStream((prelude) => {
        res.writeHead(prelude.statusCode ?? 200, prelude.headers);
      });
      stream.pipe(res);
      await invokeStreaming(handler, event, stream, lambdaContext(match.route.entry));
      return;
    }
    const result = (await handler(
      event,
      lambdaContext(match.route.entry),
    )) as APIGatewayProxyResult;
    res.writeHead(result.statusCode, result.headers as Record<string, string> | undefined);
    // Bytes the handler kept (a finished result) are sent as they are, not encoded again.
    res.end(
      bodyBytesOf(result) ??
        (result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body),
    );
  }

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.PORT, config.HOST, () => {
        resolve();
      });
    });
  } catch (error) {
    await runtime.close();
    // Another process holds the port: the user's to fix, in one line (no stack trace).
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new ConfigError(`port ${config.PORT} is in use; set PORT to another port`);
    }
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `http://${config.HOST}:${port}`;
  uploads.serveAt(url);
  const serverFile = demoServerFile(config.DATA_DIR);
  if (demoKey !== undefined) {
    await writeFile(serverFile, `${JSON.stringify({ url, port })}\n`);
  }
  return {
    url,
    port,
    deps,
    demoKey,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      });
      if (demoKey !== undefined) await rm(serverFile, { force: true });
      await runtime.close();
    },
  };
}

/** The signer of local deps, which this server verifies forms with. */
function localSigner(deps: Deps): LocalUploadSigner {
  if (!(deps.uploads instanceof LocalUploadSigner)) {
    throw new Error('the local server needs the local upload signer (RUNTIME_MODE=local)');
  }
  return deps.uploads;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sendAsset(
  res: ServerResponse,
  asset: StaticAsset,
  headOnly: boolean,
  contentSecurityPolicy: string | undefined,
): void {
  res.writeHead(200, {
    'content-type': asset.contentType,
    'content-length': String(asset.body.length),
    'cache-control': 'no-cache',
    ...(contentSecurityPolicy ? { 'content-security-policy': contentSecurityPolicy } : {}),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  res.end(headOnly ? undefined : asset.body);
}

function tooLarge(res: ServerResponse): void {
  res.setHeader('connection', 'close');
  send(res, 413, { detail: 'the request body exceeds the maximum upload size (MAX_UPLOAD_BYTES)' });
}

/**
 * Answers 408 and closes the connection when the request's body sends no byte for `idleMs`
 * milliseconds (`REQUEST_IDLE_TIMEOUT_MS`), through the socket's idle timer, which Node only
 * reports to the request while it is incomplete. Once the body has been read the timer is
 * stopped: producing the answer (a long parse, an SSE stream) is not bounded by it.
 */
function limitBodyIdleTime(req: IncomingMessage, res: ServerResponse, idleMs: number): void {
  req.setTimeout(idleMs, () => {
    res.once('finish', () => req.socket.destroy());
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    res.setHeader('connection', 'close');
    send(res, 408, {
      detail: `the request body sent no byte for ${idleMs / 1000} s (REQUEST_IDLE_TIMEOUT_MS); the connection is closed`,
    });
  });
  req.once('end', () => {
    // After the answer Node has set the keep-alive timeout on the socket: leave it.
    if (!res.writableFinished) req.socket.setTimeout(0);
  });
}

/**
 * Answers what Node refuses before a request reaches the handler: 408 when the headers or the
 * whole request did not arrive within `HEADERS_TIMEOUT_MS` / `REQUEST_TIMEOUT_MS`, 431 for
 * headers too large, 400 for a malformed HTTP request; a `{ detail }` body, then the connection
 * is closed. Nothing is written when an answer to the request has already started.
 */
function answerClientErrors(
  server: Server,
  responses: WeakMap<Socket, ServerResponse>,
  config: Pick<Config & { RUNTIME_MODE: 'local' }, 'REQUEST_TIMEOUT_MS' | 'HEADERS_TIMEOUT_MS'>,
): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const status =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 408
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? 431
          : 400;
    const detail =
      status === 408
        ? `the request was not received in time: headers within ${Math.min(config.HEADERS_TIMEOUT_MS, config.REQUEST_TIMEOUT_MS) / 1000} s (HEADERS_TIMEOUT_MS), the whole request within ${config.REQUEST_TIMEOUT_MS / 1000} s (REQUEST_TIMEOUT_MS); the connection is closed`
        : status === 431
          ? 'the request headers are too large'
          : `malformed HTTP request (${error.code ?? error.message})`;
    const answering = responses.get(socket)?.headersSent === true;
    if (socket.writable && !answering && error.code !== 'ECONNRESET') {
      const body = JSON.stringify({ detail });
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      // A client that reads nothing cannot hold the socket.
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    socket.destroy();
  });
}

/**
 * Largest uploads the server receives at once, counted in bytes: past
 * `MAX_BUFFERED_BODIES × (MAX_UPLOAD_BYTES + framing)` bytes of bodies being received over all
 * connections, a request is answered 503 (`Retry-After: 1`) rather than held, so that slow
 * senders cannot fill the server's memory.
 */
const MAX_BUFFERED_BODIES = 8;

const BUSY_DETAIL =
  'the server is receiving too many uploads at once; retry in a moment (Retry-After)';

/** Whether a request carries a body (a length above 0, or a chunked one). */
const hasBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined ||
  Number(req.headers['content-length'] ?? '0') > 0;

/** Why `key` is refused (the 401's detail), or undefined for a valid key. */
async function refusedKey(
  deps: Deps,
  key: string | string[] | undefined,
): Promise<string | undefined> {
  try {
    await authenticate(deps.apiKeys, Array.isArray(key) ? key.join(', ') : key);
    return undefined;
  } catch (error) {
    if (error instanceof UnauthenticatedError) return error.message;
    throw error;
  }
}

/**
 * Reads the whole body, or stops at `limit` bytes; `'aborted'` when the connection closes first
 * (the client went away, or a timeout closed it); `'busy'` when the bodies being received over
 * all connections (`buffering`, this one's counted while it is read) would pass their limit.
 */
function readBody(
  req: IncomingMessage,
  limit: number,
  buffering: { bytes: number; limit: number },
): Promise<Buffer | 'too_large' | 'aborted' | 'busy'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: Buffer | 'too_large' | 'aborted' | 'busy'): void => {
      if (done) return;
      done = true;
      buffering.bytes -= size;
      chunks.length = 0;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      if (size + chunk.length > limit) {
        finish('too_large');
        return;
      }
      if (buffering.bytes + chunk.length > buffering.limit) {
        finish('busy');
        return;
      }
      size += chunk.length;
      buffering.bytes += chunk.length;
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      const body = Buffer.concat(chunks);
      finish(body);
    });
    req.on('error', () => {
      finish('aborted');
    });
    req.on('close', () => {
      if (!req.readableEnded) finish('aborted');
    });
  });
}
