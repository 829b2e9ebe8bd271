import { describe, expect, it, vi } from 'vitest';
import {
  apiKeyId,
  byCreation,
  createApiKey,
  isApiKeyId,
  revokeApiKey,
  rotateApiKey,
  withKeyId,
} from '../../../../functions/core/app/api-keys.js';
import { authenticate, hashApiKey } from '../../../../functions/core/app/authenticate.js';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  UnauthenticatedError,
} from '../../../../functions/core/domain/errors.js';
import { InMemoryApiKeyStore } from '../../../support/fakes.js';
import { anApiKeyRecord } from '../../../contract/api-key-store.contract.js';

const T0 = new Date('2026-01-02T03:04:05.000Z');
const T1 = new Date('2026-02-03T04:05:06.000Z');
const T2 = new Date('2026-03-04T05:06:07.000Z');

describe('apiKeyId', () => {
  it('is key_ and the first 12 hex characters of the hash', () => {
    // Arrange
    const hash = hashApiKey('dp_example');
    // Act
    const id = apiKeyId(hash);
    // Assert
    expect(id).toBe(`key_${hash.slice(0, 12)}`);
    expect(isApiKeyId(id)).toBe(true);
  });

  it.each(['key_0123456789a', 'key_0123456789abc', 'key_0123456789AB', 'dp_0123456789ab', ''])(
    'does not take %j for a key id',
    (value) => {
      // Act / Assert
      expect(isApiKeyId(value)).toBe(false);
    },
  );

  it('throws RangeError when a record names an id its hash does not give', () => {
    // Arrange
    const record = anApiKeyRecord();
    // Act / Assert
    expect(() => withKeyId({ ...record, keyId: 'key_000000000000' })).toThrow(RangeError);
    expect(withKeyId({ ...record, keyId: undefined }).keyId).toBe(apiKeyId(record.keyHash));
  });

  it('orders keys by creation time, then by id', () => {
    // Arrange
    const a = anApiKeyRecord({ createdAt: T0.toISOString(), keyHash: 'a'.repeat(64) });
    const b = anApiKeyRecord({ createdAt: T0.toISOString(), keyHash: 'b'.repeat(64) });
    const c = anApiKeyRecord({ createdAt: T1.toISOString(), keyHash: '0'.repeat(64) });
    // Act
    const sorted = [c, b, a].sort(byCreation);
    // Assert
    expect(sorted).toStrictEqual([a, b, c]);
    expect(byCreation(a, a)).toBe(0);
  });
});

describe('createApiKey', () => {
  it('issues a key whose record carries its id and label, storing only its hash', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    // Act
    const { key, record } = await createApiKey(
      store,
      { tenant: 'acme', plan: 'scale', label: 'nightly batch' },
      T0,
    );
    // Assert
    expect(key).toMatch(/^dp_[A-Za-z0-9_-]{32}$/);
    expect(record).toStrictEqual({
      keyId: apiKeyId(hashApiKey(key)),
      keyHash: hashApiKey(key),
      tenant: 'acme',
      plan: 'scale',
      createdAt: T0.toISOString(),
      label: 'nightly batch',
    });
    expect(await store.getById(record.keyId)).toStrictEqual(record);
    expect(JSON.stringify(await store.list())).not.toContain(key);
  });

  it.each(['', '   ', 'x'.repeat(101), 'two\nlines', 'bell\u0007'])(
    'rejects the label %j with BadRequestError',
    async (label) => {
      // Arrange
      const store = new InMemoryApiKeyStore();
      // Act
      const result = createApiKey(store, { tenant: 'acme', plan: 'free', label }, T0);
      // Assert
      await expect(result).rejects.toBeInstanceOf(BadRequestError);
      expect(await store.list()).toStrictEqual([]);
    },
  );

  it('rejects an invalid tenant id with BadRequestError', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    // Act
    const result = createApiKey(store, { tenant: '../other', plan: 'free' }, T0);
    // Assert
    await expect(result).rejects.toThrow(BadRequestError);
  });

  it('draws another key when the id of the first is taken', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    const put = vi
      .spyOn(store, 'put')
      .mockRejectedValueOnce(new ConflictError('id taken'))
      .mockRejectedValueOnce(new ConflictError('id taken'));
    // Act
    const { key } = await createApiKey(store, { tenant: 'acme', plan: 'free' }, T0);
    // Assert
    expect(put).toHaveBeenCalledTimes(3);
    expect(await authenticate(store, key)).toMatchObject({ tenant: 'acme' });
  });

  it('throws ConflictError when three draws in a row hit taken ids', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    const put = vi.spyOn(store, 'put').mockRejectedValue(new ConflictError('id taken'));
    // Act
    const result = createApiKey(store, { tenant: 'acme', plan: 'free' }, T0);
    // Assert
    await expect(result).rejects.toBeInstanceOf(ConflictError);
    expect(put).toHaveBeenCalledTimes(3);
  });

  it('rethrows a failure other than a taken id at once', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    const put = vi.spyOn(store, 'put').mockRejectedValue(new Error('table unavailable'));
    // Act
    const result = createApiKey(store, { tenant: 'acme', plan: 'free' }, T0);
    // Assert
    await expect(result).rejects.toThrow('table unavailable');
    expect(put).toHaveBeenCalledTimes(1);
  });
});

