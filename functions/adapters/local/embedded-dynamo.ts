import { EventEmitter } from 'node:events';
import { mkdir } from 'node:fs/promises';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { HttpRequest, RequestSigner } from '@smithy/types';
import { createDocumentClient } from '../aws/dynamodb-items.js';
import { createTableInput, type ServiceTableDefinition } from '../aws/service-table.js';
import { InProcessHttpHandler, type RequestListener } from './in-process-http-handler.js';

/** The service table's name in the embedded DynamoDB under `DATA_DIR` (the local server's, `npm run keys`). */
export const LOCAL_TABLE_NAME = 'docparse';

/** The subset of dynalite's options used here (dynalite ships no types). */
interface DynaliteOptions {
  path?: string;
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
}

type Dynalite = (options: DynaliteOptions) => Server;

// dynalite is CommonJS.
const require = createRequire(import.meta.url);
const dynalite = require('dynalite') as Dynalite;

/** A store method of dynalite's with a Node-style callback as its last argument. */
type StoreMethod = (...args: unknown[]) => unknown;
/** An error as dynalite's handlers answer it: with a status code and a DynamoDB error body. */
type AnsweredError = Error & { statusCode?: number; body?: unknown };

/**
 * dynalite's store (`dynalite/db`), whose `create` it calls for each server. An error of the
 * LevelDB store under it (an I/O error: a full disk) reaches dynalite's handlers without a
 * status code, and they throw it outside any caller (`if (err) throw err`), which would end this
 * process; `create` is wrapped once so that such an error is answered as DynamoDB's
 * InternalServerError (500, which the SDK retries) to the request that met it alone.
 */
const dynaliteStore = require('dynalite/db') as {
  create: (options: DynaliteOptions) => { db: Record<string, StoreMethod> };
  answersStoreErrors?: true;
};
if (!dynaliteStore.answersStoreErrors) {
  const create = dynaliteStore.create;
  dynaliteStore.create = (options) => {
    const store = create(options);
    for (const name of ['get', 'put', 'del', 'batch']) {
      const method = store.db[name];
      if (typeof method !== 'function') continue;
      store.db[name] = (...args: unknown[]) => {
        const done = args.at(-1);
        if (typeof done === 'function') {
          args[args.length - 1] = (error: AnsweredError | null, ...rest: unknown[]) => {
            if (error && error.statusCode === undefined && error.name !== 'NotFoundError') {
              error.statusCode = 500;
              error.body = {
                __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
                message: error.message,
              };
            }
            (done as (...a: unknown[]) => void)(error, ...rest);
          };
        }
        return method(...args);
      };
    }
    return store;
  };
  dynaliteStore.answersStoreErrors = true;
}

const HOST = '127.0.0.1';

/**
 * The signer of requests to the engine in this process: dynalite checks that a request carries a
 * SigV4 `Authorization` header and an `X-Amz-Date`, never the signature (it holds no secrets), so
 * the SDK's signing (hashing every body, an HMAC chain per request) is skipped and a header of the
 * right shape is set instead.
 */
const UNSIGNED: RequestSigner = {
  sign: (request: HttpRequest) => {
    const date = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
    request.headers['x-amz-date'] = date;
    request.headers.authorization = `AWS4-HMAC-SHA256 Credential=local/${date.slice(0, 8)}/local/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=unsigned`;
    return Promise.resolve(request);
  },
};

/** dynalite's largest request body (its MAX_REQUEST_BYTES); a larger one is answered 413. */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

/**
 * dynalite's request listener as the TCP endpoint serves it, behind a guard: dynalite throws,
 * outside any caller, when a client aborts its upload (`req.on('error', err => { throw err })`)
 * or when a request's validation fails with an error of its own (a stack overflow on an item
 * nested thousands deep), and either would end this process. Here the body is read first (an
 * aborted upload is dropped), then handed to dynalite as one `data` event, as the in-process
 * handler does, and an error it throws is answered 500 to that request alone. A request with an
 * `Origin` header (a web page in a browser, which dynalite would allow any origin) is refused.
 */
const guardedListener =
  (engine: RequestListener): RequestListener =>
  (request, response) => {
    if (request.headers.origin !== undefined) {
      request.resume();
      response.statusCode = 403;
      response.end();
      return;
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    request.on('error', () => {
      // The client went away before the end of its body: nothing to answer.
    });
    request.on('end', () => {
      if (bytes > MAX_REQUEST_BYTES) {
        response.statusCode = 413;
        response.end();
        return;
      }
      const incoming = Object.assign(new EventEmitter(), {
        method: request.method,
        url: request.url,
        headers: request.headers,
      });
      try {
        engine(incoming as unknown as IncomingMessage, response);
        if (bytes > 0) incoming.emit('data', Buffer.concat(chunks, bytes));
        incoming.emit('end');
      } catch (error) {
        if (response.headersSent) {
          response.destroy();
          return;
        }
        const body = JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
          message: error instanceof Error ? error.message : String(error),
        });
        response.statusCode = 500;
        response.setHeader('Content-Type', 'application/x-amz-json-1.0');
        response.end(body);
      }
    });
  };

