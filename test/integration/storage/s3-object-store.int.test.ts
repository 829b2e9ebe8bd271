import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3rver, type S3rverInstance } from '../../support/s3-server.js';
import { S3ObjectStore } from '../../../functions/adapters/aws/s3-object-store.js';
import { describeObjectStoreContract } from '../../contract/object-store.contract.js';

const BUCKET = 'docparse-test';

let s3: S3rverInstance;
let client: S3Client;

beforeAll(async () => {
  s3 = await startS3rver(BUCKET);
  client = s3.client;
});

afterAll(() => s3.stop());

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
