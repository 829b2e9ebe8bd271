import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { S3UploadSigner } from '../../../../functions/adapters/aws/s3-upload-signer.js';
import type { UploadPolicy } from '../../../../functions/core/ports/upload-signer.js';
import { T0 } from '../../../support/builders.js';

const KEY = 'uploads/slots/tenant-a/upl_abcdefghijklmnopqrstuvwx/document';
const client = new S3Client({
  region: 'eu-west-1',
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' },
});
afterAll(() => {
  client.destroy();
});

function aPolicy(overrides: Partial<UploadPolicy> = {}): UploadPolicy {
  return {
    uploadId: 'upl_abcdefghijklmnopqrstuvwx',
    key: KEY,
    tenant: 'tenant-a',
    maxBytes: 50 * 1024 * 1024,
    expiresAt: new Date(T0.getTime() + 15 * 60_000),
    contentType: null,
    ...overrides,
  };
}

/** The signed policy document: `{ expiration, conditions }`. */
function policyOf(fields: Record<string, string>): { expiration: string; conditions: unknown[] } {
  return JSON.parse(Buffer.from(fields.Policy ?? '', 'base64').toString('utf8')) as {
    expiration: string;
    conditions: unknown[];
  };
}

describe('S3UploadSigner', () => {
  it('signs a POST policy fixing the exact key and a content-length-range of 1 to the maximum', async () => {
    // Arrange
    const signer = new S3UploadSigner(client, 'docparse-bucket');
    // Act
    const { url, fields } = await signer.sign(aPolicy());
    // Assert
    expect(url).toBe('https://docparse-bucket.s3.eu-west-1.amazonaws.com/');
    expect(fields).toMatchObject({
      key: KEY,
      bucket: 'docparse-bucket',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Security-Token': 'token',
    });
    expect(fields['X-Amz-Signature']).toMatch(/^[0-9a-f]{64}$/);
    const { conditions } = policyOf(fields);
    expect(conditions).toContainEqual({ key: KEY });
    expect(conditions).toContainEqual(['content-length-range', 1, 50 * 1024 * 1024]);
    expect(conditions).toContainEqual({ bucket: 'docparse-bucket' });
    expect(conditions).not.toContainEqual(expect.arrayContaining(['starts-with']));
  });

  it('expires the policy at the requested instant, counted from its clock', async () => {
    // Arrange
    const signer = new S3UploadSigner(client, 'docparse-bucket', () => T0.getTime());
    const realNow = Date.now();
    // Act
    const { fields } = await signer.sign(aPolicy());
    // Assert: the SDK signs from the real clock; the lifetime is the requested 15 minutes.
    const expiration = Date.parse(policyOf(fields).expiration);
    expect(expiration - realNow).toBeGreaterThanOrEqual(15 * 60_000 - 2000);
    expect(expiration - realNow).toBeLessThanOrEqual(15 * 60_000 + 2000);
  });

  it('fixes the Content-Type field when a content type is given', async () => {
    // Arrange
    const signer = new S3UploadSigner(client, 'docparse-bucket');
    // Act
    const { fields } = await signer.sign(aPolicy({ contentType: 'application/pdf' }));
    // Assert
    expect(fields['Content-Type']).toBe('application/pdf');
    expect(policyOf(fields).conditions).toContainEqual({ 'Content-Type': 'application/pdf' });
  });
});
