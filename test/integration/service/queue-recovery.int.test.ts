import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../../functions/local-server.js';
import { startTestService, type TestService } from '../../support/local-service.js';
import { corpusPath } from '../../support/corpus.js';

/**
 * The local server's queues survive a restart: a low-priority batch (its first wave waits 30 s)
 * submitted just before the server stops is parsed by the next server on the same data directory.
 */

const PDF = readFileSync(corpusPath('dev/files/pypdf-minimal-document.pdf'));
const KEY = 'key-recovery-001';
const dataDir = mkdtempSync(join(tmpdir(), 'docparse-recovery-'));
let running: TestService | undefined;

/** The service on the test's data directory (kept across restarts). */
async function start(): Promise<LocalServer> {
  running = await startTestService('recovery', { API_KEYS: `${KEY}=recoverers:pro` }, { dataDir });
  return running.server;
}

afterAll(async () => {
  await running?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const api = (server: LocalServer, path: string, init: RequestInit = {}) =>
  fetch(`${server.url}${path}`, {
    ...init,
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
  });

describe('a batch waiting in the queue when the server stops', () => {
  it('is parsed after the next start on the same data directory', async () => {
    // Arrange: a document in an upload slot, batched with low priority
    const first = await start();
    const slot = (await (
      await api(first, '/v1/uploads', { method: 'POST', body: '{}' })
    ).json()) as {
      upload_id: string;
      url: string;
      fields: Record<string, string>;
    };
    const form = new FormData();
    for (const [name, value] of Object.entries(slot.fields)) form.append(name, value);
    form.append('file', new Blob([PDF]), 'minimal.pdf');
    expect((await fetch(slot.url, { method: 'POST', body: form })).ok).toBe(true);
    const submitted = (await (
      await api(first, '/v1/parse/batch', {
        method: 'POST',
        body: JSON.stringify({ documents: [{ upload_id: slot.upload_id }], priority: 'low' }),
      })
    ).json()) as { batch_id: string };
    // Act: the server stops before the first wave is due, and another one starts
    await running?.close();
    running = undefined;
    const second = await start();
    let batch: { status: string; items: { request_id: string | null }[] } = {
      status: '',
      items: [],
    };
    for (let i = 0; i < 90 && !['completed', 'failed'].includes(batch.status); i++) {
      await new Promise((r) => setTimeout(r, 500));
      batch = (await (await api(second, `/v1/batch/${submitted.batch_id}`)).json()) as typeof batch;
    }
    // Assert
    expect(batch.status).toBe('completed');
    const result = (await (
      await api(second, `/v1/parse/${batch.items[0]!.request_id!}`)
    ).json()) as {
      pages: { content_markdown: string }[];
    };
    expect(result.pages.map((p) => p.content_markdown).join('\n')).toMatch(/\w{4,}/);
  });
});
