import { describe, expect, it } from 'vitest';
import { outboundHttp } from '../../../functions/outbound-http.js';
import {
  NO_FLAGS,
  parseOptionsOf,
  prefersRespondAsync,
  webhookOf,
} from '../../../functions/api/parse-request.js';
import { UrlRefusedError } from '../../../functions/core/domain/errors.js';
import { ParseUrlRequest } from '../../../functions/api/request-schemas.js';

describe('prefersRespondAsync', () => {
  it.each([
    ['the preference alone', 'respond-async'],
    ['another case', 'Respond-Async'],
    ['among other preferences', 'return=minimal, respond-async'],
    ['before others, with spaces', ' respond-async ,wait=10'],
    ['with a parameter', 'respond-async; x=1'],
    ['after a quoted value holding a comma', 'handling="lenient, strict", respond-async'],
  ])('finds respond-async given %s', (_, prefer) => {
    // Act
    const prefers = prefersRespondAsync({ prefer });
    // Assert
    expect(prefers).toBe(true);
  });

  it.each([
    ['no Prefer header', undefined],
    ['an empty header', ''],
    ['other preferences', 'return=minimal, wait=10'],
    ['a longer token', 'respond-asynchronously'],
    ['the token inside a quoted value', 'note="respond-async"'],
  ])('finds no respond-async given %s', (_, prefer) => {
    // Act
    const prefers = prefersRespondAsync(prefer === undefined ? {} : { prefer });
    // Assert
    expect(prefers).toBe(false);
  });
});

describe('parseOptionsOf', () => {
  it('takes the parse fields of a form and the query flags, and nothing else', () => {
    // Arrange
    const form = {
      upload_id: 'upl_abc',
      operation_mode: 'hybrid' as const,
      maintain_format: false,
      max_pages: 3,
      enable_verification: null,
      dpi: 200,
      invalidate_cache: true,
    };
    // Act
    const options = parseOptionsOf(form, { ...NO_FLAGS, include_warnings: true });
    // Assert
    expect(options).toEqual({
      operation_mode: 'hybrid',
      maintain_format: false,
      max_pages: 3,
      enable_verification: null,
      dpi: 200,
      include_warnings: true,
      extraction_strict: false,
      legacy_events: false,
    });
  });
});

describe('webhookOf', () => {
  const { webhookUrls } = outboundHttp({ URL_FETCH_ALLOWLIST: undefined });

  it('is undefined without a webhook_url', async () => {
    // Act
    const webhook = await webhookOf(webhookUrls, null, 'https://api.example');
    // Assert
    expect(webhook).toBeUndefined();
  });

  it('rejects a private address with a detail naming webhook_url', async () => {
    // Act
    const refusal = await webhookOf(webhookUrls, 'https://10.0.0.7/in', 'https://api.example')
      .then(() => undefined)
      .catch((error: unknown) => error);
    // Assert
    expect(refusal).toBeInstanceOf(UrlRefusedError);
    expect((refusal as Error).message).toMatch(/^webhook_url refused: host 10\.0\.0\.7 is /);
  });
});

describe('ParseUrlRequest', () => {
  it.each(['compare_provider', 'preferred_model'])(
    'trims %s, defaults it to null, and refuses it blank or over 200 characters',
    (field) => {
      // Act
      const trimmed = ParseUrlRequest.parse({ file_url: 'https://a.example/d', [field]: ' p1 ' });
      const absent = ParseUrlRequest.parse({ file_url: 'https://a.example/d' });
      const blank = ParseUrlRequest.safeParse({ file_url: 'https://a.example/d', [field]: '  ' });
      const long = ParseUrlRequest.safeParse({
        file_url: 'https://a.example/d',
        [field]: 'x'.repeat(201),
      });
      // Assert
      expect(trimmed[field as keyof typeof trimmed]).toBe('p1');
      expect(absent[field as keyof typeof absent]).toBeNull();
      expect(blank.error?.issues[0]?.path).toEqual([field]);
      expect(long.error?.issues[0]?.path).toEqual([field]);
    },
  );
});
