import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import {
  request as httpRequest,
  STATUS_CODES,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError, PayloadTooLargeError, UrlRefusedError } from '../../core/domain/errors.js';
import type { DocumentFetcher, FetchedDocument } from '../../core/ports/document-fetcher.js';

/** One `URL_FETCH_ALLOWLIST` entry: a host, and a port or `null` for any port. */
export interface UrlAllowlistEntry {
  /** Lower-case host name or IP address (IPv6 without brackets), no trailing dot. */
  host: string;
  port: number | null;
}

/** Resolves a host name to every address it has (the `dns.promises.lookup` `all: true` shape). */
export type HostResolver = (hostname: string) => Promise<readonly LookupAddress[]>;

/** Why a URL was refused, as `details.reason` of the UrlRefusedError. */
export type UrlRefusalReason =
  | 'invalid'
  | 'scheme'
  | 'credentials'
  | 'host'
  | 'address'
  | 'dns'
  | 'port'
  | 'redirects'
  | 'timeout'
  | 'connect'
  | 'tls'
  | 'status'
  | 'content_type';

export interface SafeDocumentFetcherOptions {
  /**
   * Hosts (and ports) exempt from the scheme, port and address checks: plain http and any port
   * are allowed there and the address is not classified. For tests and local demos only.
   * @default []
   */
  allowlist?: readonly UrlAllowlistEntry[];
  /**
   * Name resolution; tests inject a fake.
   * @default - `dns.promises.lookup(host, { all: true, order: 'verbatim' })`
   */
  resolve?: HostResolver;
  /**
   * Longest wait for the TCP/TLS connection, and then for the response headers, of each hop.
   * @default 10_000
   */
  headersTimeoutMs?: number;
  /**
   * Deadline of the whole download: every lookup, redirect and body byte.
   * @default 60_000
   */
  totalTimeoutMs?: number;
  /**
   * Certificate authorities to trust instead of Node's bundled roots (tests with their own CA).
   * @default - Node's bundled root certificates
   */
  ca?: string | string[];
}

/** Redirects followed before the download is refused. */
export const MAX_REDIRECTS = 3;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Names that resolve to loopback by convention (RFC 6761, Debian's /etc/hosts); never looked up. */
const LOOPBACK_NAMES = new Set([
  'localhost',
  'localhost.localdomain',
  'ip6-localhost',
  'ip6-loopback',
]);

/** What each refused ipaddr.js range is, for the error message. */
const RANGE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  loopback: 'a loopback address',
  private: 'a private (RFC 1918) address',
  linkLocal: 'a link-local address (the range of the cloud metadata service 169.254.169.254)',
  carrierGradeNat: 'a carrier-grade NAT (RFC 6598, 100.64.0.0/10) address',
  uniqueLocal: 'a unique local IPv6 address (fc00::/7)',
  unspecified: 'the unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  '6to4': 'a 6to4 address (2002::/16), which can embed a private IPv4 address',
  teredo: 'a Teredo address (2001::/32), which can embed a private IPv4 address',
  rfc6052: 'a NAT64 address (64:ff9b::/96), which can embed a private IPv4 address',
  rfc6145: 'an IPv4-translated address (::ffff:0:0:0/96), which can embed a private IPv4 address',
  ipv4Compatible: 'an IPv4-compatible IPv6 address (::/96), which embeds an IPv4 address',
};

const TLS_ERROR_CODE = /^(ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_SSL_)/;

/** A URL that passed every check of {@link UrlGuard}, with the addresses it may connect to. */
export interface CheckedUrl {
  url: URL;
  /** Host name or IP without brackets. */
  host: string;
  /** Addresses the host name resolved to and that were checked; empty for an IP literal. */
  addresses: readonly LookupAddress[];
}

type HopOutcome = { kind: 'document'; document: FetchedDocument } | { kind: 'redirect'; to: URL };

/**
 * The address rules of outgoing requests to URLs a client gave (documents to fetch, webhook
 * receivers): https on port 443, no credentials, and only public unicast addresses: loopback,
 * private, link-local (the metadata service), carrier-grade NAT, unique local, multicast,
 * reserved and the IPv6 forms that embed IPv4 addresses are refused, for literal addresses and
 * for every address a name resolves to. Hosts of the allowlist are exempt (tests, local demos).
 */
