import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ObjectStore } from '../../../functions/adapters/aws/s3-object-store.js';
import { describeObjectStoreContract } from '../../contract/object-store.contract.js';

const BUCKET = 'docparse-test';

let dir: string;
let server: S3rver;
let client: S3Client;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 's3rver-'));
  server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: dir,
    silent: true,
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = await server.run();
  client = new S3Client({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
});

afterAll(async () => {
  client.destroy();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

// The same contract the filesystem store passes, on the S3 wire protocol.
describeObjectStoreContract('S3ObjectStore on s3rver', () => new S3ObjectStore(client, BUCKET));

describe('S3ObjectStore', () => {
  it('stores the content type with the object', async () => {
    // Arrange
    const store = new S3ObjectStore(client, BUCKET);
    const key = 'results/t-1/req_1.md';
    // Act
    await store.put(key, new TextEncoder().encode('# Title'), 'text/markdown');
    // Assert
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(head.ContentType).toBe('text/markdown');
  });
});
