import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParseResponse } from '../../../functions/core/domain/schemas.js';
import { startTestService, type TestService } from '../../support/local-service.js';

/**
 * A client's `extraction_schema` pattern cannot stall the service: `^(a+)+$` against a document
 * line `name: aaa…a!` (seconds to hours on a backtracking engine, the event loop blocked all that
 * time) is answered while `GET /v1/live` keeps answering, and a pattern that only a backtracking
 * engine can run is refused with 422 before anything is parsed.
 */

const KEY = 'key-regex-safety-001';
/** 28 "a"s: about 4 s of backtracking per test on this machine, doubling with each more. */
const EVIL_LINE = `name: ${'a'.repeat(28)}!`;

let running: TestService;

beforeAll(async () => {
  running = await startTestService('regex-safety', {
    API_KEYS: `${KEY}=regex-safety:pro`,
    PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
  });
});

afterAll(async () => {
  await running.close();
});

/** Posts a Markdown document with `schema` for extraction. */
function upload(markdown: string, schema: unknown, path = '/v1/parse/upload'): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([markdown], { type: 'text/markdown' }), 'form.md');
  form.append('operation_mode', 'extract');
  form.append('extraction_schema', JSON.stringify(schema));
  return fetch(`${running.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': KEY },
    body: form,
  });
}

describe('user-supplied patterns', () => {
  it('extracts with a backtracking-prone pattern while GET /v1/live keeps answering within 1 s', async () => {
    // Arrange
    const schema = {
      type: 'object',
      properties: { name: { type: 'string', pattern: '^(a+)+$' }, city: { type: 'string' } },
    };
    const markdown = `# Form\n\n${EVIL_LINE}\n\ncity: Lyon\n`;
    const state = { settled: false };
    // Act: probe the liveness route back to back for as long as the parse runs. A stalled event
    // loop shows as a long gap between two answers, whether a probe was in flight or waiting.
    const parse = upload(markdown, schema).finally(() => {
      state.settled = true;
    });
    const gaps: number[] = [];
    let last = performance.now();
    while (!state.settled) {
      const live = await fetch(`${running.url}/v1/live`);
      await live.arrayBuffer();
      expect(live.status).toBe(200);
      const now = performance.now();
      gaps.push(now - last);
      last = now;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const res = await parse;
    // Assert
    expect(res.status).toBe(200);
    const body = ParseResponse.parse(await res.json());
    expect(body.extracted).toEqual({ city: 'Lyon' });
    expect(gaps.length).toBeGreaterThan(0);
    expect(Math.max(...gaps)).toBeLessThan(1000);
  });

  it.each(['/v1/parse/upload', '/v1/parse/stream'])(
    'refuses on %s a pattern with a backreference with 422 naming it and why',
    async (path) => {
      // Act
      const res = await upload(
        'code: abab',
        { type: 'object', properties: { code: { type: 'string', pattern: '(ab)\\1' } } },
        path,
      );
      // Assert
      expect(res.status).toBe(422);
      const body = (await res.json()) as { detail: string };
      expect(body.detail).toContain('/properties/code/pattern');
      expect(body.detail).toContain('(ab)');
      expect(body.detail).toMatch(/backreference/);
    },
  );
});