export class UrlGuard {
  readonly #allowlist: readonly UrlAllowlistEntry[];
  readonly #resolve: HostResolver;
  readonly #verb: string;
  readonly #refused: Refusal;

  /**
   * @param options.verb ends the refusal messages ("only https URLs can be fetched").
   * @param options.subject starts them: what was refused, `URL` by default (`webhook_url
   *   refused: ...` for the field a client sent).
   */
  constructor(
    options: Pick<SafeDocumentFetcherOptions, 'allowlist' | 'resolve'> & {
      verb?: string;
      subject?: string;
    } = {},
  ) {
    this.#allowlist = options.allowlist ?? [];
    this.#resolve =
      options.resolve ?? ((hostname) => dnsLookup(hostname, { all: true, order: 'verbatim' }));
    this.#verb = options.verb ?? 'fetched';
    this.#refused = refusedAs(options.subject ?? 'URL');
  }

  /**
   * Runs every check on one URL (one hop of a download): scheme, credentials, host and its
   * addresses, then port. Connect only to the returned `addresses` (see {@link pinnedLookup}),
   * never resolve the name again: the answer could differ (DNS rebinding).
   * @throws {UrlRefusedError} (400) saying why, with `details.reason` a {@link UrlRefusalReason}.
   */
  async check(input: URL | string): Promise<CheckedUrl> {
    const url = typeof input === 'string' ? parseUrl(input, this.#refused) : input;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const defaultPort = url.protocol === 'http:' ? 80 : 443;
    const port = url.port === '' ? defaultPort : Number(url.port);
    const allowlisted = this.#allowlist.some(
      (entry) => entry.host === host.replace(/\.$/, '') && (entry.port ?? port) === port,
    );

    if (url.protocol !== 'https:' && !(allowlisted && url.protocol === 'http:')) {
      throw this.#refused(
        'scheme',
        `only https URLs can be ${this.#verb}, not ${url.protocol.slice(0, -1)}`,
      );
    }
    if (url.username !== '' || url.password !== '') {
      throw this.#refused('credentials', 'URLs with credentials (user:password@) are not accepted');
    }
    // The address before the port: it is the reason that matters, and the one to report.
    const addresses = await this.#addressesOf(host, !allowlisted);
    if (!allowlisted && port !== 443) {
      throw this.#refused('port', `only port 443 can be ${this.#verb}, not ${port}`);
    }
    return { url, host, addresses };
  }

  /** Resolves `host` (IP literals as they are) and, when `classify`, refuses any non-public address. */
  async #addressesOf(host: string, classify: boolean): Promise<readonly LookupAddress[]> {
    if (isIP(host) !== 0) {
      if (classify) assertPublic(host, null, this.#verb, this.#refused);
      return [];
    }
    const name = host.replace(/\.$/, '');
    if (classify && (LOOPBACK_NAMES.has(name) || name.endsWith('.localhost'))) {
      throw this.#refused(
        'host',
        `host ${name} is a loopback name; only public hosts can be ${this.#verb}`,
        {
          host: name,
        },
      );
    }
    let addresses: readonly LookupAddress[];
    try {
      addresses = await this.#resolve(host);
    } catch (error) {
      const code = errorCode(error) ?? 'lookup failed';
      throw this.#refused('dns', `host ${name} does not resolve (${code})`, { host: name }, error);
    }
    if (addresses.length === 0) {
      throw this.#refused('dns', `host ${name} does not resolve to any address`, { host: name });
    }
    for (const { address } of addresses) {
      if (isIP(address) === 0) {
        throw this.#refused('dns', `host ${name} resolved to something that is not an address`, {
          host: name,
        });
      }
      if (classify) assertPublic(address, name, this.#verb, this.#refused);
    }
    return addresses;
  }
}

/**
 * Parses `URL_FETCH_ALLOWLIST`: comma-separated `host`, `host:port`, `[v6]` or `[v6]:port`.
 *
 * @example
 * parseUrlAllowlist('127.0.0.1:8081, docs.test') // [{ host: '127.0.0.1', port: 8081 }, { host: 'docs.test', port: null }]
 */
