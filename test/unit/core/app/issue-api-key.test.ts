import { describe, expect, it } from 'vitest';
import { authenticate } from '../../../../functions/core/app/authenticate.js';
import { issueApiKey } from '../../../../functions/core/app/issue-api-key.js';
import { InMemoryApiKeyStore } from '../../../support/fakes.js';

describe('issueApiKey', () => {
  it('returns a new key that authenticates as the tenant and plan, storing only its hash', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    // Act
    const key = await issueApiKey(store, 'acme', 'pro', new Date('2026-01-02T03:04:05Z'));
    // Assert
    expect(key).toMatch(/^dp_[A-Za-z0-9_-]{32}$/);
    const record = await authenticate(store, key);
    expect(record).toMatchObject({
      tenant: 'acme',
      plan: 'pro',
      createdAt: '2026-01-02T03:04:05.000Z',
    });
    expect(record.keyHash).not.toContain(key);
    expect(await store.get(key)).toBeUndefined();
  });

  it('gives a different key each time', async () => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    // Act
    const keys = await Promise.all(
      [1, 2, 3].map(() => issueApiKey(store, 'acme', 'free', new Date())),
    );
    // Assert
    expect(new Set(keys).size).toBe(3);
  });

  it.each(['', '..', 'a/b', 'has space'])('refuses the tenant id %j', async (tenant) => {
    // Arrange
    const store = new InMemoryApiKeyStore();
    // Act / Assert
    await expect(issueApiKey(store, tenant, 'free', new Date())).rejects.toThrow('tenant');
  });
});
