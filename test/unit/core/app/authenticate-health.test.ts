import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authenticate, hashApiKey } from '../../../../functions/core/app/authenticate.js';
import { SERVICE_VERSION, checkHealth } from '../../../../functions/core/app/check-health.js';
import { UnauthenticatedError } from '../../../../functions/core/domain/errors.js';
import { HealthResponse } from '../../../../functions/core/domain/schemas.js';
import {
  API_KEY,
  FakePageProvider,
  TENANT,
  anAppWorld,
  providerRegistry,
} from '../../../support/builders.js';

describe('authenticate', () => {
  it('resolves a known key to its tenant and plan', async () => {
    // Arrange
    const { apiKeys } = await anAppWorld();
    // Act
    const caller = await authenticate(apiKeys, `  ${API_KEY} `);
    // Assert
    expect(caller).toMatchObject({ tenant: TENANT, plan: 'pro' });
  });

  it('stores keys only as their SHA-256', () => {
    // Act
    const hash = hashApiKey('secret');
    // Assert
    expect(hash).toBe(createHash('sha256').update('secret').digest('hex'));
  });

  it.each([undefined, '', '   '])(
    'rejects a missing key (%j) with UnauthenticatedError',
    async (key) => {
      // Arrange
      const { apiKeys } = await anAppWorld();
      // Act
      const result = authenticate(apiKeys, key);
      // Assert
      await expect(result).rejects.toBeInstanceOf(UnauthenticatedError);
      await expect(result).rejects.toThrow('X-API-Key');
    },
  );

  it('rejects an unknown key with UnauthenticatedError', async () => {
    // Arrange
    const { apiKeys } = await anAppWorld();
    // Act
    const result = authenticate(apiKeys, 'not-a-key');
    // Assert
    await expect(result).rejects.toThrow(new UnauthenticatedError('invalid API key'));
  });
});

describe('checkHealth', () => {
  it('is healthy without providers for an anonymous caller', async () => {
    // Arrange
    const world = await anAppWorld();
    // Act
    const health = await checkHealth(world, { withProviders: true, apiKey: undefined });
    // Assert
    expect(HealthResponse.parse(health)).toMatchObject({
      status: 'healthy',
      version: SERVICE_VERSION,
    });
    expect(health).not.toHaveProperty('providers');
    expect(health.uptime_seconds).toBeGreaterThanOrEqual(0);
  });

  it('lists the providers of every tier for a caller with a valid key', async () => {
    // Arrange
    const world = await anAppWorld();
    // Act
    const health = await checkHealth(world, { withProviders: true, apiKey: API_KEY });
    // Assert
    expect(health.providers).toEqual({
      'pdf-text': { state: 'IDLE', healthy: true },
      ocr: { state: 'IDLE', healthy: true },
    });
  });

  it('omits the providers for an invalid key or when not asked', async () => {
    // Arrange
    const world = await anAppWorld();
    // Act
    const invalid = await checkHealth(world, { withProviders: true, apiKey: 'wrong' });
    const notAsked = await checkHealth(world, { withProviders: false, apiKey: API_KEY });
    // Assert
    expect(invalid).not.toHaveProperty('providers');
    expect(notAsked).not.toHaveProperty('providers');
  });

  it('is unhealthy when the request store fails', async () => {
    // Arrange
    const world = await anAppWorld();
    world.requests.get = () => Promise.reject(new Error('connection refused'));
    // Act
    const health = await checkHealth(world, { withProviders: true, apiKey: API_KEY });
    // Assert
    expect(health.status).toBe('unhealthy');
    expect(health).not.toHaveProperty('providers');
  });

  it('is unhealthy when a tier has no provider', async () => {
    // Arrange
    const provider = new FakePageProvider('pdf-text');
    const world = await anAppWorld({
      providers: providerRegistry([{ provider, needsTextLayer: true }], { premium: [] }),
    });
    // Act
    const health = await checkHealth(world, { withProviders: false, apiKey: undefined });
    // Assert
    expect(health.status).toBe('unhealthy');
  });
});
