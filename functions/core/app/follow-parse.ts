import type { ProgressEvent } from '../ports/event-log.js';
import type { AppDeps } from './app-deps.js';
import { getParseResult } from './parse-result-body.js';
import { readResult, resultView } from './stored-result.js';

/** Pipeline-node events that `legacy_events=true` leaves out (spec §4, §6). */
const NODE_EVENTS = new Set(['node.started', 'node.completed']);

export interface FollowOptions {
  /** Leave out `node.started` / `node.completed`. */
  legacyEvents: boolean;
  /** Keep per-page `warnings` in the final payload. */
  includeWarnings: boolean;
  /** Milliseconds between two reads of the event log while nothing new arrives. */
  pollMs: number;
  /** Stops following (the client went away); the parse itself goes on. */
  signal?: AbortSignal;
  /** Waits `ms` (injected by tests). @default setTimeout */
  wait?: (ms: number) => Promise<void>;
}

/**
 * The events of a parse as its SSE stream sends them (spec §6), read from the request's event
 * log, so they are the same whichever process runs the stages:
 * every logged event in order (`ingest.start`, `classify.page`, `route.page`, `vlm.page.done`,
 * `node.started` / `node.completed` unless `legacyEvents`), then always last `result.final` with
 * `payload` the full ParseResponse. A parse that fails ends with an `error` event (`detail`,
 * `kind`) and then `result.final` whose payload is the request's status view (status `failed`,
 * `detail`), the same body `GET /v1/parse/{id}` returns.
 *
 * Ends early, without an error, when `signal` aborts; the parse is not affected.
 */
export async function* followParse(
  deps: Pick<AppDeps, 'events' | 'requests' | 'objects'>,
  tenant: string,
  requestId: string,
  options: FollowOptions,
): AsyncGenerator<ProgressEvent> {
  const wait =
    options.wait ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const shown = (body: ProgressEvent) => !(options.legacyEvents && NODE_EVENTS.has(body.event));
  let afterSeq = 0;
  while (!options.signal?.aborted) {
    const logged = await deps.events.list(requestId, afterSeq);
    for (const [i, { seq, body }] of logged.entries()) {
      afterSeq = seq;
      if (body.event === 'result.final') {
        // The last stage logs its own `node.completed` just after the result: send it first,
        // so that result.final stays last.
        let trailing = logged.slice(i + 1).map((e) => e.body);
        let lastSeq = logged.at(-1)?.seq ?? seq;
        for (
          let tries = 0;
          tries < 3 && !trailing.some((e) => e.event === 'node.completed');
          tries++
        ) {
          if (tries > 0) await wait(Math.ceil(options.pollMs / 5));
          const later = await deps.events.list(requestId, lastSeq);
          lastSeq = later.at(-1)?.seq ?? lastSeq;
          trailing = [...trailing, ...later.map((e) => e.body)];
        }
        for (const event of trailing)
          if (event.event !== 'result.final' && shown(event)) yield event;
        const key = typeof body.result_key === 'string' ? body.result_key : undefined;
        const payload = key
          ? resultView(await readResult(deps, key), options.includeWarnings)
          : await getParseResult(deps, tenant, requestId, options.includeWarnings);
        yield { event: 'result.final', payload };
        return;
      }
      if (shown(body)) yield body;
    }
    if (logged.length === 0) {
      // Nothing new: a failed parse logs no result, its record says how it ended.
      const record = await deps.requests.get(requestId);
      if (record?.status === 'failed' || record?.status === 'cancelled') {
        yield {
          event: 'error',
          kind: record.error?.kind ?? 'internal',
          detail: record.error?.message ?? `the parse was ${record.status}`,
        };
        yield {
          event: 'result.final',
          payload: await getParseResult(deps, tenant, requestId, options.includeWarnings),
        };
        return;
      }
      await wait(options.pollMs);
    }
  }
}
