import { readdir, readFile, stat, utimes } from 'node:fs/promises';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/local-service.js';
import { corpusPath } from '../../support/corpus.js';

/**
 * The local data lifecycle: the original of a document the service refuses (422) is gone from
 * `DATA_DIR` as soon as the answer is sent, after a parse as after an estimate; and a server
 * started on a data directory sweeps uploads and work files older than `RETENTION_DAYS` (as the
 * AWS stack's lifecycle rules do), keeping results and records.
 */

const ZERO_PAGES = readFileSync(corpusPath('hostile/zero-pages.pdf'));
const PDF = readFileSync(corpusPath('dev/files/pypdf-minimal-document.pdf'));
const KEY = 'key-retention-01';
const DAY_MS = 24 * 60 * 60 * 1000;
const dataDir = mkdtempSync(join(tmpdir(), 'docparse-retention-'));
let running: TestService | undefined;

async function start(): Promise<TestService> {
  running = await startTestService('retention', { API_KEYS: `${KEY}=keepers:pro` }, { dataDir });
  return running;
}

afterEach(async () => {
  await running?.close();
  running = undefined;
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** Every file under `dir`, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** The files under the data directory whose content is `bytes`. */
async function copiesOf(bytes: Buffer): Promise<string[]> {
  const copies: string[] = [];
  for (const file of await filesUnder(dataDir)) {
    if ((await stat(file)).size !== bytes.length) continue;
    if ((await readFile(file)).equals(bytes)) copies.push(file);
  }
  return copies;
}

function send(service: TestService, path: string, bytes: Buffer, name: string) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), name);
  return fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': KEY },
    body: form,
  });
}

describe('the local data lifecycle', () => {
  it('deletes the original of a refused document right after the 422', async () => {
    // Arrange
    const service = await start();
    // Act
    const parsed = await send(service, '/v1/parse/upload', ZERO_PAGES, 'zero-pages.pdf');
    const afterParse = await copiesOf(ZERO_PAGES);
    const estimated = await send(service, '/v1/parse/estimate', ZERO_PAGES, 'zero-pages.pdf');
    const afterEstimate = await copiesOf(ZERO_PAGES);
    // Assert
    expect(parsed.status).toBe(422);
    expect(((await parsed.json()) as { detail: string }).detail).toMatch(/page/);
    expect(afterParse).toEqual([]);
    expect(estimated.status).toBe(422);
    expect(afterEstimate).toEqual([]);
  });

  it('sweeps uploads and work files past RETENTION_DAYS at start, keeping results', async () => {
    // Arrange: a parse, then the server stops and its uploads and work age 8 days.
    let service = await start();
    const res = await send(service, '/v1/parse/upload', PDF, 'minimal.pdf');
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    const objects = join(dataDir, 'objects');
    expect(await copiesOf(PDF)).toEqual([join(objects, 'uploads', id, 'document')]);
    await running?.close();
    running = undefined;
    const old = new Date(Date.now() - 8 * DAY_MS);
    const aged = [
      ...(await filesUnder(join(objects, 'uploads'))),
      ...(await filesUnder(join(objects, 'work'))),
    ];
    expect(aged.length).toBeGreaterThan(1);
    for (const file of aged) await utimes(file, old, old);
    // Act
    service = await start();
    const deadline = Date.now() + 20_000;
    const left = async () =>
      (
        await Promise.all(
          aged.map((f) =>
            stat(f).then(
              () => f,
              () => undefined,
            ),
          ),
        )
      ).filter(Boolean);
    while ((await left()).length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    // Assert
    expect(await left()).toEqual([]);
    expect(await copiesOf(PDF)).toEqual([]);
    const stored = await fetch(`${service.url}/v1/parse/${id}`, {
      headers: { 'x-api-key': KEY },
    });
    expect(stored.status).toBe(200);
    expect(((await stored.json()) as { status: string }).status).toBe('completed');
  });
});
