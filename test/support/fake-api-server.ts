import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { PageRasterizer, RasterPage } from '../../functions/engines/raster.js';

/** One scripted answer of the fake API. */
export interface ScriptedResponse {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON value (serialised) or raw text (sent as is). */
  body?: unknown;
  /** Wait this long before answering (for deadlines). */
  delayMs?: number;
}

/** A request the fake API received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON, or the raw text when it is not JSON. */
  body: unknown;
}

/**
 * A local HTTP server standing in for a provider's API: answers each request with the next
 * scripted response (the last one repeats) and records what it received.
 */
export class FakeApiServer {
  readonly requests: RecordedRequest[] = [];
  #script: ScriptedResponse[] = [];
  readonly #server: Server;

  private constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // Keep the raw text.
        }
        this.requests.push({
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body,
        });
        const next =
          this.#script.length > 1 ? this.#script.shift() : (this.#script[0] ?? { status: 500 });
        const answer = () => {
          if (res.destroyed) return;
          const payload =
            typeof next?.body === 'string' ? next.body : JSON.stringify(next?.body ?? {});
          res.writeHead(next?.status ?? 200, {
            'content-type': 'application/json',
            ...next?.headers,
          });
          res.end(payload);
        };
        if (next?.delayMs) setTimeout(answer, next.delayMs).unref();
        else answer();
      });
    });
  }

  /** Starts a server on a free loopback port. */
  static async start(): Promise<FakeApiServer> {
    const fake = new FakeApiServer();
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** `http://127.0.0.1:<port>` */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Replaces the script: the responses are given in order, the last one repeats. */
  script(...responses: ScriptedResponse[]): void {
    this.#script = [...responses];
    this.requests.length = 0;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
  }
}

/** A rasterizer that gives a real 200×100 white PNG at the requested DPI (or 150). */
export function fakeRasterizer(): PageRasterizer & { calls: { dpi: number | null }[] } {
  const calls: { dpi: number | null }[] = [];
  return {
    calls,
    async rasterize(_ref, _page, dpi): Promise<RasterPage> {
      calls.push({ dpi });
      const png = await sharp({
        create: { width: 200, height: 100, channels: 3, background: '#ffffff' },
      })
        .png()
        .toBuffer();
      return { png: new Uint8Array(png), width: 200, height: 100, dpi: dpi ?? 150 };
    },
  };
}
