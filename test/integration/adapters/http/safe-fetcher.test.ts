import type { LookupAddress } from 'node:dns';
import { readFile } from 'node:fs/promises';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  MAX_REDIRECTS,
  SafeDocumentFetcher,
  UrlGuard,
  parseUrlAllowlist,
  type HostResolver,
  type SafeDocumentFetcherOptions,
} from '../../../../functions/adapters/http/safe-fetcher.js';
import { PayloadTooLargeError, UrlRefusedError } from '../../../../functions/core/domain/errors.js';
import { corpusPath } from '../../../support/corpus.js';

const CORPUS_PDF = corpusPath('dev/files/pypdf-minimal-document.pdf');
const PUBLIC_V4 = '93.184.215.14';
const MB = 1024 * 1024;

/** A local server that records every TCP connection and request it receives. */
interface TestServer {
  port: number;
  origin: string;
  connections: number;
  requests: IncomingMessage[];
  /** Server-side TLS SNI of each connection (https servers only). */
  servernames: (string | false | null)[];
}

const servers: Server[] = [];
const timers: NodeJS.Timeout[] = [];

afterEach(async () => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => {
            resolve();
          });
        }),
    ),
  );
});

async function startServer(
  handler: RequestListener,
  tls?: { key: string; cert: string },
): Promise<TestServer> {
  const server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
  servers.push(server);
  const state: TestServer = { port: 0, origin: '', connections: 0, requests: [], servernames: [] };
  server.on('connection', () => {
    state.connections += 1;
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    state.servernames.push(socket.servername);
  });
  server.on('request', (request: IncomingMessage) => {
    state.requests.push(request);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.origin = `${tls ? 'https' : 'http'}://127.0.0.1:${state.port}`;
  return state;
}

/** Serves the corpus PDF at `/doc.pdf` (and any other path not otherwise handled). */
const servePdf =
  (pdf: Uint8Array, headers: Record<string, string> = {}): RequestListener =>
  (_request, response) => {
    response.writeHead(200, {
      'content-type': 'application/pdf',
      'content-length': pdf.byteLength,
      ...headers,
    });
    response.end(pdf);
  };

/** A resolver answering from a fixed table, failing like getaddrinfo for other names. */
function fakeResolver(table: Record<string, string[]>) {
  return vi.fn<HostResolver>((hostname: string): Promise<LookupAddress[]> => {
    const addresses = table[hostname];
    if (!addresses) {
      return Promise.reject(
        Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
          code: 'ENOTFOUND',
        }),
      );
    }
    return Promise.resolve(
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  });
}

function aFetcher(options: SafeDocumentFetcherOptions = {}): SafeDocumentFetcher {
  return new SafeDocumentFetcher({ resolve: fakeResolver({}), ...options });
}

const allow = (...servers: TestServer[]) =>
  servers.map((server) => ({ host: '127.0.0.1', port: server.port }));

/** The UrlRefusedError a rejected fetch threw. */
async function refusal(promise: Promise<unknown>): Promise<UrlRefusedError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the fetch to be refused');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UrlRefusedError);
  return error as UrlRefusedError;
}

let pdf: Uint8Array;
beforeAll(async () => {
  pdf = new Uint8Array(await readFile(CORPUS_PDF));
});

