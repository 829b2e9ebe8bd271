import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../functions/core/domain/errors.js';
import type { WebhookSecretStore } from '../../functions/core/ports/webhook-sender.js';

/**
 * The WebhookSecretStore contract: what every adapter (DynamoDB, in memory) must do.
 *
 * `factory` is called inside each test, after the caller's `beforeAll` has run.
 */
export function describeWebhookSecretStoreContract(
  name: string,
  factory: () => WebhookSecretStore | Promise<WebhookSecretStore>,
): void {
  describe(`${name} (WebhookSecretStore contract)`, () => {
    const aTenant = () => `tenant-${randomUUID()}`;

    it('creates a whsec_ secret on first use and returns the same one afterwards', async () => {
      // Arrange
      const store = await factory();
      const tenant = aTenant();
      // Act
      const created = await store.getOrCreate(tenant);
      const again = await store.getOrCreate(tenant);
      const read = await store.get(tenant);
      // Assert
      expect(created).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(again).toBe(created);
      expect(read).toBe(created);
    });

    it('gives each tenant its own secret', async () => {
      // Arrange
      const store = await factory();
      // Act
      const [a, b] = await Promise.all([
        store.getOrCreate(aTenant()),
        store.getOrCreate(aTenant()),
      ]);
      // Assert
      expect(a).not.toBe(b);
    });

    it('agrees on one secret when ten first calls race', async () => {
      // Arrange
      const store = await factory();
      const tenant = aTenant();
      // Act
      const secrets = await Promise.all(
        Array.from({ length: 10 }, () => store.getOrCreate(tenant)),
      );
      // Assert
      expect(new Set(secrets).size).toBe(1);
      expect(await store.get(tenant)).toBe(secrets[0]);
    });

    it('throws NotFoundError from get for a tenant without a secret', async () => {
      // Arrange
      const store = await factory();
      // Act
      const reading = store.get(aTenant());
      // Assert
      await expect(reading).rejects.toBeInstanceOf(NotFoundError);
    });
  });
}
