import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CONTAINER = fileURLToPath(new URL('../../functions/container.ts', import.meta.url));

/** The CommonJS modules a fresh Node process has loaded after importing `functions/container.ts`. */
const loadedAfterImport = (): string[] => {
  const script = `
    await import(${JSON.stringify(CONTAINER)});
    const { createRequire } = await import('node:module');
    console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));
  `;
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    { encoding: 'utf8' },
  );
  return JSON.parse(out.trim().split('\n').pop() ?? '[]') as string[];
};

describe('container imports', () => {
  it('leaves the X-Ray SDK (and its async_hooks) unloaded until the AWS runtime builds its clients', () => {
    const loaded = loadedAfterImport();
    // Sanity: CommonJS dependencies are seen (the AWS SDK's DynamoDB client is one).
    expect(loaded.some((path) => path.includes('client-dynamodb'))).toBe(true);
    expect(loaded.filter((path) => /aws-xray-sdk|cls-hooked/.test(path))).toEqual([]);
  });
});
