import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sparticuz from '@sparticuz/chromium';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StaticAsset } from '../../../functions/local-server.js';
import { buildPlayground, PLAYGROUND_CONTENT_SECURITY_POLICY } from '../../../web/build.js';
import { startTestService, type TestService } from '../../support/local-service.js';
import { corpusPath } from '../../support/corpus.js';

/**
 * The playground page in headless Chromium against the local service: a key is pasted, corpus
 * documents are uploaded through the file input, and the page must show the live progress, the
 * page images with their grounding boxes, the rendered Markdown and the page facts, and the API's
 * errors. Leaves a screenshot in test-results/playground.png.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const DEV = corpusPath('dev');
const KEY = 'key-playground-00001';
/** One born-digital page with numbered headings and a table. */
const PDF = join(DEV, 'files/docling-2305.03393v1-pg9.pdf');
const PDF_GT = readFileSync(join(DEV, 'gt/docling-2305.03393v1-pg9.md'), 'utf8');
/** Two born-digital pages (headings, code). */
const TWO_PAGES = join(DEV, 'files/docling-code_and_formula.pdf');
/** An invoice image read by OCR. */
const IMAGE = join(DEV, 'files/zerox-0012.png');
/** A Word document: Markdown without a page image. */
const DOCX = join(DEV, 'files/docling-word_sample.docx');
const SCREENSHOT = join(ROOT, 'test-results/playground.png');
const UPLOAD_LIMIT = 400_000;

let assets: StaticAsset[];
let service: TestService;
let browser: Browser;
let context: BrowserContext;
let chromiumDir: string;
const previousTmpdir = process.env.TMPDIR;
/** Console errors and uncaught exceptions of every page (CSP violations show up here). */
const problems: string[] = [];

beforeAll(async () => {
  assets = await buildPlayground();
  service = await startTestService(
    'playground',
    {
      API_KEYS: `${KEY}=playground:pro`,
      PLAN_LIMITS: '{"pro":{"requests_per_minute":null}}',
      // Above every document here, below the one of the 413 test.
      MAX_UPLOAD_BYTES: String(UPLOAD_LIMIT),
    },
    { staticAssets: assets, contentSecurityPolicy: PLAYGROUND_CONTENT_SECURITY_POLICY },
  );
  // The browser unpacks itself into the temporary folder: a private one.
  chromiumDir = mkdtempSync(join(tmpdir(), 'docparse-chromium-'));
  process.env.TMPDIR = chromiumDir;
  browser = await chromium.launch({
    executablePath: await sparticuz.executablePath(),
    args: sparticuz.args,
    headless: true,
  });
  context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
});

afterAll(async () => {
  await context.close().catch(() => undefined);
  await browser.close().catch(() => undefined);
  await service.close();
  if (previousTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmpdir;
  rmSync(chromiumDir, { recursive: true, force: true });
});

async function openPlayground(key: string): Promise<Page> {
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(`${service.url}/`);
  await page.waitForSelector('html[data-ready="true"]');
  await page.fill('#api-key', key);
  return page;
}

/** Uploads `file`, presses Parse and waits for the first page section. */
async function parse(page: Page, file: string): Promise<void> {
  await page.setInputFiles('#file-input', file);
  await page.click('#parse-button');
  await page.locator('section.page').first().waitFor({ timeout: 60_000 });
}

/** Every drawn box lies inside its page image (1 px of rounding allowed). */
async function boxesInsideImage(page: Page, section: string): Promise<number> {
  const image = await page.locator(`${section} .page-bitmap`).boundingBox();
  expect(image).not.toBeNull();
  const boxes = await page
    .locator(`${section} .gbox`)
    .evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().toJSON() as DOMRect));
  const scroll = await page.evaluate(() => ({ x: window.scrollX, y: window.scrollY }));
  for (const box of boxes) {
    const x = box.x + scroll.x;
    const y = box.y + scroll.y;
    expect(x).toBeGreaterThanOrEqual(image!.x - 1);
    expect(y).toBeGreaterThanOrEqual(image!.y - 1);
    expect(x + box.width).toBeLessThanOrEqual(image!.x + image!.width + 1);
    expect(y + box.height).toBeLessThanOrEqual(image!.y + image!.height + 1);
    expect(box.width).toBeGreaterThan(0);
  }
  return boxes.length;
}

