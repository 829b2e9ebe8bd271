import type { ProgressSink } from '../../ports/event-log.js';
import { confidenceReport } from '../confidence.js';
import { NotFoundError } from '../errors.js';
import { plainText, tableIntegrity, textSimilarity } from '../markdown.js';
import type { PageCheckpoint } from '../request.js';
import type { GroundingEntry, Page } from '../schemas.js';
import type { ProviderPageResult } from '../../ports/page-provider.js';
import { readInspection } from './classify.js';
import { documentRef, loadRequest } from './load-request.js';
import { workKeys, type PageStageInput, type PipelinePorts } from './pipeline-ports.js';

/** Checkpoints above this many bytes of JSON go to the ObjectStore behind a pointer (DynamoDB items hold 400 KB). */
const INLINE_CHECKPOINT_BYTES = 300_000;

/**
 * ParsePage: runs the page's routed provider, scores the result, and writes the page checkpoint.
 * Emits `vlm.page.done` with the page's mean confidence.
 *
 * Safe to retry: the checkpoint is keyed by request and page number.
 * @throws {ProviderUnavailableError} retryable; the state machine backs off.
 */
export async function parsePage(
  input: PageStageInput,
  ports: Pick<PipelinePorts, 'requests' | 'objects' | 'providers' | 'clock'>,
  progress: ProgressSink,
): Promise<{ pageNumber: number }> {
  const started = ports.clock.now().getTime();
  const record = await loadRequest(ports.requests, input.requestId);
  const routeOf = record.routes?.find((r) => r.pageNumber === input.pageNumber);
  if (!routeOf) throw new NotFoundError(`page ${input.pageNumber} was not routed`);
  const inspection = await readInspection(ports.objects, input.requestId);
  const features = inspection.pages.find((p) => p.pageNumber === input.pageNumber);
  const provider = ports.providers.get(routeOf.provider);
  const result = await provider.parsePage({
    document: documentRef(record),
    pageNumber: input.pageNumber,
    dpi: record.options.dpi,
    profile: inspection.profile,
    maintainFormat: record.options.maintain_format,
  });
  const latency = ports.clock.now().getTime() - started;
  const width = Math.max(1, Math.round(result.width));
  const height = Math.max(1, Math.round(result.height));
  const page: Page = {
    page_number: input.pageNumber,
    content_markdown: result.markdown,
    content_json: null,
    tier_used: routeOf.tier,
    provider: provider.id,
    model: result.model,
    confidence: scorePage(result, features ? 1 - features.garbageRatio : 1),
    grounding: groundingOf(result.elements, input.pageNumber, width, height),
    tokens: { input_tokens: result.tokens.input, output_tokens: result.tokens.output },
    latency_ms: latency,
    re_routed: false,
    re_route_result: null,
    warnings: [],
    width,
    height,
    dpi: Math.max(1, Math.round(result.dpi)),
  };
  await writeCheckpoint(ports, input.requestId, page);
  const c = page.confidence;
  const scores = [c.layout_score, c.ocr_score, c.verbatim_score];
  if (c.table_score != null) scores.push(c.table_score);
  progress.emit({
    event: 'vlm.page.done',
    page: input.pageNumber,
    confidence: Math.round((scores.reduce((a, b) => a + b, 0) / scores.length) * 1000) / 1000,
  });
  return { pageNumber: input.pageNumber };
}

/**
 * Page confidence: `ocr_score` is the provider's recognition confidence, or for text-layer
 * providers the share of glyphs with a Unicode mapping; `verbatim_score` compares the page text
 * (body and furniture) with the provider's independent evidence word for word, and falls back to
 * the recognition confidence when there is none; `table_score` from table integrity.
 */
function scorePage(result: ProviderPageResult, textLayerQuality: number) {
  const ocr = result.ocrScore ?? textLayerQuality;
  const furniture = result.elements
    .filter((e) => e.label === 'header' || e.label === 'footer')
    .map((e) => e.text)
    .join(' ');
  const verbatim =
    result.evidenceText === null
      ? ocr
      : textSimilarity(`${plainText(result.markdown)} ${furniture}`, result.evidenceText, {
          orderInsensitive: true,
        });
  return confidenceReport({
    layout: result.layoutScore,
    ocr,
    verbatim,
    table: tableIntegrity(result.markdown, result.evidenceText),
  });
}

/** Grounding entries with boxes clamped inside the `width` × `height` page image (w, h > 0). */
function groundingOf(
  elements: ProviderPageResult['elements'],
  pageNumber: number,
  width: number,
  height: number,
): GroundingEntry[] {
  const entries: GroundingEntry[] = [];
  const finite = (v: number): number => (Number.isFinite(v) ? v : 0);
  for (const e of elements) {
    const x = Math.floor(Math.min(Math.max(0, finite(e.bbox.x)), width - 1) * 10) / 10;
    const y = Math.floor(Math.min(Math.max(0, finite(e.bbox.y)), height - 1) * 10) / 10;
    const w = Math.max(0.1, Math.floor(Math.min(finite(e.bbox.w), width - x) * 10) / 10);
    const h = Math.max(0.1, Math.floor(Math.min(finite(e.bbox.h), height - y) * 10) / 10);
    entries.push({
      text: e.text,
      element_type: e.elementType,
      page_number: pageNumber,
      bbox: {
        x,
        y,
        w,
        h,
        label: e.label,
        confidence: Math.min(1, Math.max(0, e.confidence)),
      },
    });
  }
  return entries;
}

/** Stores the page inline in its checkpoint, or in the ObjectStore behind a pointer when large. */
export async function writeCheckpoint(
  ports: Pick<PipelinePorts, 'requests' | 'objects'>,
  requestId: string,
  page: Page,
): Promise<void> {
  const json = JSON.stringify(page);
  const checkpoint: PageCheckpoint = { pageNumber: page.page_number };
  if (new TextEncoder().encode(json).byteLength > INLINE_CHECKPOINT_BYTES) {
    const key = workKeys.page(requestId, page.page_number);
    await ports.objects.put(key, new TextEncoder().encode(json), 'application/json');
    checkpoint.pageKey = key;
  } else {
    checkpoint.page = page;
  }
  await ports.requests.putPage(requestId, checkpoint);
}

/** The pages of a request from their checkpoints, by page number. */
export async function readCheckpoints(
  ports: Pick<PipelinePorts, 'requests' | 'objects'>,
  requestId: string,
): Promise<Page[]> {
  const checkpoints = await ports.requests.listPages(requestId);
  const pages: Page[] = [];
  for (const c of checkpoints) {
    if (c.page) pages.push(c.page);
    else if (c.pageKey) {
      pages.push(JSON.parse(new TextDecoder().decode(await ports.objects.get(c.pageKey))) as Page);
    }
  }
  return pages.sort((a, b) => a.page_number - b.page_number);
}
