import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOTAL } from '../../../examples/make-invoice.js';
import { startChildService } from '../../support/child-service.js';

const ROOT = resolve(import.meta.dirname, '../../..');

let busy: Server;
let port: number;
let dataDir: string;

beforeAll(async () => {
  busy = createServer();
  await new Promise<void>((ready) => busy.listen(0, '127.0.0.1', ready));
  port = (busy.address() as AddressInfo).port;
  dataDir = await mkdtemp(join(tmpdir(), 'docparse-busy-port-'));
});

afterAll(async () => {
  await new Promise<void>((done) =>
    busy.close(() => {
      done();
    }),
  );
  await rm(dataDir, { recursive: true, force: true });
});

describe('npm start on a port in use', () => {
  it('prints one line naming the port and PORT, and exits 1', async () => {
    // Act: bin/local.ts as `npm start` runs it, on the port another server holds.
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'ERROR',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((done, reject) => {
      child.once('error', reject);
      child.once('close', done);
    });

    // Assert
    expect(code).toBe(1);
    expect(stdout).not.toContain('listening on');
    expect(stderr).toBe(`docparse: port ${port} is in use; set PORT to another port\n`);
  }, 120_000);
});

describe('npm start with the demo key', () => {
  it('prints a curl command that works as printed, and records its address beside the key', async () => {
    // Arrange: no API_KEYS, so the server makes a demo key, on a free port.
    const demoDir = await mkdtemp(join(tmpdir(), 'docparse-npm-start-'));
    const service = await startChildService({ DATA_DIR: demoDir, HOST: '127.0.0.1' });
    try {
      const deadline = Date.now() + 10_000;
      let tryLine: string | undefined;
      while ((tryLine = /^try: (.+)$/m.exec(service.output())?.[1]) === undefined) {
        if (Date.now() > deadline) throw new Error(`no "try:" line in:\n${service.output()}`);
        await new Promise((wait) => setTimeout(wait, 50));
      }
      const record = JSON.parse(await readFile(join(demoDir, 'demo-server.json'), 'utf8')) as {
        url: string;
        port: number;
      };
      expect(record).toEqual({ url: service.url, port: Number(new URL(service.url).port) });

      // Act: the printed command, from the repository's root as `npm start` runs there.
      expect(tryLine).toContain('curl --fail-with-body');
      expect(tryLine).toContain('-F file=@examples/invoice.pdf');
      const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', tryLine], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
      });

      // Assert
      const response = JSON.parse(stdout) as {
        status: string;
        pages: { content_markdown: string }[];
      };
      expect(response.status).toBe('completed');
      const markdown = response.pages.map((page) => page.content_markdown).join('\n\n');
      expect(markdown).toContain('# Invoice INV-2026-0042');
      expect(markdown).toContain(TOTAL);
    } finally {
      await service.stop();
      // The record goes with the server.
      expect(existsSync(join(demoDir, 'demo-server.json'))).toBe(false);
      await rm(demoDir, { recursive: true, force: true });
    }
  }, 180_000);
});