/** How long {@link EmbeddedDynamo.ensureTable} waits for a table to become ACTIVE. */
const TABLE_ACTIVE_TIMEOUT_MS = 30_000;

/** Options of {@link startEmbeddedDynamo}. */
export interface EmbeddedDynamoOptions {
  /**
   * Directory of the LevelDB store; created when missing.
   * @default - in memory: everything is lost on stop
   */
  readonly path?: string;
  /**
   * TCP port on 127.0.0.1.
   * @default 0 (a free port chosen by the system)
   */
  readonly port?: number;
}

/** A running dynalite server and clients bound to it. */
export interface EmbeddedDynamo {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Low-level client (region `local`, dummy credentials). */
  readonly client: DynamoDBClient;
  /** Document client for the DynamoDB adapters (`removeUndefinedValues: true`). */
  readonly documentClient: DynamoDBDocumentClient;
  /** Creates the table unless it exists, then waits until it is ACTIVE. */
  ensureTable(definition: ServiceTableDefinition): Promise<void>;
  /**
   * Closes the clients and the server (flushing the on-disk store) once the requests in flight
   * are answered (or after 10 s, for a request dynalite never answers); a request made after the
   * call fails. Safe to call twice.
   */
  stop(): Promise<void>;
}

/**
 * Starts dynalite, DynamoDB's wire API on LevelDB, inside this process: the local stand-in for
 * DynamoDB, on disk under `path` or in memory.
 *
 * dynalite has no transactions and never expires items by TTL; the adapters need neither.
 * Only one process may open a given `path` at a time (LevelDB holds a lock on it).
 *
 * @example
 * const ddb = await startEmbeddedDynamo({ path: '.data/dynamodb' });
 * await ddb.ensureTable(serviceTable('docparse'));
 * const requests = new DynamoDbRequestStore(ddb.documentClient, 'docparse');
 */
export async function startEmbeddedDynamo(
  options: EmbeddedDynamoOptions = {},
): Promise<EmbeddedDynamo> {
  const path = options.path === undefined ? undefined : resolve(options.path);
  if (path !== undefined) await mkdir(path, { recursive: true });

  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const engine = server.listeners('request')[0] as RequestListener;
  server.removeAllListeners('request');
  server.on('request', guardedListener(engine));
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, HOST, () => {
      server.off('error', fail);
      done();
    });
  });

  const { port } = server.address() as AddressInfo;
  const endpoint = `http://${HOST}:${port}`;
  const handler = new InProcessHttpHandler(engine);
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    signer: UNSIGNED,
    requestHandler: handler,
  });
  const documentClient = createDocumentClient(client);

  let stopping: Promise<void> | undefined;
  return {
    endpoint,
    client,
    documentClient,
    ensureTable: (definition) => ensureTable(client, definition),
    stop: () =>
      (stopping ??= (async () => {
        // Requests already inside dynalite are answered before its store closes (for at most
        // the handler's close timeout); later ones fail.
        await handler.close();
        documentClient.destroy();
        client.destroy();
        await new Promise<void>((done, fail) => {
          server.close((error) => {
            if (error) fail(error);
            else done();
          });
        });
      })()),
  };
}

async function ensureTable(
  client: DynamoDBClient,
  definition: ServiceTableDefinition,
): Promise<void> {
  const { tableName } = definition;
  if ((await tableStatus(client, tableName)) === undefined) {
    try {
      await client.send(new CreateTableCommand(createTableInput(definition)));
    } catch (error) {
      // Another caller created it first: fine, wait for it like for our own.
      if (!(error instanceof ResourceInUseException)) throw error;
    }
  }
  const deadline = Date.now() + TABLE_ACTIVE_TIMEOUT_MS;
  for (;;) {
    const status = await tableStatus(client, tableName);
    if (status === 'ACTIVE') return;
    if (Date.now() > deadline) {
      throw new Error(`table ${tableName} is not ACTIVE after ${TABLE_ACTIVE_TIMEOUT_MS} ms`);
    }
    await new Promise((wake) => setTimeout(wake, 25));
  }
}

/** The table's status, or undefined when it does not exist. */
async function tableStatus(client: DynamoDBClient, tableName: string): Promise<string | undefined> {
  try {
    const { Table: table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return table?.TableStatus ?? 'UNKNOWN';
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}
