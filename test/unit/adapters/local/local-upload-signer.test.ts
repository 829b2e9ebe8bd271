import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  LOCAL_UPLOAD_PATH,
  LocalUploadSigner,
  UploadSignatureError,
  loadUploadSecret,
  uploadSecretFile,
} from '../../../../functions/adapters/local/local-upload-signer.js';
import type { UploadPolicy } from '../../../../functions/core/ports/upload-signer.js';
import { ManualClock, T0 } from '../../../support/builders.js';

const SECRET = new Uint8Array(32).fill(7);
const OTHER_SECRET = new Uint8Array(32).fill(9);
const UPLOAD_ID = 'upl_abcdefghijklmnopqrstuvwx';

function aPolicy(overrides: Partial<UploadPolicy> = {}): UploadPolicy {
  return {
    uploadId: UPLOAD_ID,
    key: `uploads/slots/tenant-a/${UPLOAD_ID}/document`,
    tenant: 'tenant-a',
    maxBytes: 1000,
    expiresAt: new Date(T0.getTime() + 15 * 60_000),
    contentType: null,
    ...overrides,
  };
}

function aSigner(clock = new ManualClock(), secret = SECRET) {
  return new LocalUploadSigner(secret, {
    baseUrl: 'http://127.0.0.1:8080',
    now: () => clock.now(),
  });
}

