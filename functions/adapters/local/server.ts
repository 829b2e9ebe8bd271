import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { matchRoute, routes, type Route } from '../../api/routes.js';
import {
  LocalResponseStream,
  invokeStreaming,
  isStreamingHandler,
  type ApiHandler,
} from '../../api/streaming.js';
import { initDeps, resetDeps, type Deps } from '../../container.js';
import type { Config } from '../../config.js';
import { bootstrapApiKeys } from './api-key-bootstrap.js';
import { lambdaContext } from './lambda-context.js';
import { toProxyEvent } from './proxy-event.js';
import { LOCAL_UPLOAD_PATH, LocalUploadSigner } from './local-upload-signer.js';
import { receiveUpload } from './upload-receiver.js';

/** Multipart framing allowed on top of `MAX_UPLOAD_BYTES` before the body is refused outright. */
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

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
 * Serves the route table over HTTP through the same handler modules the Lambdas use: each request
 * becomes an API Gateway (REST) proxy event, bodies base64-encoded as with `binaryMediaTypes`.
 * Bodies above `MAX_UPLOAD_BYTES` plus multipart framing are refused with 413 before buffering.
 * It also stands in for S3's form upload: `POST /v1/uploads/{upload_id}` (the `url` that
 * POST /v1/uploads returns here) stores a file sent with a signed form, see `receiveUpload`.
 * `options.staticAssets` are served on GET and HEAD of their paths, with
 * `options.contentSecurityPolicy` and `Cache-Control: no-cache`.
 */
export async function startLocalServer(
  config: Config & { RUNTIME_MODE: 'local' },
  options: LocalServerOptions = {},
): Promise<LocalServer> {
  const deps = await initDeps(config);
  const uploads = localSigner(deps);
  await deps.warmUp();
  const { demoKey } = await bootstrapApiKeys(
    deps.apiKeys,
    config.API_KEYS,
    config.DATA_DIR,
    new Date(),
  );
  const handlers = new Map<string, Promise<ApiHandler>>();
  const handlerFor = (route: Route): Promise<ApiHandler> => {
    let h = handlers.get(route.entry);
    if (!h) {
      h = import(`../../api/${route.entry.replace(/\.ts$/, '.js')}`).then(
        (m: { handler: ApiHandler }) => m.handler,
      );
      handlers.set(route.entry, h);
    }
    return h;
  };
  // Handler modules are loaded before the first request, as a Lambda's are at cold start.
  await Promise.all(routes.map((route) => handlerFor(route)));
  const maxBody = config.MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD_BYTES;
  const assets = new Map((options.staticAssets ?? []).map((asset) => [asset.path, asset]));

  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      const id = randomUUID();
      console.error(`request ${id} failed`, error);
      if (!res.headersSent) send(res, 500, { detail: `internal error (request ${id})` });
      else res.destroy();
    });
  });

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
    const body = await readBody(req, maxBody);
    if (body === 'too_large') {
      tooLarge(res);
      return;
    }
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
    const handler = await handlerFor(match.route);
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
    res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => {
      resolve();
    });
  });
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  const port = (server.address() as AddressInfo).port;
  const url = `http://${config.HOST}:${port}`;
  uploads.serveAt(url);
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
      await resetDeps();
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

/** Reads the whole body, or stops at `limit` bytes. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        resolve('too_large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}
