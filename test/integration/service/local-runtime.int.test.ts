import { afterEach, describe, expect, it } from 'vitest';
import { logger } from '../../../functions/observability/logger.js';
import { startTestService, type TestService } from '../../support/local-service.js';

/** The local runtime's own composition root keeps what the shared one did for it. */

let running: TestService | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('the local runtime', () => {
  it('logs at the LOG_LEVEL of its configuration', async () => {
    // Arrange
    logger.setLogLevel('INFO');
    // Act
    running = await startTestService('log-level', { LOG_LEVEL: 'WARN' });
    // Assert
    expect(logger.getLevelName()).toBe('WARN');
  });
});
