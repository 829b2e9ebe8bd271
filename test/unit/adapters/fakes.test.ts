import { describe, expect, it } from 'vitest';
import { describeApiKeyStoreContract } from '../../contract/api-key-store.contract.js';
import { describeBatchStoreContract } from '../../contract/batch-store.contract.js';
import { describeWebhookSecretStoreContract } from '../../contract/webhook-secret-store.contract.js';
import { describeBreakerStoreContract } from '../../contract/breaker-store.contract.js';
import { describeEventLogContract } from '../../contract/event-log.contract.js';
import { describeObjectStoreContract } from '../../contract/object-store.contract.js';
import { describeRequestStoreContract } from '../../contract/request-store.contract.js';
import { describeUsageStoreContract } from '../../contract/usage-store.contract.js';
import {
  InMemoryApiKeyStore,
  InMemoryBatchStore,
  InMemoryWebhookSecretStore,
  InMemoryEventLog,
  InMemoryObjectStore,
  InMemoryRequestStore,
  InMemoryUsageStore,
} from '../../support/fakes.js';
import { FakeBreakerStore } from '../../support/fake-breaker-store.js';

// The fakes the core's unit tests use must behave like the real adapters.
describeObjectStoreContract('InMemoryObjectStore', () => new InMemoryObjectStore());
describeRequestStoreContract('InMemoryRequestStore', () => new InMemoryRequestStore());
describeEventLogContract('InMemoryEventLog', () => new InMemoryEventLog());
describeApiKeyStoreContract('InMemoryApiKeyStore', () => new InMemoryApiKeyStore());
describeWebhookSecretStoreContract(
  'InMemoryWebhookSecretStore',
  () => new InMemoryWebhookSecretStore(),
);
describeBreakerStoreContract('FakeBreakerStore', () => new FakeBreakerStore());
describeBatchStoreContract('InMemoryBatchStore', () => new InMemoryBatchStore());
describeUsageStoreContract('InMemoryUsageStore', () => new InMemoryUsageStore());

describe('InMemoryObjectStore', () => {
  it('exposes the stored keys and their content types for assertions', async () => {
    // Arrange
    const store = new InMemoryObjectStore();
    // Act
    await store.put('results/b.json', new Uint8Array([1]), 'application/json');
    await store.put('results/a.md', new Uint8Array([2]), 'text/markdown');
    // Assert
    expect(store.keys()).toEqual(['results/a.md', 'results/b.json']);
    expect(store.contentTypeOf('results/a.md')).toBe('text/markdown');
  });
});

describe('InMemoryEventLog', () => {
  it('stamps events with the injected clock', async () => {
    // Arrange
    const log = new InMemoryEventLog({ now: () => new Date('2025-05-06T07:08:09.000Z') });
    // Act
    await log.append('r-1', { event: 'request.started' });
    // Assert
    expect((await log.list('r-1'))[0]?.at).toBe('2025-05-06T07:08:09.000Z');
  });
});
