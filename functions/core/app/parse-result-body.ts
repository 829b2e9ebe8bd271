import { NotFoundError } from '../domain/errors.js';
import type { RequestRecord } from '../domain/request.js';
import type { ObjectStore } from '../ports/object-store.js';
import type { AppDeps } from './app-deps.js';
import { statusView, webhookView } from './parse-upload.js';
import { readResult, resultView } from './stored-result.js';

/**
 * Bytes of serialised results kept per object store, counting both forms of each (its text at
 * two bytes per UTF-16 code unit, and its UTF-8 encoding); the least recently read go first.
 */
export const RESULT_BODY_CACHE_BYTES = 96 * 1024 * 1024;

/** The body of `GET /v1/parse/{id}`, serialised. */
export interface ParseResultBody {
  /** The JSON text. */
  json: string;
  /**
   * Its UTF-8 encoding, when it was kept with the text (a completed result): a transport can send
   * these bytes as they are instead of encoding the text again. Never changed by the caller.
   */
  utf8: Uint8Array | undefined;
}

/**
 * The result of a request owned by `tenant`: the ParseResponse when completed, status
 * information otherwise (the same shape with the pages finished so far), and the webhook's
 * deliveries when one was asked for. Exactly `JSON.parse` of {@link getParseResultBody}'s text.
 * @throws {NotFoundError} when the id is unknown or owned by another tenant (identical 404).
 */
export async function getParseResult(
  deps: Pick<AppDeps, 'requests' | 'objects'>,
  tenant: string,
  requestId: string,
  includeWarnings: boolean,
): Promise<Record<string, unknown>> {
  const { json } = await getParseResultBody(deps, tenant, requestId, includeWarnings);
  return JSON.parse(json) as Record<string, unknown>;
}

/**
 * The tenant's request record.
 * @throws {NotFoundError} (404) for unknown and foreign ids alike: another tenant's id is never
 *   disclosed.
 */
export async function ownedRecord(
  deps: Pick<AppDeps, 'requests'>,
  tenant: string,
  requestId: string,
): Promise<RequestRecord> {
  const record = await deps.requests.get(requestId);
  if (!record || record.tenant !== tenant) {
    throw new NotFoundError(`parse request ${requestId} not found`);
  }
  return record;
}

/**
 * The body of `GET /v1/parse/{id}` as JSON text (see {@link getParseResult} for what it holds).
 *
 * The request record is read on every call (ownership, status and webhook are always current);
 * a completed result's view is kept serialised, as text and as UTF-8 bytes, so reading it again
 * costs neither the object store nor `JSON.parse`, the view, `JSON.stringify` of the whole
 * response (about a third of the CPU time of the endpoint, for a 3-page result of 32 KB) nor its
 * encoding. A finished result is immutable under its key; the kept body is keyed by the record's
 * `resultKey` and `updatedAt` (a result written again, by a repeated Deliver, comes with a new
 * `updatedAt`) and `includeWarnings`, so it is never served stale. At most
 * {@link RESULT_BODY_CACHE_BYTES} are kept per object store.
 *
 * @throws {NotFoundError} (404) when the id is unknown or owned by another tenant.
 */
export async function getParseResultBody(
  deps: Pick<AppDeps, 'requests' | 'objects'>,
  tenant: string,
  requestId: string,
  includeWarnings: boolean,
): Promise<ParseResultBody> {
  const record = await ownedRecord(deps, tenant, requestId);
  const delivery = record.webhook ? { webhook: webhookView(record.webhook) } : undefined;
  if (record.status !== 'completed' || !record.resultKey) {
    return { json: JSON.stringify({ ...statusView(record), ...delivery }), utf8: undefined };
  }
  const view = await completedView(deps.objects, record, record.resultKey, includeWarnings);
  if (delivery === undefined) return view;
  if (view.hasWebhook) {
    const json = JSON.stringify({ ...(JSON.parse(view.json) as object), ...delivery });
    return { json, utf8: undefined };
  }
  // `{...view, webhook}` serialises as the view's members, then the webhook.
  const tail = `${view.json === '{}' ? '' : ','}"webhook":${JSON.stringify(delivery.webhook)}}`;
  const json = `${view.json.slice(0, -1)}${tail}`;
  // The view's bytes end with the one byte of its closing brace.
  const tailBytes = encoder.encode(tail);
  const utf8 = new Uint8Array(view.utf8.length - 1 + tailBytes.length);
  utf8.set(view.utf8.subarray(0, -1));
  utf8.set(tailBytes, view.utf8.length - 1);
  return { json, utf8 };
}

const encoder = new TextEncoder();

/** A completed result's view as JSON, and whether it has a `webhook` member of its own. */
interface CachedView {
  json: string;
  utf8: Uint8Array;
  hasWebhook: boolean;
}

const caches = new WeakMap<ObjectStore, ViewCache>();

async function completedView(
  objects: ObjectStore,
  record: RequestRecord,
  resultKey: string,
  includeWarnings: boolean,
): Promise<CachedView> {
  let cache = caches.get(objects);
  if (cache === undefined) {
    cache = new ViewCache(RESULT_BODY_CACHE_BYTES);
    caches.set(objects, cache);
  }
  const id = JSON.stringify([resultKey, record.updatedAt, includeWarnings]);
  const known = cache.get(id);
  if (known !== undefined) return known;
  const view = resultView(await readResult({ objects }, resultKey), includeWarnings);
  const json = JSON.stringify(view);
  const fresh = { json, utf8: encoder.encode(json), hasWebhook: Object.hasOwn(view, 'webhook') };
  cache.set(id, fresh);
  return fresh;
}

/** Memory a view takes: its text at two bytes a code unit, and its UTF-8 bytes. */
const weightOf = (view: CachedView): number => view.json.length * 2 + view.utf8.length;

/** Views by id, the most recently read first out of the way, within `maxBytes`. */
class ViewCache {
  readonly #entries = new Map<string, CachedView>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get(id: string): CachedView | undefined {
    const entry = this.#entries.get(id);
    if (entry !== undefined) {
      // Map order is insertion order: re-inserting makes it the most recent.
      this.#entries.delete(id);
      this.#entries.set(id, entry);
    }
    return entry;
  }

  set(id: string, entry: CachedView): void {
    if (weightOf(entry) > this.#maxBytes) return;
    const old = this.#entries.get(id);
    if (old !== undefined) {
      this.#entries.delete(id);
      this.#bytes -= weightOf(old);
    }
    this.#entries.set(id, entry);
    this.#bytes += weightOf(entry);
    for (const [oldest, value] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= weightOf(value);
    }
  }
}