describe('SafeDocumentFetcher', () => {
  describe('address checks', () => {
    const refusedAddresses: [string, RegExp][] = [
      ['127.0.0.1', /loopback/],
      ['10.1.2.3', /private/],
      ['172.16.0.1', /private/],
      ['192.168.1.1', /private/],
      ['169.254.169.254', /link-local.*metadata/],
      ['100.64.0.1', /carrier-grade NAT/],
      ['0.0.0.0', /unspecified/],
      ['224.0.0.1', /multicast/],
      ['255.255.255.255', /broadcast/],
      ['192.0.2.1', /reserved/],
      ['::1', /loopback/],
      ['::', /unspecified/],
      ['fe80::1', /link-local/],
      ['fc00::1', /unique local/],
      ['fd12:3456::1', /unique local/],
      ['ff02::1', /multicast/],
      ['::ffff:127.0.0.1', /loopback/],
      ['::ffff:7f00:1', /loopback/],
      ['::ffff:a9fe:a9fe', /link-local/],
      ['2002:7f00:1::', /6to4/],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
      ['64:ff9b::7f00:1', /NAT64/],
      ['::ffff:0:7f00:1', /IPv4-translated/],
      ['::7f00:1', /IPv4-compatible/],
    ];

    it.each(refusedAddresses)(
      'rejects the literal address %s, naming its class',
      async (address, description) => {
        // Arrange
        const resolve = fakeResolver({});
        const host = address.includes(':') ? `[${address}]` : address;
        // Act
        const error = await refusal(
          aFetcher({ resolve }).fetch(`https://${host}/doc.pdf`, { maxBytes: MB }),
        );
        // Assert
        expect(error.message).toMatch(description);
        expect(error.message).toMatch(/only public addresses can be fetched/);
        expect(error.details).toMatchObject({ reason: 'address' });
        expect(resolve).not.toHaveBeenCalled();
      },
    );

    it.each(refusedAddresses)(
      'rejects a host name resolving to %s, naming the name, the address and its class',
      async (address, description) => {
        // Arrange
        const resolve = fakeResolver({ 'evil.example': [address] });
        // Act
        const error = await refusal(
          aFetcher({ resolve }).fetch('https://evil.example/doc.pdf', { maxBytes: MB }),
        );
        // Assert
        expect(error.message).toMatch(description);
        expect(error.message).toContain(`host evil.example resolves to ${address}`);
        expect(error.details).toMatchObject({ reason: 'address', host: 'evil.example', address });
        expect(resolve).toHaveBeenCalledTimes(1);
      },
    );

    it('rejects a host when any one of its addresses is not public', async () => {
      // Arrange
      const resolve = fakeResolver({ 'mixed.example': [PUBLIC_V4, '2606:4700::1', '10.0.0.7'] });
      // Act
      const error = await refusal(
        aFetcher({ resolve }).fetch('https://mixed.example/doc.pdf', { maxBytes: MB }),
      );
      // Assert
      expect(error.message).toContain('resolves to 10.0.0.7, a private (RFC 1918) address');
    });

    it.each(['localhost', 'LOCALHOST.', 'api.localhost', 'ip6-localhost'])(
      'rejects the loopback name %s without looking it up',
      async (name) => {
        // Arrange
        const resolve = fakeResolver({});
        // Act
        const error = await refusal(
          aFetcher({ resolve }).fetch(`https://${name}/doc.pdf`, { maxBytes: MB }),
        );
        // Assert
        expect(error.message).toMatch(/is a loopback name/);
        expect(resolve).not.toHaveBeenCalled();
      },
    );

    it('rejects a host name that does not resolve, naming the lookup error', async () => {
      const error = await refusal(
        aFetcher().fetch('https://nowhere.example/doc.pdf', { maxBytes: MB }),
      );
      expect(error.message).toBe('URL refused: host nowhere.example does not resolve (ENOTFOUND)');
    });
  });

  describe('scheme, port and credential checks', () => {
    const resolve = () => fakeResolver({ 'docs.example': [PUBLIC_V4] });

    it.each([
      ['http://docs.example/doc.pdf', 'only https URLs can be fetched, not http'],
      ['ftp://docs.example/doc.pdf', 'only https URLs can be fetched, not ftp'],
      ['file:///etc/passwd', 'only https URLs can be fetched, not file'],
      ['https://docs.example:8443/doc.pdf', 'only port 443 can be fetched, not 8443'],
      ['https://user:secret@docs.example/doc.pdf', 'URLs with credentials (user:password@)'],
      ['https://user@docs.example/doc.pdf', 'URLs with credentials (user:password@)'],
      ['not a url', 'the value is not an absolute URL'],
    ])('rejects %s', async (url, message) => {
      const error = await refusal(aFetcher({ resolve: resolve() }).fetch(url, { maxBytes: MB }));
      expect(error.message).toContain(message);
      expect(error.message).not.toContain('secret');
    });
  });

  describe('sends no byte to a refused address', () => {
    it('never connects to a loopback server addressed by IP, by a name or by a redirect', async () => {
      // Arrange
      const target = await startServer(servePdf(pdf));
      const redirector = await startServer((_request, response) => {
        response.writeHead(302, { location: `https://127.0.0.1:${target.port}/doc.pdf` });
        response.end();
      });
      const fetcher = aFetcher({
        resolve: fakeResolver({ 'rebind.example': ['127.0.0.1'] }),
        allowlist: allow(redirector),
      });
      const urls = [
        `https://127.0.0.1:${target.port}/doc.pdf`,
        `https://[::ffff:127.0.0.1]:${target.port}/doc.pdf`,
        `https://rebind.example:${target.port}/doc.pdf`,
        `http://127.0.0.1:${target.port}/doc.pdf`,
        `${redirector.origin}/doc.pdf`,
      ];
      // Act
      const errors = await Promise.all(
        urls.map((url) => refusal(fetcher.fetch(url, { maxBytes: MB }))),
      );
      // Assert
      expect(errors.map((e) => (e.details as { reason: string }).reason)).toEqual([
        'address',
        'address',
        'address',
        'scheme',
        'address',
      ]);
      expect(redirector.requests).toHaveLength(1);
      expect(target.connections).toBe(0);
    });

    it('counts the connection of an allowed fetch (the recorder works)', async () => {
      // Arrange
      const target = await startServer(servePdf(pdf));
      // Act
      await aFetcher({ allowlist: allow(target) }).fetch(`${target.origin}/doc.pdf`, {
        maxBytes: MB,
      });
      // Assert
      expect(target.connections).toBe(1);
    });
  });

  describe('downloads', () => {
    it('downloads a PDF from an allowlisted http server', async () => {
      // Arrange
      const server = await startServer(servePdf(pdf));
      // Act
      const document = await aFetcher({ allowlist: allow(server) }).fetch(
        `${server.origin}/files/pypdf-minimal-document.pdf?sig=abc#page=2`,
        { maxBytes: MB },
      );
      // Assert
      expect(document.bytes).toEqual(pdf);
      expect(document.contentType).toBe('application/pdf');
      expect(document.finalUrl).toBe(`${server.origin}/files/pypdf-minimal-document.pdf?sig=abc`);
      expect(document.filename).toBe('pypdf-minimal-document.pdf');
      expect(server.requests[0]?.url).toBe('/files/pypdf-minimal-document.pdf?sig=abc');
      expect(server.requests[0]?.headers['accept-encoding']).toBe('identity');
    });

    it('connects to the checked address without resolving the name again', async () => {
      // Arrange: `.test` names never resolve in real DNS, so only the pinned address can work.
      const server = await startServer(servePdf(pdf));
      const resolve = fakeResolver({ 'docs.test': ['127.0.0.1'] });
      const fetcher = aFetcher({ resolve, allowlist: [{ host: 'docs.test', port: server.port }] });
      // Act
      const document = await fetcher.fetch(`http://docs.test:${server.port}/a.pdf`, {
        maxBytes: MB,
      });
      // Assert
      expect(document.bytes).toEqual(pdf);
      expect(resolve).toHaveBeenCalledTimes(1);
      expect(server.requests[0]?.headers.host).toBe(`docs.test:${server.port}`);
    });

    it('accepts a Content-Length of exactly maxBytes', async () => {
      const server = await startServer(servePdf(pdf));
      const document = await aFetcher({ allowlist: allow(server) }).fetch(`${server.origin}/d`, {
        maxBytes: pdf.byteLength,
      });
      expect(document.bytes.byteLength).toBe(pdf.byteLength);
    });
  });

  describe('TLS with a pinned address', () => {
    // A self-signed certificate for docs.test only (test/fixtures/tls, valid for 100 years).
    let tls: { key: string; cert: string };

    beforeAll(async () => {
      const fixtures = join(import.meta.dirname, '../../../fixtures/tls');
      tls = {
        key: await readFile(join(fixtures, 'docs.test.key.pem'), 'utf8'),
        cert: await readFile(join(fixtures, 'docs.test.cert.pem'), 'utf8'),
      };
    });

    it('sends the host name as SNI and validates the certificate for it', async () => {
      // Arrange
      const server = await startServer(servePdf(pdf), tls);
      const fetcher = aFetcher({
        resolve: fakeResolver({ 'docs.test': ['127.0.0.1'] }),
        allowlist: [{ host: 'docs.test', port: server.port }],
        ca: tls.cert,
      });
      // Act
      const document = await fetcher.fetch(`https://docs.test:${server.port}/doc.pdf`, {
        maxBytes: MB,
      });
      // Assert
      expect(document.bytes).toEqual(pdf);
      expect(server.servernames).toEqual(['docs.test']);
    });

    it('rejects a certificate that is not valid for the host name', async () => {
      // Arrange
      const server = await startServer(servePdf(pdf), tls);
      const fetcher = aFetcher({
        resolve: fakeResolver({ 'other.test': ['127.0.0.1'] }),
        allowlist: [{ host: 'other.test', port: server.port }],
        ca: tls.cert,
      });
      // Act
      const error = await refusal(
        fetcher.fetch(`https://other.test:${server.port}/doc.pdf`, { maxBytes: MB }),
      );
      // Assert
      expect(error.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
      expect(error.details).toMatchObject({ reason: 'tls' });
      expect(server.requests).toHaveLength(0);
    });

    it('rejects a certificate from an untrusted authority', async () => {
      const server = await startServer(servePdf(pdf), tls);
      const fetcher = aFetcher({
        resolve: fakeResolver({ 'docs.test': ['127.0.0.1'] }),
        allowlist: [{ host: 'docs.test', port: server.port }],
      });
      const error = await refusal(
        fetcher.fetch(`https://docs.test:${server.port}/doc.pdf`, { maxBytes: MB }),
      );
      expect(error.details).toMatchObject({ reason: 'tls' });
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('redirects', () => {
    /** `/rN` redirects to `/r(N-1)`, `/r0` to `/doc.pdf` (relative), which serves the PDF. */
    const chain: RequestListener = (request, response) => {
      const hop = /^\/r(\d+)$/.exec(request.url ?? '');
      if (!hop) {
        servePdf(pdf)(request, response);
        return;
      }
      const n = Number(hop[1]);
      response.writeHead(n % 2 === 0 ? 302 : 307, { location: n === 1 ? 'doc.pdf' : `/r${n - 1}` });
      response.end();
    };

    it(`follows ${MAX_REDIRECTS} redirects, resolving Location against the current URL`, async () => {
      // Arrange
      const server = await startServer(chain);
      // Act
      const document = await aFetcher({ allowlist: allow(server) }).fetch(
        `${server.origin}/r${MAX_REDIRECTS}`,
        { maxBytes: MB },
      );
      // Assert
      expect(document.bytes).toEqual(pdf);
      expect(document.finalUrl).toBe(`${server.origin}/doc.pdf`);
      expect(server.requests.map((r) => r.url)).toEqual(['/r3', '/r2', '/r1', '/doc.pdf']);
    });

    it(`rejects a ${MAX_REDIRECTS + 1}th redirect without following it`, async () => {
      // Arrange
      const server = await startServer(chain);
      // Act
      const error = await refusal(
        aFetcher({ allowlist: allow(server) }).fetch(`${server.origin}/r${MAX_REDIRECTS + 1}`, {
          maxBytes: MB,
        }),
      );
      // Assert
      expect(error.message).toContain(`more than ${MAX_REDIRECTS} redirects`);
      expect(server.requests.map((r) => r.url)).toEqual(['/r4', '/r3', '/r2', '/r1']);
    });

    it('checks every hop again: a redirect to a public https host on another port is refused', async () => {
      // Arrange
      const server = await startServer((_request, response) => {
        response.writeHead(301, { location: 'https://docs.example:8443/doc.pdf' });
        response.end();
      });
      const fetcher = aFetcher({
        resolve: fakeResolver({ 'docs.example': [PUBLIC_V4] }),
        allowlist: allow(server),
      });
      // Act
      const error = await refusal(fetcher.fetch(`${server.origin}/doc.pdf`, { maxBytes: MB }));
      // Assert
      expect(error.message).toContain('only port 443 can be fetched, not 8443');
    });

    it('rejects a redirect without a Location header', async () => {
      const server = await startServer((_request, response) => {
        response.writeHead(302);
        response.end();
      });
      const error = await refusal(
        aFetcher({ allowlist: allow(server) }).fetch(`${server.origin}/x`, { maxBytes: MB }),
      );
      expect(error.message).toContain('HTTP 302 without a Location header');
    });
  });

  describe('size cap', () => {
    it('throws PayloadTooLargeError on a Content-Length above maxBytes without reading the body', async () => {
      // Arrange
      const server = await startServer(servePdf(pdf));
      // Act
      const error = await aFetcher({ allowlist: allow(server) })
        .fetch(`${server.origin}/doc.pdf`, { maxBytes: pdf.byteLength - 1 })
        .catch((e: unknown) => e);
      // Assert
      expect(error).toBeInstanceOf(PayloadTooLargeError);
      expect((error as Error).message).toContain(`maximum of ${pdf.byteLength - 1} bytes`);
    });

    it('aborts an endless body without Content-Length as soon as it passes maxBytes', async () => {
      // Arrange: the server streams 64 KiB chunks until the client goes away.
      let sent = 0;
      let closed = false;
      const server = await startServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/pdf' });
        const chunk = new Uint8Array(64 * 1024);
        const pump = () => {
          while (!response.destroyed && sent < 100 * MB) {
            sent += chunk.byteLength;
            if (!response.write(chunk)) {
              response.once('drain', pump);
              return;
            }
          }
        };
        response.on('close', () => {
          closed = true;
        });
        pump();
      });
      // Act
      const error = await aFetcher({ allowlist: allow(server) })
        .fetch(`${server.origin}/endless.pdf`, { maxBytes: MB })
        .catch((e: unknown) => e);
      // Assert
      expect(error).toBeInstanceOf(PayloadTooLargeError);
      await vi.waitFor(() => {
        expect(closed).toBe(true);
      });
      expect(sent).toBeLessThan(10 * MB);
    });
  });

  describe('timeouts', () => {
    it('rejects an origin that never answers after the headers timeout', async () => {
      // Arrange
      const server = await startServer(() => {
        // never answers
      });
      const fetcher = aFetcher({ allowlist: allow(server), headersTimeoutMs: 200 });
      // Act
      const error = await refusal(fetcher.fetch(`${server.origin}/doc.pdf`, { maxBytes: MB }));
      // Assert
      expect(error.message).toBe(
        `URL refused: 127.0.0.1:${server.port} did not answer within 0.2 s`,
      );
      expect(error.details).toMatchObject({ reason: 'timeout' });
    });

    it('rejects a download that trickles past the total deadline', async () => {
      // Arrange: one byte every 20 ms, forever.
      const server = await startServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/pdf' });
        timers.push(
          setInterval(() => {
            response.write('%');
          }, 20),
        );
      });
      const fetcher = aFetcher({ allowlist: allow(server), totalTimeoutMs: 300 });
      const started = Date.now();
      // Act
      const error = await refusal(fetcher.fetch(`${server.origin}/doc.pdf`, { maxBytes: MB }));
      // Assert
      expect(error.message).toBe('URL refused: the download did not finish within 0.3 s');
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it('bounds a DNS lookup that never returns by the total deadline', async () => {
      const fetcher = new SafeDocumentFetcher({
        resolve: () => new Promise(() => undefined),
        totalTimeoutMs: 100,
      });
      const error = await refusal(fetcher.fetch('https://slow.example/doc.pdf', { maxBytes: MB }));
      expect(error.details).toMatchObject({ reason: 'timeout' });
    });
  });

  describe('answers that are not documents', () => {
    it('rejects an HTML page', async () => {
      // Arrange
      const server = await startServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end('<!doctype html><title>Sign in</title>');
      });
      // Act
      const error = await refusal(
        aFetcher({ allowlist: allow(server) }).fetch(`${server.origin}/doc.pdf`, { maxBytes: MB }),
      );
      // Assert
      expect(error.message).toBe('URL refused: the URL returned an HTML page, not a document');
    });

    it('rejects a 404, naming the status', async () => {
      const server = await startServer((_request, response) => {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('nope');
      });
      const error = await refusal(
        aFetcher({ allowlist: allow(server) }).fetch(`${server.origin}/gone.pdf`, { maxBytes: MB }),
      );
      expect(error.message).toBe(
        'URL refused: the URL answered HTTP 404 Not Found, not a document',
      );
      expect(error.details).toMatchObject({ reason: 'status', status: 404 });
    });

    it('rejects a compressed body it did not ask for', async () => {
      const server = await startServer(servePdf(pdf, { 'content-encoding': 'gzip' }));
      const error = await refusal(
        aFetcher({ allowlist: allow(server) }).fetch(`${server.origin}/doc.pdf`, { maxBytes: MB }),
      );
      expect(error.message).toContain('Content-Encoding gzip');
    });
  });

  describe('file names', () => {
    it.each([
      ['attachment; filename="report 2024.pdf"', 'report 2024.pdf'],
      ['attachment; filename=report.pdf', 'report.pdf'],
      [
        'attachment; filename="fallback.pdf"; filename*=UTF-8\'\'r%C3%A9sum%C3%A9.pdf',
        'résumé.pdf',
      ],
      ["attachment; filename*=iso-8859-1'en'caf%E9.pdf", 'café.pdf'],
      ['attachment; filename="../../etc/passwd"', 'passwd'],
      ['attachment; filename="a\\"b.pdf"', 'a"b.pdf'],
    ])('takes the file name from Content-Disposition %s', async (disposition, filename) => {
      // Arrange
      const server = await startServer(servePdf(pdf, { 'content-disposition': disposition }));
      // Act
      const document = await aFetcher({ allowlist: allow(server) }).fetch(
        `${server.origin}/download?id=7`,
        { maxBytes: MB },
      );
      // Assert
      expect(document.filename).toBe(filename);
    });

    it.each([
      ['/files/annual%20report.pdf', 'annual report.pdf'],
      ['/files/', null],
      ['/', null],
    ])(
      'takes the file name from the path %s without Content-Disposition',
      async (path, filename) => {
        const server = await startServer(servePdf(pdf));
        const document = await aFetcher({ allowlist: allow(server) }).fetch(
          `${server.origin}${path}`,
          { maxBytes: MB },
        );
        expect(document.filename).toBe(filename);
      },
    );
  });
});

describe('UrlGuard', () => {
  const resolve = () =>
    fakeResolver({ 'hooks.example': [PUBLIC_V4], 'inside.example': ['192.168.1.9'] });

  it.each([
    ['http://hooks.example/in', 'webhook_url refused: only https URLs can be called, not http'],
    ['https://hooks.example:8443/in', 'webhook_url refused: only port 443 can be called, not'],
    ['not a url', 'webhook_url refused: the value is not an absolute URL'],
    ['https://127.0.0.1/in', 'webhook_url refused: host 127.0.0.1 is a loopback address'],
    ['https://inside.example/in', 'webhook_url refused: host inside.example resolves to'],
    ['https://nowhere.example/in', 'webhook_url refused: host nowhere.example does not resolve'],
  ])('starts the refusal of %s with its subject', async (url, start) => {
    // Arrange
    const guard = new UrlGuard({ resolve: resolve(), verb: 'called', subject: 'webhook_url' });
    // Act
    const error = await refusal(guard.check(url));
    // Assert
    expect(error.message.startsWith(start)).toBe(true);
  });

  it('starts refusals with URL when no subject is given', async () => {
    // Act
    const error = await refusal(new UrlGuard({ resolve: resolve() }).check('http://hooks.example'));
    // Assert
    expect(error.message).toBe('URL refused: only https URLs can be fetched, not http');
  });
});

describe('parseUrlAllowlist', () => {
  it('parses hosts with and without ports, IPv6 in brackets', () => {
    expect(parseUrlAllowlist(' 127.0.0.1:8081, Docs.Test ,[::1]:9000,[::1],')).toEqual([
      { host: '127.0.0.1', port: 8081 },
      { host: 'docs.test', port: null },
      { host: '::1', port: 9000 },
      { host: '::1', port: null },
    ]);
    expect(parseUrlAllowlist(undefined)).toEqual([]);
  });

  it('throws on an entry that is not host[:port]', () => {
    expect(() => parseUrlAllowlist('a:b:c')).toThrow(/URL_FETCH_ALLOWLIST entry "a:b:c"/);
    expect(() => parseUrlAllowlist('host:70000')).toThrow(/URL_FETCH_ALLOWLIST/);
  });

  it('lets an entry without a port allow every port of its host', async () => {
    // Arrange
    const server = await startServer(servePdf(pdf));
    const fetcher = aFetcher({ allowlist: parseUrlAllowlist('127.0.0.1') });
    // Act
    const document = await fetcher.fetch(`${server.origin}/doc.pdf`, { maxBytes: MB });
    // Assert
    expect(document.bytes).toEqual(pdf);
  });
});