/** The policy field's JSON. */
function decoded(fields: Record<string, string>): Record<string, unknown> {
  return JSON.parse(Buffer.from(fields.policy ?? '', 'base64').toString('utf8')) as Record<
    string,
    unknown
  >;
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('LocalUploadSigner', () => {
  it("signs a form for the local server's upload url with the key, size, expiry and tenant", async () => {
    // Arrange
    const signer = aSigner();
    signer.serveAt('http://127.0.0.1:40123/');
    // Act
    const form = await signer.sign(aPolicy({ contentType: 'application/pdf' }));
    // Assert
    expect(form.url).toBe(`http://127.0.0.1:40123/v1/uploads/${UPLOAD_ID}`);
    expect(LOCAL_UPLOAD_PATH.exec(new URL(form.url).pathname)?.[1]).toBe(UPLOAD_ID);
    expect(form.fields).toMatchObject({
      key: `uploads/slots/tenant-a/${UPLOAD_ID}/document`,
      'Content-Type': 'application/pdf',
    });
    expect(form.fields.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(decoded(form.fields)).toEqual({
      upload_id: UPLOAD_ID,
      key: `uploads/slots/tenant-a/${UPLOAD_ID}/document`,
      tenant: 'tenant-a',
      max_bytes: 1000,
      expires_at: '2025-03-04T05:21:07.000Z',
      content_type: 'application/pdf',
    });
  });

  it('accepts the fields it signed, until the expiry instant included', async () => {
    // Arrange
    const clock = new ManualClock();
    const signer = aSigner(clock);
    const { fields } = await signer.sign(aPolicy({ contentType: 'application/pdf' }));
    clock.advance(15 * 60_000);
    // Act
    const verified = signer.verify(UPLOAD_ID, fields);
    // Assert
    expect(verified).toEqual({
      key: `uploads/slots/tenant-a/${UPLOAD_ID}/document`,
      tenant: 'tenant-a',
      maxBytes: 1000,
      contentType: 'application/pdf',
    });
  });

  it('reads field names case-insensitively, as S3 does', async () => {
    // Arrange
    const signer = aSigner();
    const { fields } = await signer.sign(aPolicy());
    const renamed = Object.fromEntries(
      Object.entries(fields).map(([k, v]) => [k.toUpperCase(), v]),
    );
    // Act
    const verified = signer.verify(UPLOAD_ID, renamed);
    // Assert
    expect(verified.maxBytes).toBe(1000);
  });

  it('refuses a tampered policy', async () => {
    // Arrange
    const signer = aSigner();
    const { fields } = await signer.sign(aPolicy());
    const policy = { ...decoded(fields), max_bytes: 10 ** 12 };
    const tampered = {
      ...fields,
      policy: Buffer.from(JSON.stringify(policy)).toString('base64'),
    };
    // Act
    const verify = () => signer.verify(UPLOAD_ID, tampered);
    // Assert
    expect(verify).toThrow(UploadSignatureError);
    expect(verify).toThrow(/signature does not match its policy/);
  });

  it('refuses a tampered signature, and one that is not hex', async () => {
    // Arrange
    const signer = aSigner();
    const { fields } = await signer.sign(aPolicy());
    const flipped = fields.signature!.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    // Act
    const tampered = () => signer.verify(UPLOAD_ID, { ...fields, signature: flipped });
    const garbage = () => signer.verify(UPLOAD_ID, { ...fields, signature: 'not-a-signature' });
    // Assert
    expect(tampered).toThrow(/signature does not match its policy/);
    expect(garbage).toThrow(/signature does not match its policy/);
  });

  it('refuses a form signed with another secret (another data directory)', async () => {
    // Arrange
    const { fields } = await aSigner(new ManualClock(), OTHER_SECRET).sign(aPolicy());
    // Act
    const verify = () => aSigner().verify(UPLOAD_ID, fields);
    // Assert
    expect(verify).toThrow(UploadSignatureError);
    expect(verify).toThrow(/signature does not match its policy/);
  });

  it('refuses an expired form, naming when it expired', async () => {
    // Arrange
    const clock = new ManualClock();
    const signer = aSigner(clock);
    const { fields } = await signer.sign(aPolicy());
    clock.advance(15 * 60_000 + 1);
    // Act
    const verify = () => signer.verify(UPLOAD_ID, fields);
    // Assert
    expect(verify).toThrow(UploadSignatureError);
    expect(verify).toThrow(
      'the upload form expired at 2025-03-04T05:21:07.000Z: create a new one with POST /v1/uploads',
    );
  });

  it('refuses a form posted to the url of another upload', async () => {
    // Arrange
    const signer = aSigner();
    const { fields } = await signer.sign(aPolicy());
    // Act
    const verify = () => signer.verify('upl_zzzzzzzzzzzzzzzzzzzzzzzz', fields);
    // Assert
    expect(verify).toThrow(/signed for upload upl_abcdefghijklmnopqrstuvwx/);
  });

  it('refuses a key or content type other than the signed ones', async () => {
    // Arrange
    const signer = aSigner();
    const { fields } = await signer.sign(aPolicy({ contentType: 'application/pdf' }));
    // Act
    const otherKey = () => signer.verify(UPLOAD_ID, { ...fields, key: 'results/tenant-a/x.json' });
    const otherType = () => signer.verify(UPLOAD_ID, { ...fields, 'Content-Type': 'text/html' });
    // Assert
    expect(otherKey).toThrow(/the "key" field does not match the signed policy/);
    expect(otherType).toThrow(/the "Content-Type" field does not match the signed policy/);
  });

  it('refuses a form without policy or signature', async () => {
    // Arrange
    const signer = aSigner();
    const { fields } = await signer.sign(aPolicy());
    const unsigned = Object.fromEntries(Object.entries(fields).filter(([k]) => k !== 'signature'));
    // Act
    const verify = () => signer.verify(UPLOAD_ID, unsigned);
    // Assert
    expect(verify).toThrow(/missing "policy" or "signature" field/);
  });

  it('throws for a secret shorter than 32 bytes', () => {
    // Act
    const create = () => new LocalUploadSigner(new Uint8Array(16), { baseUrl: 'http://x' });
    // Assert
    expect(create).toThrow(/32 bytes/);
  });
});

describe('loadUploadSecret', () => {
  it('creates a 32-byte secret readable only by its owner, and returns the same one later', async () => {
    // Arrange
    const dir = join(await mkdtemp(join(tmpdir(), 'upload-secret-')), 'data');
    dirs.push(dir);
    // Act
    const first = await loadUploadSecret(dir);
    const second = await loadUploadSecret(dir);
    // Assert
    expect(first.byteLength).toBe(32);
    expect(Buffer.from(second).equals(Buffer.from(first))).toBe(true);
    expect((await readFile(uploadSecretFile(dir), 'utf8')).trim()).toBe(
      Buffer.from(first).toString('hex'),
    );
    expect((await stat(uploadSecretFile(dir))).mode & 0o777).toBe(0o600);
  });

  it('keeps forms valid across restarts of the same data directory', async () => {
    // Arrange
    const dir = await mkdtemp(join(tmpdir(), 'upload-secret-'));
    dirs.push(dir);
    const before = new LocalUploadSigner(await loadUploadSecret(dir), { baseUrl: 'http://x' });
    const { fields } = await before.sign(aPolicy({ expiresAt: new Date(Date.now() + 60_000) }));
    // Act
    const after = new LocalUploadSigner(await loadUploadSecret(dir), { baseUrl: 'http://x' });
    // Assert
    expect(after.verify(UPLOAD_ID, fields).key).toBe(fields.key);
  });
});
