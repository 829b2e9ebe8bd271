import type { APIGatewayProxyEvent } from 'aws-lambda';
import { anonymousIdentity } from '../../functions/adapters/local/proxy-event.js';
import { lambdaContext } from '../../functions/adapters/local/lambda-context.js';
import { loadConfig } from '../../functions/config.js';
import type { Deps } from '../../functions/container.js';
import { outboundHttp } from '../../functions/outbound-http.js';
import type { AppDeps } from '../../functions/core/app/app-deps.js';
import { hashApiKey } from '../../functions/core/app/authenticate.js';
import { createUpload, uploadKeys } from '../../functions/core/app/uploads.js';
import { workKeys } from '../../functions/core/domain/object-keys.js';
import {
  type PipelinePorts,
  type PipelineSettings,
  type ProviderRegistry,
} from '../../functions/core/ports/pipeline.js';
import {
  DEFAULT_PARSE_OPTIONS,
  type ParseOptions,
  type RequestRecord,
} from '../../functions/core/domain/request.js';
import type { ProviderCapability } from '../../functions/core/domain/routing.js';
import type { DocumentFormat, Tier } from '../../functions/core/domain/schemas.js';
import type { Clock } from '../../functions/core/ports/clock.js';
import type { EventLog, ProgressSink } from '../../functions/core/ports/event-log.js';
import type { ProviderPrice } from '../../functions/core/domain/pricing.js';
import { DEFAULT_BREAKER_POLICY } from '../../functions/core/domain/circuit-breaker.js';
import { DEFAULT_PLAN_LIMITS } from '../../functions/core/domain/plans.js';
import { ProviderBreakers } from '../../functions/core/domain/provider-breakers.js';
import { AslWorkflow } from './asl-workflow.js';
import { FakeBreakerStore } from './fake-breaker-store.js';
import type {
  DocumentEngine,
  DocumentInspection,
  DocumentRef,
  PageFeatures,
} from '../../functions/core/ports/document-engine.js';
import type {
  PageParseRequest,
  PageProvider,
  ProviderPageResult,
} from '../../functions/core/ports/page-provider.js';
import { OfflineExtractor } from '../../functions/engines/extraction/offline-extractor.js';
import { detectFormat } from '../../functions/engines/image/detect-format.js';
import {
  FakeUploadSigner,
  InMemoryApiKeyStore,
  InMemoryBatchStore,
  InMemoryWebhookSecretStore,
  InMemoryEventLog,
  InMemoryObjectStore,
  InMemoryRequestStore,
  InMemoryUsageStore,
} from './fakes.js';

export { lambdaContext };

/** The instant every builder's clock starts at. */
export const T0 = new Date('2025-03-04T05:06:07.000Z');

/** A clock that stands still until advanced. */
export class ManualClock implements Clock {
  #now: number;

  constructor(start: Date = T0) {
    this.#now = start.getTime();
  }

  now(): Date {
    return new Date(this.#now);
  }

  advance(ms: number): void {
    this.#now += ms;
  }
}

/** The parse options of a request with every field at its specification default. */
export function parseOptions(overrides: Partial<ParseOptions> = {}): ParseOptions {
  return { ...DEFAULT_PARSE_OPTIONS, ...overrides };
}

/** A queued request record for a stored PDF; `overrides` replace top-level fields. */
export function aRequestRecord(overrides: Partial<RequestRecord> = {}): RequestRecord {
  const id = overrides.id ?? 'req_abc123';
  return {
    id,
    tenant: 'tenant-a',
    status: 'queued',
    createdAt: T0.toISOString(),
    updatedAt: T0.toISOString(),
    options: parseOptions(),
    document: {
      key: workKeys.upload(id),
      format: 'pdf',
      hash: 'ab'.repeat(32),
      filename: 'report.pdf',
      sizeBytes: 1234,
    },
    ...overrides,
  };
}

/** Features of a plain single-column letter page with a clean text layer (complexity 0). */
export function pageFeatures(overrides: Partial<PageFeatures> = {}): PageFeatures {
  return {
    pageNumber: 1,
    widthPt: 612,
    heightPt: 792,
    textChars: 2400,
    garbageRatio: 0,
    textCoverage: 0.45,
    imageCoverage: 0,
    ruleCount: 0,
    tableAlignment: 0,
    columnCount: 1,
    fontCount: 2,
    mathCharRatio: 0,
    invisibleCharRatio: 0,
    usableTextLayer: true,
    ...overrides,
  };
}

/** Features of a scanned page: no text layer, one full-page image (complexity 0.45). */
export function scannedPageFeatures(pageNumber: number): PageFeatures {
  return pageFeatures({
    pageNumber,
    textChars: 0,
    textCoverage: 0,
    imageCoverage: 1,
    fontCount: 0,
    usableTextLayer: false,
  });
}

/** A DocumentEngine answering from fixed page features; records what it was asked. */
export class FakeDocumentEngine implements DocumentEngine {
  readonly opened: DocumentRef[] = [];
  readonly inspected: number[][] = [];
  readonly #pageCount: number;
  readonly #features: (pageNumber: number) => PageFeatures;
  readonly #profile: unknown;

