/**
 * Batch throughput: documents of the dev corpus (born-digital PDFs and images, cycled), served by
 * a local origin, parsed by the local service in this process as one batch through
 * POST /v1/parse/batch (polling GET /v1/batch/{id} until it ends) and, optionally, first one after
 * the other through POST /v1/parse (each request waits for its result). One document is parsed
 * before both so that they find the engines warm.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CORPUS_DIR, IMAGE_FORMATS, loadManifest, type ManifestDoc } from './corpus.js';
import type { LocalServer } from '../functions/local-server.js';
import { startBenchServer } from './local-server.js';

export type BatchPriority = 'normal' | 'high' | 'low';

export interface BatchThroughputOptions {
  /** Documents in the batch (the corpus files are cycled). */
  count: number;
  /** `BATCH_CONCURRENCY` of the service: documents of a batch parsed at once. */
  concurrency: number;
  priority: BatchPriority;
  /** Also parse the same documents one after the other through POST /v1/parse, first. */
  sequential: boolean;
  /** Progress and result lines (stdout by default). */
  log?: (line: string) => void;
}

/** Wall time and rates of one way of parsing the documents. */
export interface ThroughputFigures {
  /** Wall time, in seconds. */
  seconds: number;
  /** Documents that completed. */
  completed: number;
  failed: number;
  /** Pages of the completed documents (from the manifest). */
  pages: number;
  /** Completed documents per second of wall time. */
  documentsPerSecond: number;
  /** Pages of the completed documents per second of wall time. */
  pagesPerSecond: number;
}

export interface BatchThroughputResult {
  count: number;
  /** Born-digital PDFs among the documents. */
  pdfs: number;
  images: number;
  /** Distinct corpus files the documents cycle over. */
  corpusFiles: number;
  concurrency: number;
  priority: BatchPriority;
  /** CPUs available to this process. */
  cpus: number;
  batch: ThroughputFigures & {
    /** Time until POST /v1/parse/batch answered, in milliseconds. */
    acceptedMs: number;
    /** The batch's terminal status. */
    status: string;
    /** The batch's item counts by status. */
    totals: Record<string, number>;
    /** Failed items grouped by file and error. */
    failures: { reason: string; count: number }[];
  };
  /** Present when `sequential` was asked for. */
  sequential?: ThroughputFigures;
  /** Sequential wall time over batch wall time, when both ran. */
  speedUp?: number;
}

const API_KEY = 'bench-batch-key-0001';

