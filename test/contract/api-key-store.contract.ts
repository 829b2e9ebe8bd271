import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { withKeyId } from '../../functions/core/app/api-keys.js';
import { ConflictError } from '../../functions/core/domain/errors.js';
import type {
  ApiKeyInput,
  ApiKeyRecord,
  ApiKeyStore,
} from '../../functions/core/ports/api-key-store.js';

/** A key record for a fresh random key, with the id its hash gives. */
export function anApiKeyRecord(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return withKeyId({
    keyHash: createHash('sha256').update(`sk-${randomUUID()}`).digest('hex'),
    tenant: 'tenant-a',
    plan: 'pro',
    createdAt: '2025-01-02T03:04:05.000Z',
    ...overrides,
    keyId: undefined,
  });
}

/** A tenant id no other test uses (adapters on a shared table see every test's keys). */
export const aTenant = (): string => `tenant-${randomUUID()}`;

/** Two different hashes with the same id. */
function twoHashesWithOneId(): [string, string] {
  const prefix = randomBytes(6).toString('hex');
  return [prefix + randomBytes(26).toString('hex'), prefix + randomBytes(26).toString('hex')];
}

/**
 * The ApiKeyStore contract: what every adapter (DynamoDB, in memory) must do.
 *
 * `factory` is called inside each test, after the caller's `beforeAll` has run. Adapters may share
 * one table between tests, so tests that list keys use their own tenants and keys.
 */