export function parseUrlAllowlist(value: string | undefined): UrlAllowlistEntry[] {
  if (!value) return [];
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d+))?$/.exec(entry);
      const host = (match?.[1] ?? match?.[2])?.toLowerCase().replace(/\.$/, '');
      const port = match?.[3] === undefined ? null : Number(match[3]);
      if (!host || (port !== null && (port < 1 || port > 65535))) {
        throw new Error(
          `URL_FETCH_ALLOWLIST entry "${entry}" is not host, host:port or [ipv6]:port`,
        );
      }
      return { host, port };
    });
}

/**
 * Downloads caller-supplied URLs without reaching the service's own network (SSRF).
 *
 * Every hop (the URL and each redirect) must be `https:` on port 443 without credentials, and its
 * host must be a public unicast address or resolve only to such addresses. The connection then
 * goes to exactly the addresses that were checked: the hop's request (node:http / node:https, a
 * fresh connection) gets a `lookup` that answers from the checked list, so nothing resolves the
 * name a second time (DNS rebinding), while TLS still sends the host name as SNI and validates
 * the certificate against it. Redirects are followed by hand, at most
 * {@link MAX_REDIRECTS}. The body is streamed with a byte cap under a connect/headers timeout and
 * a deadline for the whole download.
 */
export class SafeDocumentFetcher implements DocumentFetcher {
  readonly #guard: UrlGuard;
  readonly #headersTimeoutMs: number;
  readonly #totalTimeoutMs: number;
  readonly #ca: string | string[] | undefined;

  constructor(options: SafeDocumentFetcherOptions = {}) {
    this.#guard = new UrlGuard(options);
    this.#headersTimeoutMs = options.headersTimeoutMs ?? 10_000;
    this.#totalTimeoutMs = options.totalTimeoutMs ?? 60_000;
    this.#ca = options.ca;
  }

