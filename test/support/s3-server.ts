import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

/** An s3rver instance on a free port with one bucket, and an S3 client bound to it. */
export interface S3rverInstance {
  client: S3Client;
  /** `http://127.0.0.1:<port>`, for clients in other processes (path-style addressing). */
  endpoint: string;
  /** Stops the client and the server and removes the server's directory. */
  stop(): Promise<void>;
}

/** Starts s3rver (S3's wire API on disk, in a temporary directory) with `bucket` created. */
export async function startS3rver(bucket: string): Promise<S3rverInstance> {
  const dir = await mkdtemp(join(tmpdir(), 's3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: dir,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  return {
    client,
    endpoint,
    stop: async () => {
      client.destroy();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
