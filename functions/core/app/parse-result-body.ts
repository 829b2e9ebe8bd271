import { NotFoundError } from '../domain/errors.js';
import type { RequestRecord } from '../domain/request.js';
import type { ObjectStore } from '../ports/object-store.js';
import type { AppDeps } from './app-deps.js';
import { readResult, resultView, statusView, webhookView } from './parse-upload.js';

/**
 * Characters of serialised results kept per object store (UTF-16 code units, so up to twice as
 * many bytes: 64 MiB at most); the least recently read go first.
 */
export const RESULT_BODY_CACHE_CHARS = 32 * 1024 * 1024;

/**
 * The body of `GET /v1/parse/{id}` as JSON text: exactly `JSON.stringify` of what
 * `getParseResult` returns, for the same arguments.
 *
 * The request record is read on every call (ownership, status and webhook are always current);
 * a completed result's view is kept serialised, so reading it again costs neither the object
 * store nor `JSON.parse`, the view and `JSON.stringify` of the whole response (about a third of
 * the CPU time of the endpoint, for a 3-page result of 32 KB). A finished result is immutable
 * under its key; the cached text is keyed by the record's `resultKey` and `updatedAt` (a result
 * written again, by a repeated Deliver, comes with a new `updatedAt`) and `includeWarnings`, so it
 * is never served stale. At most {@link RESULT_BODY_CACHE_CHARS} characters are kept per object
 * store.
 *
 * @throws {NotFoundError} (404) when the id is unknown or owned by another tenant.
 */
export async function getParseResultBody(
  deps: Pick<AppDeps, 'requests' | 'objects'>,
  tenant: string,
  requestId: string,
  includeWarnings: boolean,
): Promise<string> {
  const record = await deps.requests.get(requestId);
  if (!record || record.tenant !== tenant) {
    throw new NotFoundError(`parse request ${requestId} not found`);
  }
  const delivery = record.webhook ? { webhook: webhookView(record.webhook) } : undefined;
  if (record.status !== 'completed' || !record.resultKey) {
    return JSON.stringify({ ...statusView(record), ...delivery });
  }
  const view = await completedView(deps.objects, record, record.resultKey, includeWarnings);
  if (delivery === undefined) return view.json;
  if (view.hasWebhook) {
    return JSON.stringify({ ...(JSON.parse(view.json) as object), ...delivery });
  }
  // `{...view, webhook}` serialises as the view's members, then the webhook.
  return `${view.json.slice(0, -1)}${view.json === '{}' ? '' : ','}"webhook":${JSON.stringify(delivery.webhook)}}`;
}

/** A completed result's view as JSON, and whether it has a `webhook` member of its own. */
interface CachedView {
  json: string;
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
    cache = new ViewCache(RESULT_BODY_CACHE_CHARS);
    caches.set(objects, cache);
  }
  const id = JSON.stringify([resultKey, record.updatedAt, includeWarnings]);
  const known = cache.get(id);
  if (known !== undefined) return known;
  const view = resultView(await readResult({ objects }, resultKey), includeWarnings);
  const fresh = { json: JSON.stringify(view), hasWebhook: Object.hasOwn(view, 'webhook') };
  cache.set(id, fresh);
  return fresh;
}

/** Views by id, the most recently read first out of the way, within `maxChars` of JSON. */
class ViewCache {
  readonly #entries = new Map<string, CachedView>();
  readonly #maxChars: number;
  #chars = 0;

  constructor(maxChars: number) {
    this.#maxChars = maxChars;
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
    if (entry.json.length > this.#maxChars) return;
    const old = this.#entries.get(id);
    if (old !== undefined) {
      this.#entries.delete(id);
      this.#chars -= old.json.length;
    }
    this.#entries.set(id, entry);
    this.#chars += entry.json.length;
    for (const [oldest, value] of this.#entries) {
      if (this.#chars <= this.#maxChars) break;
      this.#entries.delete(oldest);
      this.#chars -= value.json.length;
    }
  }
}