export function describeApiKeyStoreContract(
  name: string,
  factory: () => ApiKeyStore | Promise<ApiKeyStore>,
): void {
  describe(`${name} (ApiKeyStore contract)`, () => {
    it('returns the key record stored under its hash', async () => {
      // Arrange
      const store = await factory();
      const record = anApiKeyRecord();
      // Act
      await store.put(record);
      const read = await store.get(record.keyHash);
      // Assert
      expect(read).toStrictEqual(record);
    });

    it('returns undefined for an unknown hash', async () => {
      // Arrange
      const store = await factory();
      // Act
      const read = await store.get(anApiKeyRecord().keyHash);
      // Assert
      expect(read).toBeUndefined();
    });

    it('returns a copy that does not change the stored key when mutated', async () => {
      // Arrange
      const store = await factory();
      const record = anApiKeyRecord({ plan: 'free' });
      await store.put(record);
      const read = (await store.get(record.keyHash))!;
      // Act
      read.plan = 'scale';
      read.revokedAt = '2025-01-03T00:00:00.000Z';
      // Assert
      expect(await store.get(record.keyHash)).toStrictEqual(record);
    });

    it('replaces the record on a second put of the same hash', async () => {
      // Arrange
      const store = await factory();
      const record = anApiKeyRecord({ plan: 'free' });
      await store.put(record);
      // Act
      await store.put({ ...record, plan: 'scale' });
      // Assert
      expect((await store.get(record.keyHash))?.plan).toBe('scale');
    });

    it('keeps the keys of different tenants apart', async () => {
      // Arrange
      const store = await factory();
      const first = anApiKeyRecord({ tenant: 'tenant-a' });
      const second = anApiKeyRecord({ tenant: 'tenant-b', plan: 'free' });
      // Act
      await Promise.all([store.put(first), store.put(second)]);
      // Assert
      expect(await store.get(first.keyHash)).toStrictEqual(first);
      expect(await store.get(second.keyHash)).toStrictEqual(second);
    });

    it('gives a key stored without an id the id key_ and the first 12 hex characters of its hash', async () => {
      // Arrange
      const store = await factory();
      const input: ApiKeyInput = { ...anApiKeyRecord(), keyId: undefined };
      // Act
      await store.put(input);
      // Assert
      expect((await store.get(input.keyHash))?.keyId).toBe(`key_${input.keyHash.slice(0, 12)}`);
    });

    it('keeps the label, the revocation time and the predecessor of a key', async () => {
      // Arrange
      const store = await factory();
      const record = anApiKeyRecord({
        label: 'ci runner',
        revokedAt: '2025-02-03T04:05:06.000Z',
        rotatedFrom: 'key_0123456789ab',
      });
      // Act
      await store.put(record);
      // Assert
      expect(await store.get(record.keyHash)).toStrictEqual(record);
      expect(await store.getById(record.keyId)).toStrictEqual(record);
    });

    it('finds a key by its id', async () => {
      // Arrange
      const store = await factory();
      const record = anApiKeyRecord({ label: 'by id' });
      await store.put(record);
      // Act
      const read = await store.getById(record.keyId);
      // Assert
      expect(read).toStrictEqual(record);
    });

    it('returns undefined for an unknown id', async () => {
      // Arrange
      const store = await factory();
      // Act
      const read = await store.getById(anApiKeyRecord().keyId);
      // Assert
      expect(read).toBeUndefined();
    });

    it('rejects a keyId that is not the one its hash gives with RangeError', async () => {
      // Arrange
      const store = await factory();
      const record = anApiKeyRecord();
      // Act
      const result = store.put({ ...record, keyId: 'key_000000000000' });
      // Assert
      await expect(result).rejects.toBeInstanceOf(RangeError);
      expect(await store.get(record.keyHash)).toBeUndefined();
    });

    it('rejects a second key with the id of another with ConflictError, keeping the first', async () => {
      // Arrange
      const store = await factory();
      const [firstHash, secondHash] = twoHashesWithOneId();
      const first = anApiKeyRecord({ keyHash: firstHash });
      await store.put(first);
      // Act
      const result = store.put(anApiKeyRecord({ keyHash: secondHash }));
      // Assert
      await expect(result).rejects.toBeInstanceOf(ConflictError);
      expect(await store.get(secondHash)).toBeUndefined();
      expect(await store.getById(first.keyId)).toStrictEqual(first);
    });

    it("lists a tenant's keys in creation order, and only theirs", async () => {
      // Arrange
      const store = await factory();
      const tenant = aTenant();
      const later = anApiKeyRecord({ tenant, createdAt: '2025-03-01T00:00:00.000Z' });
      const earlier = anApiKeyRecord({ tenant, createdAt: '2025-01-01T00:00:00.000Z' });
      const revoked = anApiKeyRecord({
        tenant,
        createdAt: '2025-02-01T00:00:00.000Z',
        revokedAt: '2025-02-02T00:00:00.000Z',
      });
      const elsewhere = anApiKeyRecord({ tenant: aTenant() });
      await Promise.all([later, earlier, revoked, elsewhere].map((r) => store.put(r)));
      // Act
      const listed = await store.list(tenant);
      // Assert
      expect(listed).toStrictEqual([earlier, revoked, later]);
    });

    it('orders keys created at the same time by id', async () => {
      // Arrange
      const store = await factory();
      const tenant = aTenant();
      const records = [1, 2, 3].map(() => anApiKeyRecord({ tenant }));
      await Promise.all(records.map((r) => store.put(r)));
      // Act
      const listed = await store.list(tenant);
      // Assert
      expect(listed.map((r) => r.keyId)).toStrictEqual(records.map((r) => r.keyId).sort());
    });

    it('returns an empty list for a tenant without keys', async () => {
      // Arrange
      const store = await factory();
      // Act
      const listed = await store.list(aTenant());
      // Assert
      expect(listed).toStrictEqual([]);
    });

    it('lists the keys of every tenant when no tenant is given', async () => {
      // Arrange
      const store = await factory();
      const first = anApiKeyRecord({ tenant: aTenant() });
      const second = anApiKeyRecord({ tenant: aTenant(), plan: 'free', label: 'second' });
      await Promise.all([store.put(first), store.put(second)]);
      // Act
      const listed = await store.list();
      // Assert
      expect(listed).toContainEqual(first);
      expect(listed).toContainEqual(second);
    });

    it("moves a key to the new tenant's list when a put changes its tenant", async () => {
      // Arrange
      const store = await factory();
      const [from, to] = [aTenant(), aTenant()];
      const record = anApiKeyRecord({ tenant: from });
      await store.put(record);
      // Act
      await store.put({ ...record, tenant: to });
      // Assert
      expect(await store.list(from)).toStrictEqual([]);
      expect(await store.list(to)).toStrictEqual([{ ...record, tenant: to }]);
      expect((await store.get(record.keyHash))?.tenant).toBe(to);
    });

    it('revokes a key by id, as get, getById and list then show', async () => {
      // Arrange
      const store = await factory();
      const record = anApiKeyRecord({ tenant: aTenant() });
      await store.put(record);
      const at = new Date('2025-04-05T06:07:08.000Z');
      // Act
      const revoked = await store.revoke(record.keyId, at);
      // Assert
      const expected = { ...record, revokedAt: '2025-04-05T06:07:08.000Z' };
      expect(revoked).toStrictEqual(expected);
      expect(await store.get(record.keyHash)).toStrictEqual(expected);
      expect(await store.getById(record.keyId)).toStrictEqual(expected);
      expect(await store.list(record.tenant)).toStrictEqual([expected]);
      expect(await store.list()).toContainEqual(expected);
    });

    it('keeps the first revocation time when a key is revoked again', async () => {
      // Arrange
      const store = await factory();
      const record = anApiKeyRecord();
      await store.put(record);
      await store.revoke(record.keyId, new Date('2025-04-05T06:07:08.000Z'));
      // Act
      const again = await store.revoke(record.keyId, new Date('2025-09-09T09:09:09.000Z'));
      // Assert
      expect(again?.revokedAt).toBe('2025-04-05T06:07:08.000Z');
      expect((await store.get(record.keyHash))?.revokedAt).toBe('2025-04-05T06:07:08.000Z');
    });

    it('returns undefined when revoking an unknown id, and creates no key', async () => {
      // Arrange
      const store = await factory();
      const unknown = anApiKeyRecord();
      // Act
      const revoked = await store.revoke(unknown.keyId, new Date());
      // Assert
      expect(revoked).toBeUndefined();
      expect(await store.getById(unknown.keyId)).toBeUndefined();
      expect(await store.get(unknown.keyHash)).toBeUndefined();
      expect((await store.list()).map((r) => r.keyId)).not.toContain(unknown.keyId);
    });

    it('revokes only the key named, not the other keys of its tenant', async () => {
      // Arrange
      const store = await factory();
      const tenant = aTenant();
      const old = anApiKeyRecord({ tenant, createdAt: '2025-01-01T00:00:00.000Z' });
      const replacement = anApiKeyRecord({
        tenant,
        createdAt: '2025-01-02T00:00:00.000Z',
        rotatedFrom: old.keyId,
      });
      await Promise.all([store.put(old), store.put(replacement)]);
      // Act
      await store.revoke(old.keyId, new Date('2025-01-03T00:00:00.000Z'));
      // Assert
      expect(await store.get(replacement.keyHash)).toStrictEqual(replacement);
      expect((await store.list(tenant)).map((r) => r.revokedAt)).toStrictEqual([
        '2025-01-03T00:00:00.000Z',
        undefined,
      ]);
    });
  });
}