  constructor(
    options: {
      pageCount?: number;
      features?: (pageNumber: number) => PageFeatures;
      profile?: unknown;
    } = {},
  ) {
    this.#pageCount = options.pageCount ?? 1;
    this.#features = options.features ?? ((pageNumber) => pageFeatures({ pageNumber }));
    this.#profile = options.profile ?? { bodyFontSize: 10 };
  }

  open(ref: DocumentRef): Promise<{ pageCount: number }> {
    this.opened.push(ref);
    return Promise.resolve({ pageCount: this.#pageCount });
  }

  inspect(ref: DocumentRef, pageNumbers: readonly number[]): Promise<DocumentInspection> {
    this.inspected.push([...pageNumbers]);
    return Promise.resolve({
      pages: pageNumbers.map((n) => this.#features(n)),
      profile: this.#profile,
    });
  }
}

/** A provider answer for a clean page whose text matches its evidence word for word. */
export function aProviderResult(overrides: Partial<ProviderPageResult> = {}): ProviderPageResult {
  return {
    markdown: '# Annual report\n\nRevenue grew in every region this year.',
    elements: [
      {
        text: 'Annual report',
        bbox: { x: 72, y: 60, w: 400, h: 30 },
        label: 'paragraph',
        elementType: 'title',
        confidence: 0.98,
      },
      {
        text: 'Revenue grew in every region this year.',
        bbox: { x: 72, y: 120, w: 460, h: 20 },
        label: 'paragraph',
        elementType: 'paragraph',
        confidence: 0.97,
      },
    ],
    dpi: 144,
    width: 1224,
    height: 1584,
    model: 'fake-model-1',
    tokens: { input: 120, output: 40 },
    ocrScore: null,
    layoutScore: 0.95,
    evidenceText: 'Annual report Revenue grew in every region this year.',
    ...overrides,
  };
}

type ProviderAnswer = (
  request: PageParseRequest,
) => ProviderPageResult | Promise<ProviderPageResult>;

/** A PageProvider answering with a fixed result (or a function of the request); records its calls. */
export class FakePageProvider implements PageProvider {
  readonly calls: PageParseRequest[] = [];
  /** The hints of {@link PageProvider.prefetch} it was given. */
  readonly prefetched: PageParseRequest[] = [];
  readonly id: string;
  readonly model: string;
  readonly #answer: ProviderAnswer;

  constructor(
    id: string,
    answer: Partial<ProviderPageResult> | ProviderAnswer = {},
    model = `${id}-model`,
  ) {
    this.id = id;
    this.model = model;
    this.#answer =
      typeof answer === 'function'
        ? answer
        : () => aProviderResult({ model: this.model, ...answer });
  }

  async parsePage(request: PageParseRequest): Promise<ProviderPageResult> {
    this.calls.push(request);
    return this.#answer(request);
  }

  prefetch(request: PageParseRequest): void {
    this.prefetched.push(request);
  }
}

/**
 * A registry whose tiers all use `entries` in order (or the given per-tier chains of ids).
 * Providers charge nothing unless `entries` give a price.
 */
export function providerRegistry(
  entries: {
    provider: PageProvider;
    needsTextLayer: boolean;
    generative?: boolean;
    price?: ProviderPrice;
  }[],
  chains: Partial<Record<Tier, readonly string[]>> = {},
): ProviderRegistry {
  const byId = new Map(entries.map((e) => [e.provider.id, e]));
  const all: ProviderCapability[] = entries.map((e) => ({
    id: e.provider.id,
    needsTextLayer: e.needsTextLayer,
    generative: e.generative ?? false,
    model: e.provider.model,
  }));
  return {
    get(id) {
      const entry = byId.get(id);
      if (!entry) throw new Error(`provider ${id} is not registered`);
      return entry.provider;
    },
    chain(tier) {
      const ids = chains[tier];
      if (!ids) return all;
      return ids.map((id) => ({
        id,
        needsTextLayer: byId.get(id)?.needsTextLayer ?? false,
        generative: byId.get(id)?.generative ?? false,
        model: byId.get(id)?.provider.model ?? id,
      }));
    },
    ids() {
      const listed = [...all.map((c) => c.id), ...Object.values(chains).flat()];
      return [...new Set(listed)];
    },
    price(id) {
      const entry = byId.get(id);
      if (!entry) throw new Error(`provider ${id} is not registered`);
      return entry.price ?? { perPageUsd: 0, perInputTokenUsd: 0, perOutputTokenUsd: 0 };
    },
    extractionChain: () => [],
    extractor(id) {
      throw new Error(`extractor ${id} is not registered`);
    },
    prefetch(id, request) {
      byId.get(id)?.provider.prefetch?.(request);
    },
  };
}

/** Router thresholds and prices of the default configuration. */
export const SETTINGS: PipelineSettings = {
  maxDocumentPages: 1000,
  thresholds: { fastCeiling: 0.35, proCeiling: 0.7 },
  priceByTier: { fast: 0.001, pro: 0.01, premium: 0.03 },
  planLimits: DEFAULT_PLAN_LIMITS,
};

/** The in-memory ports of a pipeline, with the fakes exposed for assertions. */
export interface PipelineWorld extends PipelinePorts {
  requests: InMemoryRequestStore;
  events: InMemoryEventLog;
  objects: InMemoryObjectStore;
  clock: ManualClock;
  engine: FakeDocumentEngine;
  textProvider: FakePageProvider;
  ocrProvider: FakePageProvider;
  breakers: ProviderBreakers;
  breakerStore: FakeBreakerStore;
  usage: InMemoryUsageStore;
}

export interface PipelineOptions {
  engine?: FakeDocumentEngine;
  /** Formats with an engine (default: pdf and the image formats). */
  formats?: readonly DocumentFormat[];
  textProvider?: FakePageProvider;
  ocrProvider?: FakePageProvider;
  providers?: ProviderRegistry;
  settings?: Partial<PipelineSettings>;
}

const ENGINE_FORMATS: readonly DocumentFormat[] = ['pdf', 'png', 'jpeg', 'webp', 'tiff', 'heic'];

/**
 * Pipeline ports in memory: a text-layer provider (`pdf-text`) then an OCR provider (`ocr`) on
 * every tier, as the default deployment registers them.
 */
export function aPipeline(options: PipelineOptions = {}): PipelineWorld {
  const clock = new ManualClock();
  const engine = options.engine ?? new FakeDocumentEngine();
  const formats = options.formats ?? ENGINE_FORMATS;
  const textProvider = options.textProvider ?? new FakePageProvider('pdf-text');
  const ocrProvider =
    options.ocrProvider ??
    new FakePageProvider('ocr', { ocrScore: 0.91, evidenceText: null, model: 'ocr-model' });
  const breakerStore = new FakeBreakerStore();
  return {
    requests: new InMemoryRequestStore(),
    events: new InMemoryEventLog(clock),
    breakerStore,
    breakers: new ProviderBreakers(breakerStore, DEFAULT_BREAKER_POLICY, clock),
    objects: new InMemoryObjectStore(),
    usage: new InMemoryUsageStore(),
    clock,
    engine,
    textProvider,
    ocrProvider,
    engineFor: (format) => (formats.includes(format) ? engine : undefined),
    providers:
      options.providers ??
      providerRegistry([
        { provider: textProvider, needsTextLayer: true },
        { provider: ocrProvider, needsTextLayer: false },
      ]),
    offlineExtractor: new OfflineExtractor(),
    settings: { ...SETTINGS, ...options.settings },
  };
}

/** Stores a document and its queued request record, as the upload endpoint would. */
export async function aStoredRequest(
  world: Pick<PipelinePorts, 'requests' | 'objects'>,
  overrides: Partial<RequestRecord> = {},
): Promise<RequestRecord> {
  const record = aRequestRecord(overrides);
  await world.objects.put(record.document.key, TINY_PDF, 'application/pdf');
  await world.requests.create(record);
  return record;
}

/** The bodies of the events logged for a request, in order. */
export async function eventsOf(
  events: EventLog,
  requestId: string,
): Promise<Record<string, unknown>[]> {
  return (await events.list(requestId)).map((e) => e.body);
}

/** The API key every builder registers, and its tenant. */
export const API_KEY = 'test-key-tenant-a';
export const TENANT = 'tenant-a';
export const OTHER_API_KEY = 'test-key-tenant-b';
export const OTHER_TENANT = 'tenant-b';

/** Application dependencies in memory, the pipeline run by the state machine's definition. */
export type AppWorld = PipelineWorld &
  AppDeps & {
    apiKeys: InMemoryApiKeyStore;
    workflow: AslWorkflow;
    uploads: FakeUploadSigner;
  };

/**
 * Creates an upload slot for `tenant` (file name `big.pdf`) and stores `bytes` where its form
 * would. @returns the slot's `upload_id`.
 */
export async function anUploadedSlot(
  world: AppWorld,
  bytes: Uint8Array = TINY_PDF,
  tenant = TENANT,
): Promise<string> {
  const slot = await createUpload(world, { tenant, filename: 'big.pdf', contentType: null });
  await world.objects.put(uploadKeys.document(tenant, slot.upload_id), bytes, 'application/pdf');
  return slot.upload_id;
}

/**
 * Application dependencies in memory. `pageConcurrency` is the state machine's Map concurrency
 * (default 2); 1 parses the pages one after the other, for tests that need their order.
 */
export function anAppWorld(
  options: PipelineOptions & { maxUploadBytes?: number; pageConcurrency?: number } = {},
): Promise<AppWorld> {
  const pipeline = aPipeline(options);
  const apiKeys = new InMemoryApiKeyStore();
  const workflow = new AslWorkflow();
  let next = 0;
  const world: AppWorld = {
    ...pipeline,
    apiKeys,
    workflow,
    uploads: new FakeUploadSigner(),
    webhookSecrets: new InMemoryWebhookSecretStore(),
    batches: new InMemoryBatchStore(),
    detectFormat,
    newId: () => `id${String(++next).padStart(4, '0')}`,
    limits: {
      maxUploadBytes: options.maxUploadBytes ?? 1024 * 1024,
      pageConcurrency: options.pageConcurrency ?? 2,
    },
  };
  return Promise.all([
    // The stage handlers take what they use of Deps from the world: the pipeline's ports.
    workflow.bind(() => Promise.resolve(world as unknown as Deps), pipeline.requests),
    apiKeys.put({
      keyHash: hashApiKey(API_KEY),
      tenant: TENANT,
      plan: 'pro',
      createdAt: T0.toISOString(),
    }),
    apiKeys.put({
      keyHash: hashApiKey(OTHER_API_KEY),
      tenant: OTHER_TENANT,
      plan: 'free',
      createdAt: T0.toISOString(),
    }),
  ]).then(() => world);
}

/** The handlers' dependencies: an {@link AppWorld} plus configuration and `close`. */
export type FakeDeps = AppWorld & Deps;

export async function fakeDeps(
  options: PipelineOptions & { maxUploadBytes?: number } = {},
): Promise<FakeDeps> {
  const world = await anAppWorld(options);
  const config = loadConfig({
    RUNTIME_MODE: 'local',
    MAX_UPLOAD_BYTES: String(world.limits.maxUploadBytes),
  });
  return Object.assign(world, {
    config,
    outbound: outboundHttp(config),
    warmUp: () => Promise.resolve(),
    close: () => Promise.resolve(),
  });
}

/**
 * A one-page PDF (a valid file: header, catalog, pages, page, xref and trailer), small enough to
 * inline.
 */
export const TINY_PDF: Uint8Array = pdfOf([
  '<< /Type /Catalog /Pages 2 0 R >>',
  '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
  '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
]);

/**
 * A PDF file of `objects` (their dictionaries and streams, object 1 the catalog), numbered from
 * 1 in order, with its cross-reference table and trailer. Latin-1 text only.
 */
export function pdfOf(objects: readonly string[]): Uint8Array {
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Uint8Array.from(body, (c) => c.charCodeAt(0) & 0xff);
}

/**
 * A one-page PDF (Letter) whose content stream is `content`, font /F1 Helvetica, with a
 * ToUnicode map of `toUnicode` (byte code → UTF-16BE hex of what it maps to) when given.
 */
export function textPdf(content: string, toUnicode?: ReadonlyMap<number, string>): Uint8Array {
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(2, '0');
  const cmap =
    toUnicode &&
    '/CIDInit /ProcSet findresource begin 12 dict begin begincmap ' +
      '1 begincodespacerange <00> <FF> endcodespacerange\n' +
      `${toUnicode.size} beginbfchar\n` +
      [...toUnicode].map(([code, utf16]) => `<${hex(code)}> <${utf16}>`).join('\n') +
      '\nendbfchar endcmap CMapName currentdict /CMap defineresource pop end end';
  const stream = (data: string) => `<< /Length ${data.length} >>\nstream\n${data}\nendstream`;
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    stream(content),
    `<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica${cmap ? ' /ToUnicode 6 0 R' : ''} >>`,
    ...(cmap ? [stream(cmap)] : []),
  ]);
}

export const BOUNDARY = 'docparse-test-boundary-7f3a';

export type MultipartPart =
  | { name: string; value: string }
  | { name: string; filename: string; contentType?: string; content: Uint8Array };

/** A multipart/form-data body with `BOUNDARY`. */
export function multipartBody(parts: readonly MultipartPart[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if ('content' in part) {
      chunks.push(
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`,
        ),
        Buffer.from(part.content),
        Buffer.from('\r\n'),
      );
    } else {
      chunks.push(
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`,
        ),
      );
    }
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

/** An API Gateway REST (v1) proxy event. */
export function anApiEvent(overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  const method = overrides.httpMethod ?? 'GET';
  const path = overrides.path ?? '/v1/live';
  return {
    body: null,
    headers: {},
    multiValueHeaders: {},
    httpMethod: method,
    isBase64Encoded: false,
    path,
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    resource: overrides.resource ?? path,
    requestContext: {
      accountId: '000000000000',
      apiId: 'api1234567',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: method,
      identity: anonymousIdentity('127.0.0.1', 'vitest'),
      path: `/prod${path}`,
      stage: 'prod',
      requestId: 'apigw-request-1',
      requestTimeEpoch: T0.getTime(),
      resourceId: 'res123',
      resourcePath: overrides.resource ?? path,
    },
    ...overrides,
  };
}

/** A POST /v1/parse/upload event with a base64-encoded multipart body. */
export function anUploadEvent(
  options: {
    apiKey?: string | null;
    file?: { filename?: string; content: Uint8Array; contentType?: string } | null;
    fields?: Record<string, string>;
    query?: Record<string, string>;
  } = {},
): APIGatewayProxyEvent {
  const parts: MultipartPart[] = Object.entries(options.fields ?? {}).map(([name, value]) => ({
    name,
    value,
  }));
  const file = options.file === undefined ? { content: TINY_PDF } : options.file;
  if (file) {
    parts.push({
      name: 'file',
      filename: file.filename ?? 'report.pdf',
      contentType: file.contentType ?? 'application/pdf',
      content: file.content,
    });
  }
  const apiKey = options.apiKey === undefined ? API_KEY : options.apiKey;
  return anApiEvent({
    httpMethod: 'POST',
    path: '/v1/parse/upload',
    isBase64Encoded: true,
    body: multipartBody(parts).toString('base64'),
    headers: {
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      ...(apiKey === null ? {} : { 'X-API-Key': apiKey }),
    },
    queryStringParameters: options.query ?? null,
  });
}

/** A GET event with the API key header (unless `apiKey` is null). */
export function aGetEvent(
  path: string,
  options: {
    apiKey?: string | null;
    pathParameters?: Record<string, string>;
    query?: Record<string, string>;
  } = {},
): APIGatewayProxyEvent {
  const apiKey = options.apiKey === undefined ? API_KEY : options.apiKey;
  return anApiEvent({
    httpMethod: 'GET',
    path,
    headers: apiKey === null ? {} : { 'x-api-key': apiKey },
    pathParameters: options.pathParameters ?? null,
    queryStringParameters: options.query ?? null,
  });
}

/** A handler result's JSON body. */
export function bodyOf(result: { body: string }): Record<string, unknown> {
  return JSON.parse(result.body) as Record<string, unknown>;
}

/**
 * A stage's progress sink that appends straight to `events` (the in-memory log stores an event
 * as soon as it is appended, so tests see it when the stage returns).
 */
export const progressTo = (events: EventLog, requestId: string): ProgressSink => ({
  emit: (event) => {
    void events.append(requestId, event);
  },
});