describe('the playground build', () => {
  it('produces the page, its script, styles, the pdf.js worker and data files', () => {
    const paths = assets.map((a) => a.path);
    for (const path of [
      '/',
      '/playground/app.js',
      '/playground/app.css',
      '/playground/pdf.worker.min.js',
      '/playground/pdfjs/standard_fonts/LiberationSans-Regular.ttf',
      '/playground/pdfjs/wasm/openjpeg.wasm',
    ]) {
      expect(paths).toContain(path);
    }
    expect(paths.some((p) => /^\/playground\/chunks\/.+\.js$/.test(p))).toBe(true);
    expect(new Set(paths).size).toBe(paths.length);
    const byPath = new Map(assets.map((a) => [a.path, a]));
    expect(byPath.get('/')?.contentType).toBe('text/html; charset=utf-8');
    expect(byPath.get('/playground/app.js')?.contentType).toBe('text/javascript; charset=utf-8');
    expect(byPath.get('/playground/pdfjs/wasm/openjpeg.wasm')?.contentType).toBe(
      'application/wasm',
    );
    expect(byPath.get('/')?.body.toString()).toContain('playground/app.js');
  });

  it('is served with its content type and security policy, the API keeps its 404s', async () => {
    const page = await fetch(`${service.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toBe(PLAYGROUND_CONTENT_SECURITY_POLICY);
    const head = await fetch(`${service.url}/playground/app.js`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
    const missing = await fetch(`${service.url}/playground/missing.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toHaveProperty('detail');
    expect((await fetch(`${service.url}/`, { method: 'POST' })).status).toBe(404);
  });
});

describe('the playground page', () => {
  it('parses a PDF live and shows the page image with boxes beside the Markdown', async () => {
    // Arrange
    const page = await openPlayground(KEY);
    // Act
    await parse(page, PDF);
    await page.waitForSelector('#page-1 .page-figure[data-state="ready"]');
    // Assert: the progress reached done for every page.
    const stages = await page
      .locator('.page-row')
      .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.stage));
    expect(stages).toEqual(['done']);
    expect(await page.getAttribute('#overall-bar', 'aria-valuenow')).toBe('100');
    expect(await page.locator('#event-list li[data-event="result.final"]').count()).toBe(1);
    // The boxes lie on the page image.
    expect(await boxesInsideImage(page, '#page-1')).toBeGreaterThanOrEqual(8);
    // The Markdown is rendered: the ground truth's heading and table.
    const heading = /^#+\s+(.+)$/m.exec(PDF_GT)?.[1] ?? '';
    expect(heading).toContain('Hyper Parameter Optimization');
    const markdown = page.locator('#page-1 .markdown');
    expect(await markdown.innerText()).toContain(heading);
    expect(await markdown.locator('h1, h2, h3').count()).toBeGreaterThanOrEqual(1);
    expect(await markdown.locator('table').count()).toBeGreaterThanOrEqual(1);
    expect(await markdown.locator('table').first().innerText()).toContain('OTSL');
    // The page facts.
    expect(await page.innerText('#page-1 .tier')).toBe('fast');
    expect(await page.innerText('#page-1 .provider')).toContain('local-text');
    expect(await page.innerText('#page-1 .grade')).toMatch(/^(excellent|good|fair|poor)$/);
    expect(await page.innerText('.summary')).toContain('req_');
    // Hovering a box shows its text.
    await page.locator('#page-1 .gbox.label-table, #page-1 .gbox').first().hover({ force: true });
    const tooltip = page.locator('#box-tooltip');
    await tooltip.waitFor({ state: 'visible' });
    const label = (await page.getAttribute('#page-1 .gbox.active', 'aria-label')) ?? '';
    const text = label.slice(label.indexOf(': ') + 2);
    expect(text.length).toBeGreaterThan(0);
    expect(await tooltip.locator('.tooltip-text').innerText()).toContain(text.slice(0, 40));
    expect(await tooltip.innerText()).toMatch(/confidence \d\.\d\d/);
    // A screenshot of the whole page, with the tooltip of a box in view (a table's if any).
    await page.evaluate(() => {
      window.scrollTo(0, 0);
    });
    const inView = [];
    for (const box of await page.locator('#page-1 .gbox').all()) {
      const rect = await box.boundingBox();
      const label = await box.getAttribute('data-label');
      if (rect && rect.y + rect.height < 880) inView.push({ rect, table: label === 'table' });
    }
    const shown = inView.find((b) => b.table) ?? inView.at(-1);
    if (shown) {
      await page.mouse.move(
        shown.rect.x + shown.rect.width / 2,
        shown.rect.y + shown.rect.height / 2,
      );
    }
    mkdirSync(join(ROOT, 'test-results'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await page.close();
  });

  it('follows every page of a longer document', async () => {
    // Arrange
    const page = await openPlayground(KEY);
    // Act
    await parse(page, TWO_PAGES);
    await page.waitForSelector('#page-2 .page-figure[data-state="ready"]');
    // Assert
    const stages = await page
      .locator('.page-row')
      .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.stage));
    expect(stages).toEqual(['done', 'done']);
    expect(await page.locator('section.page').count()).toBe(2);
    expect(await boxesInsideImage(page, '#page-2')).toBeGreaterThanOrEqual(1);
    expect(await page.locator('#page-1 .markdown h1, #page-1 .markdown h2').count()).toBe(1);
    await page.close();
  });

  it('shows an image document itself with its boxes', async () => {
    // Arrange
    const page = await openPlayground(KEY);
    // Act
    await parse(page, IMAGE);
    await page.waitForSelector('#page-1 .page-figure[data-state="ready"]');
    // Assert
    expect(await page.getAttribute('#page-1 .page-bitmap', 'src')).toMatch(/^blob:/);
    expect(await boxesInsideImage(page, '#page-1')).toBeGreaterThanOrEqual(5);
    expect(await page.innerText('#page-1 .provider')).toContain('local-ocr');
    expect((await page.innerText('#page-1 .markdown')).toUpperCase()).toContain('INVOICE');
    await page.close();
  });

  it('shows the Markdown of an office document with a note instead of a page image', async () => {
    // Arrange
    const page = await openPlayground(KEY);
    // Act
    await parse(page, DOCX);
    // Assert
    expect(await page.locator('.page-figure').count()).toBe(0);
    expect(await page.innerText('#page-1 .no-image-note')).toContain('DOCX');
    expect(await page.innerText('.pages')).toContain('Swimming in the lake');
    await page.close();
  });

  it('shows the 401 of a wrong key', async () => {
    // Arrange
    const page = await openPlayground('not-a-valid-key');
    // Act
    await page.setInputFiles('#file-input', PDF);
    await page.click('#parse-button');
    // Assert
    const alert = page.locator('#alert');
    await alert.waitFor({ state: 'visible' });
    expect(await alert.innerText()).toContain('401');
    expect(await alert.innerText()).toContain('invalid API key');
    expect(await page.locator('section.page').count()).toBe(0);
    await page.close();
  });

  it('shows a parse that fails once started, and a document above the upload limit', async () => {
    // Arrange
    const page = await openPlayground(KEY);
    const alert = page.locator('#alert');
    // Act: a damaged PDF, refused by ingestion after the stream opened.
    await page.setInputFiles('#file-input', {
      name: 'damaged.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.4\n1 0 obj garbage\n%%EOF\n'),
    });
    await page.click('#parse-button');
    // Assert: the stream's error event is shown.
    await alert.waitFor({ state: 'visible' });
    expect(await alert.innerText()).toContain('Parse failed');
    expect(await alert.innerText()).toContain('damaged');
    expect(await page.getAttribute('#progress', 'data-state')).toBe('failed');
    expect(await page.locator('#event-list li[data-event="error"]').count()).toBe(1);
    // Act: a file above MAX_UPLOAD_BYTES.
    await page.setInputFiles('#file-input', {
      name: 'large.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.alloc(UPLOAD_LIMIT + 100_000, 0x20),
    });
    await page.click('#parse-button');
    // Assert
    await expect.poll(() => alert.innerText()).toContain('413');
    expect(await alert.innerText()).toContain('Document too large');
    expect(await page.isHidden('#progress')).toBe(true);
    await page.close();
  });

  it('ran without console errors or security policy violations', () => {
    // The refused requests (401, 413) are logged by the browser itself.
    expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([]);
  });
});