/** Runs the batch (and the sequential parse when asked) and returns their figures. */
export async function measureBatchThroughput(
  options: BatchThroughputOptions,
): Promise<BatchThroughputResult> {
  const log =
    options.log ??
    ((line: string) => {
      console.log(line);
    });
  const corpus = loadManifest().filter(
    (d) =>
      (d.format === 'pdf' && d.categories.includes('born-digital')) || IMAGE_FORMATS.has(d.format),
  );
  const byName = new Map<string, ManifestDoc>(corpus.map((d) => [basename(d.file), d]));
  const files = new Map(
    corpus.map((d) => [basename(d.file), readFileSync(join(CORPUS_DIR, d.file))]),
  );
  const names = Array.from({ length: options.count }, (_, i) =>
    basename(corpus[i % corpus.length]!.file),
  );
  const pagesOf = (name: string) => byName.get(name)?.pages ?? 0;

  const origin = await startOrigin(files);
  const originPort = (origin.address() as AddressInfo).port;
  // A query string per position, so that every document is its own download.
  const urls = names.map((name, i) => `http://127.0.0.1:${originPort}/files/${name}?n=${i + 1}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'docparse-bench-batch-'));
  let service: LocalServer | undefined;

  async function call(method: string, path: string, body?: unknown) {
    if (!service) throw new Error('the service is not running');
    const res = await fetch(`${service.url}${path}`, {
      method,
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  const figures = (ms: number, completedNames: string[], failed: number): ThroughputFigures => {
    const pages = completedNames.reduce((n, name) => n + pagesOf(name), 0);
    const s = ms / 1000;
    return {
      seconds: s,
      completed: completedNames.length,
      failed,
      pages,
      documentsPerSecond: completedNames.length / s,
      pagesPerSecond: pages / s,
    };
  };
  const rates = (f: ThroughputFigures) =>
    `${f.documentsPerSecond.toFixed(2)} documents/s, ${f.pagesPerSecond.toFixed(2)} pages/s`;

  try {
    service = await startBenchServer({
      dataDir,
      apiKey: API_KEY,
      env: {
        URL_FETCH_ALLOWLIST: `127.0.0.1:${originPort}`,
        BATCH_CONCURRENCY: String(options.concurrency),
      },
    });
    const pdfs = names.filter((n) => n.endsWith('.pdf')).length;
    log(
      `${options.count} documents (${pdfs} born-digital PDFs, ${options.count - pdfs} images) cycled over ${corpus.length} corpus files; ` +
        `batch concurrency ${options.concurrency}, priority ${options.priority}, ${availableParallelism()} CPUs`,
    );
    await call('POST', '/v1/parse', { file_url: urls[0] });

    // 1. One after the other.
    let sequential: ThroughputFigures | undefined;
    if (options.sequential) {
      const start = Date.now();
      const done: string[] = [];
      let failed = 0;
      for (const [i, url] of urls.entries()) {
        const { status } = await call('POST', '/v1/parse', { file_url: url });
        if (status === 200) done.push(names[i]!);
        else failed += 1;
      }
      sequential = figures(Date.now() - start, done, failed);
      log(
        `POST /v1/parse one after the other: ${seconds(sequential.seconds * 1000)} s (${failed} failed), ${rates(sequential)}`,
      );
    }

    // 2. One batch.
    const start = Date.now();
    const accepted = await call('POST', '/v1/parse/batch', {
      documents: urls.map((file_url) => ({ file_url })),
      priority: options.priority,
    });
    if (accepted.status !== 200) throw new Error(`batch refused: ${JSON.stringify(accepted.body)}`);
    const acceptedMs = Date.now() - start;
    let batch: Record<string, unknown>;
    for (;;) {
      batch = (await call('GET', `/v1/batch/${String(accepted.body.batch_id)}`)).body;
      if (batch.status === 'completed' || batch.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const batchMs = Date.now() - start;
    const items = batch.items as { status: string; file_url: string; error?: unknown }[];
    const nameOf = (url: string) => basename(new URL(url).pathname);
    const completed = items.filter((i) => i.status === 'completed').map((i) => nameOf(i.file_url));
    const failures = new Map<string, number>();
    for (const item of items) {
      if (item.status !== 'failed') continue;
      const key = `${nameOf(item.file_url)}: ${JSON.stringify(item.error)}`;
      failures.set(key, (failures.get(key) ?? 0) + 1);
    }
    const batchFigures = figures(batchMs, completed, items.length - completed.length);
    log(
      `POST /v1/parse/batch (answered in ${acceptedMs} ms) until ${batch.status}: ${seconds(batchMs)} s, totals ${JSON.stringify(batch.totals)}, ${rates(batchFigures)}`,
    );
    for (const [failure, count] of failures) log(`  failed ${count}x ${failure}`);
    const speedUp = sequential ? sequential.seconds / batchFigures.seconds : undefined;
    if (speedUp !== undefined) log(`speed-up: ${speedUp.toFixed(2)}x`);
    return {
      count: options.count,
      pdfs,
      images: options.count - pdfs,
      corpusFiles: corpus.length,
      concurrency: options.concurrency,
      priority: options.priority,
      cpus: availableParallelism(),
      batch: {
        ...batchFigures,
        acceptedMs,
        status: batch.status,
        totals: batch.totals as Record<string, number>,
        failures: [...failures].map(([reason, count]) => ({ reason, count })),
      },
      ...(sequential ? { sequential } : {}),
      ...(speedUp !== undefined ? { speedUp } : {}),
    };
  } finally {
    await service?.close();
    origin.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** An HTTP origin on 127.0.0.1 serving `files` under `/files/<name>`. */
async function startOrigin(files: ReadonlyMap<string, Buffer>): Promise<Server> {
  const origin = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? '/').slice('/files/'.length).split('?')[0] ?? '');
    const body = files.get(name);
    if (!body) {
      res.writeHead(404);
      res.end();
      return;
    }
    const type = name.endsWith('.pdf')
      ? 'application/pdf'
      : name.endsWith('.png')
        ? 'image/png'
        : 'image/jpeg';
    res.writeHead(200, { 'content-type': type, 'content-length': body.byteLength });
    res.end(body);
  });
  await new Promise<void>((ready) => origin.listen(0, '127.0.0.1', ready));
  return origin;
}