  async fetch(url: string, options: { maxBytes: number }): Promise<FetchedDocument> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    // A race rather than the signal alone: a DNS lookup cannot be cancelled.
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(
          refused('timeout', `the download did not finish within ${seconds(this.#totalTimeoutMs)}`),
        );
      }, this.#totalTimeoutMs);
    });
    const download = this.#download(url, options.maxBytes, controller.signal);
    // Whichever loses the race settles later with nobody listening.
    download.catch(() => undefined);
    deadline.catch(() => undefined);
    try {
      return await Promise.race([download, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #download(input: string, maxBytes: number, signal: AbortSignal): Promise<FetchedDocument> {
    let url = parseUrl(input);
    for (let redirects = 0; ; redirects += 1) {
      const hop = await this.#guard.check(url);
      const outcome = await this.#get(hop, maxBytes, signal);
      if (outcome.kind === 'document') return outcome.document;
      if (redirects === MAX_REDIRECTS) {
        throw refused(
          'redirects',
          `more than ${MAX_REDIRECTS} redirects (the next one pointed to ${outcome.to.origin})`,
        );
      }
      url = outcome.to;
    }
  }

  /**
   * Sends the GET of one hop over a fresh connection (no pooled socket) whose `lookup` answers
   * only the hop's checked addresses; TLS is still verified for the host name (SNI and
   * certificate), since Node checks the certificate against `servername`, not the IP.
   */
  async #get(hop: CheckedUrl, maxBytes: number, signal: AbortSignal): Promise<HopOutcome> {
    const https = hop.url.protocol === 'https:';
    let response: IncomingMessage;
    try {
      response = await new Promise<IncomingMessage>((resolve, reject) => {
        const request = (https ? httpsRequest : httpRequest)(
          {
            hostname: hop.host,
            port: hop.url.port === '' ? undefined : Number(hop.url.port),
            path: `${hop.url.pathname}${hop.url.search}`,
            method: 'GET',
            agent: false,
            signal,
            // Connect and headers, then each silence of the body.
            timeout: this.#headersTimeoutMs,
            headers: {
              accept: '*/*',
              'accept-encoding': 'identity',
              'user-agent': 'docparse-document-fetcher/1',
            },
            ...(hop.addresses.length > 0 ? { lookup: pinnedLookup(hop.host, hop.addresses) } : {}),
            ...(https && isIP(hop.host) === 0 ? { servername: hop.host } : {}),
            ...(https && this.#ca !== undefined ? { ca: this.#ca } : {}),
          },
          resolve,
        );
        request.on('timeout', () => {
          const error: NodeJS.ErrnoException = new Error('no answer in time');
          error.code = 'HEADERS_TIMEOUT';
          request.destroy(error);
        });
        request.on('error', reject);
        request.end();
      });
    } catch (error) {
      throw this.#transportRefusal(error, hop);
    }
    try {
      return await this.#outcome(hop, response, maxBytes);
    } catch (error) {
      throw error instanceof AppError ? error : this.#transportRefusal(error, hop);
    } finally {
      response.on('error', () => undefined).destroy();
    }
  }

  async #outcome(hop: CheckedUrl, body: IncomingMessage, maxBytes: number): Promise<HopOutcome> {
    const statusCode = body.statusCode ?? 0;
    const { headers } = body;
    if (REDIRECT_STATUSES.has(statusCode)) {
      const location = header(headers, 'location');
      if (location === null) {
        throw refused('status', `the URL answered HTTP ${statusCode} without a Location header`, {
          status: statusCode,
        });
      }
      let to: URL;
      try {
        to = new URL(location, hop.url);
      } catch (error) {
        throw refused('invalid', `the URL redirected to an invalid URL`, {}, error);
      }
      return { kind: 'redirect', to };
    }
    if (statusCode < 200 || statusCode > 299) {
      const text = STATUS_CODES[statusCode];
      throw refused(
        'status',
        `the URL answered HTTP ${statusCode}${text ? ` ${text}` : ''}, not a document`,
        { status: statusCode },
      );
    }

    const contentType = mediaType(header(headers, 'content-type'));
    if (contentType === 'text/html' || contentType === 'application/xhtml+xml') {
      throw refused('content_type', 'the URL returned an HTML page, not a document', {
        contentType,
      });
    }
    const encoding = header(headers, 'content-encoding')?.trim().toLowerCase();
    if (encoding && encoding !== 'identity') {
      throw refused(
        'content_type',
        `the URL answered with Content-Encoding ${encoding} although identity was requested`,
      );
    }
    const declared = Number(header(headers, 'content-length') ?? Number.NaN);
    if (declared > maxBytes) throw tooLarge(maxBytes);

    const chunks: Uint8Array[] = [];
    let length = 0;
    for await (const chunk of body as AsyncIterable<Uint8Array>) {
      length += chunk.byteLength;
      if (length > maxBytes) throw tooLarge(maxBytes);
      chunks.push(chunk);
    }
    const bytes = new Uint8Array(length);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }

    const finalUrl = new URL(hop.url);
    finalUrl.hash = '';
    return {
      kind: 'document',
      document: {
        bytes,
        contentType,
        finalUrl: finalUrl.href,
        filename:
          filenameFromDisposition(header(headers, 'content-disposition')) ??
          filenameFromPath(finalUrl.pathname),
      },
    };
  }

  /** Turns a socket, timeout or TLS failure into a refusal that names the cause. */
  #transportRefusal(error: unknown, hop: CheckedUrl): unknown {
    const code = errorCode(error);
    if (code === undefined) return error;
    const where = hop.url.host;
    switch (code) {
      case 'HEADERS_TIMEOUT':
      case 'ETIMEDOUT':
        return refused(
          'timeout',
          `${where} did not answer within ${seconds(this.#headersTimeoutMs)}`,
          {},
          error,
        );
      case 'ECONNRESET':
        return refused('connect', `${where} closed the connection (${code})`, {}, error);
      default:
        if (TLS_ERROR_CODE.test(code)) {
          return refused(
            'tls',
            `the TLS certificate of ${where} is not valid for it (${code})`,
            {},
            error,
          );
        }
        return refused('connect', `could not download from ${where} (${code})`, {}, error);
    }
  }
}

function parseUrl(input: string, refusal: Refusal = refused): URL {
  try {
    return new URL(input);
  } catch (error) {
    throw refusal('invalid', 'the value is not an absolute URL', {}, error);
  }
}

