import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3rver, type S3rverInstance } from '../../support/s3-server.js';
import { S3ObjectStore } from '../../../functions/adapters/aws/s3-object-store.js';
import { S3UploadSigner } from '../../../functions/adapters/aws/s3-upload-signer.js';
import { createUpload, readUpload, uploadKeys } from '../../../functions/core/app/uploads.js';
import { TINY_PDF } from '../../support/builders.js';

// s3rver stores browser POST uploads but checks neither the policy (key, content-length-range,
// expiry) nor its signature: those conditions are covered by decoding the signed policy in the
// unit test. What runs here is the wire format: the url, the fields and the object it stores.
const BUCKET = 'docparse-uploads';

let s3: S3rverInstance;
let client: S3Client;

beforeAll(async () => {
  s3 = await startS3rver(BUCKET);
  client = s3.client;
});

afterAll(() => s3.stop());

describe('S3UploadSigner on s3rver', () => {
  it('gives a form whose browser POST stores the file at the slot key, readable by reference', async () => {
    // Arrange
    const objects = new S3ObjectStore(client, BUCKET);
    const deps = {
      uploads: new S3UploadSigner(client, BUCKET),
      objects,
      clock: { now: () => new Date() },
      newId: () => 'abcdefghijklmnopqrstuvwx',
      limits: { maxUploadBytes: 1024 * 1024, pageConcurrency: 1 },
    };
    const slot = await createUpload(deps, {
      tenant: 'tenant-a',
      filename: 'scan.pdf',
      contentType: 'application/pdf',
    });
    const form = new FormData();
    for (const [name, value] of Object.entries(slot.fields)) form.append(name, value);
    form.append('file', new Blob([Uint8Array.from(TINY_PDF)]), 'scan.pdf');
    // Act
    const res = await fetch(slot.url, { method: 'POST', body: form });
    // Assert
    expect(res.status).toBe(204);
    const key = uploadKeys.document('tenant-a', slot.upload_id);
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(head.ContentType).toBe('application/pdf');
    expect(await readUpload(deps, 'tenant-a', slot.upload_id)).toEqual({
      bytes: Uint8Array.from(TINY_PDF),
      filename: 'scan.pdf',
    });
  });
});
