import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../functions/config.js';
import { DEFAULT_PLAN_LIMITS } from '../../functions/core/domain/plans.js';

describe('loadConfig: PLAN_LIMITS', () => {
  it('takes the specification limits when unset', () => {
    // Act
    const config = loadConfig({});
    // Assert
    expect(config.PLAN_LIMITS).toEqual(DEFAULT_PLAN_LIMITS);
  });

  it('overrides the named plans and fields only', () => {
    // Act
    const config = loadConfig({
      PLAN_LIMITS:
        '{"scale":{"requests_per_minute":600,"pages_per_day":null},"free":{"pages_per_day":50}}',
    });
    // Assert
    expect(config.PLAN_LIMITS).toEqual({
      free: { requestsPerMinute: 10, pagesPerDay: 50 },
      pro: { requestsPerMinute: 60, pagesPerDay: 10_000 },
      scale: { requestsPerMinute: 600, pagesPerDay: null },
    });
  });

  it.each([
    ['text that is not JSON', 'scale=600', /PLAN_LIMITS: must be JSON/],
    ['an unknown plan', '{"gold":{}}', /PLAN_LIMITS: Unrecognized key: "gold"/],
    ['an unknown field', '{"pro":{"pages":1}}', /PLAN_LIMITS\.pro: Unrecognized key: "pages"/],
    [
      'a zero limit',
      '{"free":{"requests_per_minute":0}}',
      /PLAN_LIMITS\.free\.requests_per_minute/,
    ],
    ['a fraction', '{"free":{"pages_per_day":2.5}}', /PLAN_LIMITS\.free\.pages_per_day/],
    ['a string', '{"free":{"pages_per_day":"25"}}', /PLAN_LIMITS\.free\.pages_per_day/],
  ])('refuses %s, naming the variable among the other errors', (_, value, message) => {
    // Act
    const load = () => loadConfig({ PLAN_LIMITS: value, PAGE_CONCURRENCY: '0' });
    // Assert
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(message);
    expect(load).toThrow(/PAGE_CONCURRENCY/);
  });
});
