import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sparticuz from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/local-service.js';

/**
 * GET /docs in headless Chromium: the reference page loads its scripts from the service itself
 * (no other origin is contacted), renders every operation of /v1/openapi.json, and "try it out"
 * answers from the live service.
 */

const KEY = 'key-docs-001';

let running: TestService;
let browser: Browser;

beforeAll(async () => {
  running = await startTestService('docs', { API_KEYS: `${KEY}=readers:pro` });
  process.env.TMPDIR = mkdtempSync(join(tmpdir(), 'docparse-chromium-'));
  browser = await chromium.launch({
    executablePath: await sparticuz.executablePath(),
    args: sparticuz.args,
    headless: true,
  });
});

afterAll(async () => {
  await browser.close();
  await running.close();
});

describe('GET /docs', () => {
  it('renders every operation from the service alone, and tries GET /v1/live', async () => {
    // Arrange
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const origins = new Set<string>();
    page.on('request', (request) => origins.add(new URL(request.url()).origin));
    const document = (await (await fetch(`${running.url}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operationCount = Object.values(document.paths).reduce(
      (n, item) => n + Object.keys(item).length,
      0,
    );
    // Act
    await page.goto(`${running.url}/docs`);
    await page.locator('.opblock').first().waitFor();
    // Assert
    expect(await page.locator('.opblock').count()).toBe(operationCount);
    expect(await page.locator('.info .title').textContent()).toContain('docparse API');
    expect([...origins]).toEqual([running.url]);
    // "Try it out" on GET /v1/live answers from the service.
    const live = page.locator('#operations-Operations-live');
    await live.locator('.opblock-summary').click();
    await live.getByRole('button', { name: 'Execute' }).click();
    await expect
      .poll(async () =>
        live.locator('.live-responses-table tbody .response-col_status').first().textContent(),
      )
      .toContain('200');
    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: 'test-results/api-reference.png' });
    await page.close();
  });
});
