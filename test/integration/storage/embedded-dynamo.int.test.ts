import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceTable } from '../../../functions/adapters/aws/service-table.js';
import {
  startEmbeddedDynamo,
  type EmbeddedDynamo,
} from '../../../functions/adapters/local/embedded-dynamo.js';

/**
 * The embedded engine is reached in-process, and dynalite never checks a signature: requests
 * carry a SigV4-shaped `Authorization` header without the SDK computing a signature (hashing the
 * body, an HMAC chain), and dynalite accepts them.
 */

const TABLE = 'embedded';
let ddb: EmbeddedDynamo;
const authorizations: string[] = [];

beforeAll(async () => {
  ddb = await startEmbeddedDynamo();
  await ddb.ensureTable(serviceTable(TABLE));
  // Sees each request as it leaves the client, after the signing step.
  ddb.documentClient.middlewareStack.add(
    (next) => (args) => {
      const headers = (args.request as { headers?: Record<string, string> }).headers ?? {};
      authorizations.push(headers.authorization ?? '');
      return next(args);
    },
    { step: 'deserialize', name: 'seeAuthorization' },
  );
});
afterAll(() => ddb.stop());

describe('the embedded DynamoDB client', () => {
  it('sends unsigned requests that dynalite accepts, and reads back what it wrote', async () => {
    // Arrange
    const item = { pk: 'REQ#a', sk: 'META', body: 'x'.repeat(10_000) };
    // Act
    await ddb.documentClient.send(new PutCommand({ TableName: TABLE, Item: item }));
    const read = await ddb.documentClient.send(
      new GetCommand({ TableName: TABLE, Key: { pk: 'REQ#a', sk: 'META' } }),
    );
    // Assert
    expect(read.Item).toEqual(item);
    expect(authorizations).toHaveLength(2);
    for (const header of authorizations) {
      expect(header).toMatch(/^AWS4-HMAC-SHA256 Credential=/);
      expect(header).not.toMatch(/Signature=[0-9a-f]{64}/);
    }
  });

  it('answers the requests in flight when stopped, and refuses those made after', async () => {
    // Arrange: a store of its own on disk, stopped while 50 writes run.
    const dir = mkdtempSync(join(tmpdir(), 'embedded-dynamo-'));
    const own = await startEmbeddedDynamo({ path: dir });
    await own.ensureTable(serviceTable(TABLE));
    const put = (n: number) =>
      own.documentClient.send(
        new PutCommand({ TableName: TABLE, Item: { pk: `REQ#${String(n)}`, sk: 'META', n } }),
      );
    try {
      // Act: stopped once the first write is answered, the others on their way or inside.
      const writes = Array.from({ length: 50 }, (_, n) => put(n));
      await writes[0];
      const stopped = own.stop();
      const outcomes = await Promise.allSettled(writes);
      await stopped;
      const late = await put(99).then(
        () => 'written',
        (error: unknown) => String(error),
      );
      // Assert: each write is written or refused as the engine stops; nothing is thrown outside
      // the callers (vitest would report it).
      const refusals = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []));
      expect(refusals.filter((r) => !/stopping/.test(r))).toEqual([]);
      expect(refusals.length).toBeLessThan(50);
      expect(late).toMatch(/stopping|destroyed/);
      // ...and every write answered as written is in the store when it is opened again.
      const written = outcomes.flatMap((o, n) => (o.status === 'fulfilled' ? [n] : []));
      const reopened = await startEmbeddedDynamo({ path: dir });
      try {
        const found = await Promise.all(
          written.map(async (n) => {
            const { Item: item } = await reopened.documentClient.send(
              new GetCommand({ TableName: TABLE, Key: { pk: `REQ#${String(n)}`, sk: 'META' } }),
            );
            return item?.n as number | undefined;
          }),
        );
        expect(found).toEqual(written);
      } finally {
        await reopened.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);
});

/** A request over TCP to the endpoint, signed in shape only (dynalite never checks signatures). */
function overTcp(
  target: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const date = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
  return fetch(ddb.endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': `DynamoDB_20120810.${target}`,
      'x-amz-date': date,
      authorization: `AWS4-HMAC-SHA256 Credential=local/${date.slice(0, 8)}/local/dynamodb/aws4_request, SignedHeaders=host, Signature=unsigned`,
      ...headers,
    },
    body,
  });
}

