import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../functions/config.js';

const KEY = 'k'.repeat(16);

describe('loadConfig', () => {
  it('defaults to the local runtime with the spec limits', () => {
    // Act
    const config = loadConfig({});
    // Assert
    expect(config.RUNTIME_MODE).toBe('local');
    expect(config.MAX_UPLOAD_BYTES).toBe(50 * 1024 * 1024);
    expect(config.priceByTier).toEqual({ fast: 0.001, pro: 0.01, premium: 0.03 });
  });

  it('reads API_KEYS entries as key, tenant and plan', () => {
    // Act
    const config = loadConfig({ API_KEYS: `${KEY}=acme-01:pro, ${KEY}x=beta.team:free` });
    // Assert
    expect(config.API_KEYS).toEqual([
      { key: KEY, tenant: 'acme-01', plan: 'pro' },
      { key: `${KEY}x`, tenant: 'beta.team', plan: 'free' },
    ]);
  });

  it.each([
    ['a short key', 'short=acme:pro'],
    ['an unknown plan', `${KEY}=acme:gold`],
    ['a tenant of dots only', `${KEY}=..:pro`],
    ['a tenant with a slash', `${KEY}=acme/other:pro`],
    ['no plan', `${KEY}=acme`],
  ])('refuses an API_KEYS entry with %s, naming the variable', (_, entry) => {
    // Act
    const load = () => loadConfig({ API_KEYS: entry });
    // Assert
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/API_KEYS/);
  });

  it('never echoes a key in its error', () => {
    // Act
    const load = () => loadConfig({ API_KEYS: `${KEY}=acme:gold` });
    // Assert
    expect(load).toThrow(/API_KEYS entry "k{16}=…"/);
    try {
      load();
    } catch (error) {
      expect(String(error)).not.toContain(`${KEY}=acme`);
    }
  });

  it('lists every invalid variable of the AWS runtime at once', () => {
    // Act
    const load = () => loadConfig({ RUNTIME_MODE: 'aws', PAGE_CONCURRENCY: '0' });
    // Assert
    expect(load).toThrow(/BUCKET_NAME[\s\S]*TABLE_NAME|TABLE_NAME[\s\S]*BUCKET_NAME/);
    expect(load).toThrow(/PAGE_CONCURRENCY/);
  });

  it('takes the AWS runtime without a state machine (stage functions have none)', () => {
    // Act
    const config = loadConfig({ RUNTIME_MODE: 'aws', BUCKET_NAME: 'b', TABLE_NAME: 't' });
    // Assert
    expect(config).toMatchObject({ RUNTIME_MODE: 'aws', BUCKET_NAME: 'b', TABLE_NAME: 't' });
  });

  it('keeps local uploads and work 7 days by default, as the AWS stack, or RETENTION_DAYS', () => {
    // Act
    const byDefault = loadConfig({});
    const halfDay = loadConfig({ RETENTION_DAYS: '0.5' });
    // Assert
    expect(byDefault).toMatchObject({ RETENTION_DAYS: 7 });
    expect(halfDay).toMatchObject({ RETENTION_DAYS: 0.5 });
    expect(() => loadConfig({ RETENTION_DAYS: '0' })).toThrow(/RETENTION_DAYS/);
  });

  it('stops idle engine workers after a minute by default, or ENGINE_IDLE_MS', () => {
    // Act
    const byDefault = loadConfig({});
    const short = loadConfig({ ENGINE_IDLE_MS: '2000' });
    // Assert
    expect(byDefault).toMatchObject({ ENGINE_IDLE_MS: 60_000 });
    expect(short).toMatchObject({ ENGINE_IDLE_MS: 2000 });
    expect(() => loadConfig({ ENGINE_IDLE_MS: '0' })).toThrow(/ENGINE_IDLE_MS/);
    expect(() => loadConfig({ ENGINE_IDLE_MS: 'soon' })).toThrow(/ENGINE_IDLE_MS/);
  });

  it('refuses a fast ceiling above the pro ceiling', () => {
    // Act
    const load = () => loadConfig({ FAST_CEILING: '0.8', PRO_CEILING: '0.5' });
    // Assert
    expect(load).toThrow(/FAST_CEILING must not exceed PRO_CEILING/);
  });
});