/** @throws {UrlRefusedError} unless `address` is public unicast (IPv4-mapped IPv6 unwrapped first). */
function assertPublic(
  address: string,
  resolvedFrom: string | null,
  verb: string,
  refusal: Refusal,
): void {
  const parsed = ipaddr.process(address);
  let range: string = parsed.range();
  if (range === 'unicast' && parsed.kind() === 'ipv6' && isIpv4Compatible(parsed.toByteArray())) {
    range = 'ipv4Compatible';
  }
  if (range === 'unicast') return;
  const description = RANGE_DESCRIPTIONS[range] ?? `a special-purpose address (${range})`;
  const shown = parsed.toString() === address ? address : `${address} (${parsed.toString()})`;
  const subject =
    resolvedFrom === null
      ? `host ${shown} is ${description}`
      : `host ${resolvedFrom} resolves to ${shown}, ${description}`;
  throw refusal('address', `${subject}; only public addresses can be ${verb}`, {
    address,
    range,
    ...(resolvedFrom === null ? {} : { host: resolvedFrom }),
  });
}

/** `::a.b.c.d` (deprecated RFC 4291 form); `::` and `::1` are classified before this. */
function isIpv4Compatible(bytes: readonly number[]): boolean {
  return bytes.slice(0, 12).every((byte) => byte === 0);
}

/** A `lookup` for net/tls that answers `host` with the checked addresses and nothing else. */
export function pinnedLookup(host: string, addresses: readonly LookupAddress[]): LookupFunction {
  return (requested, options, callback) => {
    const family =
      options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    const candidates =
      requested === host
        ? addresses.filter((address) => family === 0 || address.family === family)
        : [];
    const first = candidates[0];
    if (first === undefined) {
      const error: NodeJS.ErrnoException = new Error(
        `no checked address for ${requested} (family ${family})`,
      );
      error.code = 'ENOTFOUND';
      callback(error, '');
    } else if (options.all === true) {
      callback(null, [...candidates]);
    } else {
      callback(null, first.address, first.family);
    }
  };
}

function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

function mediaType(contentType: string | null): string | null {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type ? type : null;
}

/** `filename*=` (RFC 5987/6266) first, then `filename=`, quoted or not. */
function filenameFromDisposition(disposition: string | null): string | null {
  if (disposition === null) return null;
  const extended = /(?:^|;)\s*filename\*\s*=\s*([^;]+)/i.exec(disposition)?.[1]?.trim();
  const parts = extended === undefined ? null : /^([^']*)'[^']*'(.*)$/.exec(extended);
  if (parts) {
    const charset = (parts[1] ?? '').toLowerCase();
    const encoded = parts[2] ?? '';
    try {
      const name =
        charset === 'utf-8'
          ? decodeURIComponent(encoded)
          : encoded.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
              String.fromCharCode(parseInt(hex, 16)),
            );
      const safe = safeFilename(name);
      if (safe !== null) return safe;
    } catch {
      // A malformed extended value falls back to the plain parameter.
    }
  }
  const plain = /(?:^|;)\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(disposition);
  const quoted = plain?.[1]?.replace(/\\(.)/g, '$1');
  return safeFilename(quoted ?? plain?.[2] ?? '');
}

function filenameFromPath(pathname: string): string | null {
  const segment = pathname.split('/').pop() ?? '';
  try {
    return safeFilename(decodeURIComponent(segment));
  } catch {
    return safeFilename(segment);
  }
}

/** The last path segment, without control characters; null when nothing usable is left. */
function safeFilename(name: string): string | null {
  const base = (name.split(/[/\\]/).pop() ?? '').replace(/\p{Cc}/gu, '').trim();
  return base === '' || base === '.' || base === '..' ? null : base;
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

function tooLarge(maxBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `the document at the URL is larger than the maximum of ${maxBytes} bytes`,
    { details: { maxBytes } },
  );
}

/** Makes the UrlRefusedError of one refusal. */
type Refusal = (
  reason: UrlRefusalReason,
  message: string,
  details?: Record<string, unknown>,
  cause?: unknown,
) => UrlRefusedError;

/** Refusals whose messages start `<subject> refused: `. */
function refusedAs(subject: string): Refusal {
  return (reason, message, details = {}, cause) =>
    new UrlRefusedError(`${subject} refused: ${message}`, {
      ...(cause === undefined ? {} : { cause }),
      details: { reason, ...details },
    });
}

const refused = refusedAs('URL');