describe('rotateApiKey', () => {
  it('issues a new key for the same tenant, plan and label that names the old one', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    const old = await createApiKey(store, { tenant: 'acme', plan: 'pro', label: 'ci' }, T0);
    // Act
    const rotated = await rotateApiKey(store, old.record.keyId, T1);
    // Assert
    expect(rotated.previous).toStrictEqual(old.record);
    expect(rotated.key).not.toBe(old.key);
    expect(rotated.record).toMatchObject({
      tenant: 'acme',
      plan: 'pro',
      label: 'ci',
      createdAt: T1.toISOString(),
      rotatedFrom: old.record.keyId,
    });
  });

  it('keeps both keys working until the old one is revoked, then only the new one', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    const old = await createApiKey(store, { tenant: 'acme', plan: 'pro' }, T0);
    // Act
    const rotated = await rotateApiKey(store, old.record.keyId, T1);
    // Assert
    expect(await authenticate(store, old.key)).toMatchObject({ tenant: 'acme' });
    expect(await authenticate(store, rotated.key)).toMatchObject({ tenant: 'acme' });
    // Act
    await revokeApiKey(store, old.record.keyId, T2);
    // Assert
    await expect(authenticate(store, old.key)).rejects.toThrow(
      new UnauthenticatedError('API key revoked'),
    );
    expect(await authenticate(store, rotated.key)).toMatchObject({
      tenant: 'acme',
      plan: 'pro',
      rotatedFrom: old.record.keyId,
    });
  });

  it('issues the replacement of a key revoked already', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    const old = await createApiKey(store, { tenant: 'acme', plan: 'free' }, T0);
    await revokeApiKey(store, old.record.keyId, T1);
    // Act
    const rotated = await rotateApiKey(store, old.record.keyId, T2);
    // Assert
    expect(rotated.previous.revokedAt).toBe(T1.toISOString());
    expect(await authenticate(store, rotated.key)).toMatchObject({ tenant: 'acme' });
    expect(rotated.record).not.toHaveProperty('label');
  });

  it('throws NotFoundError for an unknown key id', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    // Act
    const result = rotateApiKey(store, 'key_000000000000', T0);
    // Assert
    await expect(result).rejects.toBeInstanceOf(NotFoundError);
    await expect(result).rejects.toThrow('no API key has the id key_000000000000');
    expect(await store.list()).toStrictEqual([]);
  });
});

describe('revokeApiKey', () => {
  it('marks the key revoked at the given time and keeps the first time when repeated', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    const { record } = await createApiKey(store, { tenant: 'acme', plan: 'free' }, T0);
    // Act
    const first = await revokeApiKey(store, record.keyId, T1);
    const again = await revokeApiKey(store, record.keyId, T2);
    // Assert
    expect(first).toStrictEqual({ ...record, revokedAt: T1.toISOString() });
    expect(again.revokedAt).toBe(T1.toISOString());
  });

  it('throws NotFoundError for an unknown key id', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    // Act
    const result = revokeApiKey(store, 'key_000000000000', T0);
    // Assert
    await expect(result).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('authenticate', () => {
  it('rejects a revoked key with UnauthenticatedError "API key revoked"', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    const { key, record } = await createApiKey(store, { tenant: 'acme', plan: 'pro' }, T0);
    await store.revoke(record.keyId, T1);
    // Act
    const result = authenticate(store, key);
    // Assert
    await expect(result).rejects.toBeInstanceOf(UnauthenticatedError);
    await expect(result).rejects.toThrow('API key revoked');
  });

  it('accepts a key stored before ids existed, with the id of its hash', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    const keyHash = hashApiKey('legacy-key');
    await store.put({ keyHash, tenant: 'acme', plan: 'free', createdAt: T0.toISOString() });
    // Act
    const caller = await authenticate(store, 'legacy-key');
    // Assert
    expect(caller).toMatchObject({ tenant: 'acme', keyId: apiKeyId(keyHash) });
  });
});