describe('the embedded DynamoDB endpoint over TCP', () => {
  it('outlives a client that aborts its upload', async () => {
    // Arrange
    const port = Number(new URL(ddb.endpoint).port);
    // Act: headers and half a body, then the connection is dropped.
    await new Promise<void>((done) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n' +
            'X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 100\r\n\r\n{"Tab',
        );
        setTimeout(() => {
          socket.destroy();
          done();
        }, 100);
      });
    });
    await new Promise((wait) => setTimeout(wait, 200));
    const after = await overTcp('ListTables', '{}');
    // Assert: the process is still here (vitest reports an uncaught error) and serving.
    expect(after.status).toBe(200);
  });

  it('answers an item nested too deep for dynalite with a 500 and keeps serving', async () => {
    // Arrange: a map nested 20,000 deep overflows dynalite's recursive type check.
    const depth = 20_000;
    const item =
      '{"pk":{"S":"REQ#deep"},"sk":{"S":"META"},"m":' +
      '{"M":{"m":'.repeat(depth) +
      '{"S":"v"}' +
      '}}'.repeat(depth) +
      '}';
    // Act
    const deep = await overTcp('PutItem', `{"TableName":"${TABLE}","Item":${item}}`);
    const after = await overTcp('ListTables', '{}');
    // Assert
    expect(deep.status).toBe(500);
    expect(await deep.text()).toMatch(/InternalServerError/);
    expect(after.status).toBe(200);
  });

  it('refuses a request from a web page (an Origin header)', async () => {
    // Act
    const scan = await overTcp('Scan', `{"TableName":"${TABLE}"}`, {
      origin: 'https://example.com',
    });
    // Assert
    expect(scan.status).toBe(403);
    expect(scan.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the embedded DynamoDB store', () => {
  it('answers a write its store fails (a full disk) with an error to that caller alone', async () => {
    // Arrange: LevelDB's in-memory store fails the writes of one item as a full disk would.
    type Put = (key: unknown, value: unknown, options: unknown) => Promise<void>;
    const { MemoryLevel } = createRequire(import.meta.url)('memory-level') as {
      MemoryLevel: { prototype: { _put: Put } };
    };
    const put = MemoryLevel.prototype._put;
    MemoryLevel.prototype._put = function (this: unknown, key, value, options) {
      if (String(value).includes('disk-full')) {
        return Promise.reject(
          Object.assign(new Error('IO error: No space left on device'), { code: 'LEVEL_IO_ERROR' }),
        );
      }
      return put.call(this, key, value, options);
    };
    const own = await startEmbeddedDynamo();
    try {
      await own.ensureTable(serviceTable(TABLE));
      const write = (note: string) =>
        own.documentClient.send(
          new PutCommand({ TableName: TABLE, Item: { pk: 'REQ#disk', sk: 'META', note } }),
        );
      // Act
      const failed = await write('disk-full').then(
        () => 'written',
        (error: unknown) => (error as Error).name,
      );
      await write('fine');
      const read = await own.documentClient.send(
        new GetCommand({ TableName: TABLE, Key: { pk: 'REQ#disk', sk: 'META' } }),
      );
      // Assert: the caller is told, the process lives on (vitest reports an uncaught error), and
      // the item's lock was released for the next write.
      expect(failed).toBe('InternalServerError');
      expect(read.Item?.note).toBe('fine');
    } finally {
      MemoryLevel.prototype._put = put;
      await own.stop();
    }
  }, 20_000);
});
