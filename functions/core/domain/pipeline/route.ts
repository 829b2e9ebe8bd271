import type { ProgressSink } from '../../ports/event-log.js';
import { ProviderUnavailableError, TierUnavailableError } from '../errors.js';
import { chooseProvider, chooseRoute, tierFor, type RouteChoice } from '../routing.js';
import type { PageRoute } from '../request.js';
import { pageParseRequest, readInspection } from './classify.js';
import { loadRequest } from './load-request.js';
import type { PageStageInput, StageInput } from './stage-input.js';
import type { PipelinePorts } from '../../ports/pipeline.js';

const TIERS = ['fast', 'pro', 'premium'] as const;

/**
 * Route: picks each page's tier from its complexity with the two fixed thresholds, then the first
 * provider of that tier's chain able to parse it whose circuit is not open (pages without a
 * usable text layer skip text-layer providers; when a tier has none that fits, the next tier up
 * is tried). In a resumed run (`runs` set) the map items leave out the pages that have a
 * checkpoint. The request's preferred provider (`preferred_model`) takes the page instead when
 * it can parse it and its circuit is closed; the page keeps its tier. Hints each page's provider
 * that the page is coming (`ProviderRegistry.prefetch`; not in a resumed run). Records the routes
 * and the classification and routing timings, emits `route.page` per page, and returns the
 * ProcessPages map items.
 *
 * @throws {TierUnavailableError} when every provider of a page's tier able to parse it has its
 *   circuit open (503, spec §7).
 * @throws {ProviderUnavailableError} when no tier has a provider for a page (503).
 */
export async function route(
  input: StageInput,
  ports: Pick<
    PipelinePorts,
    'requests' | 'objects' | 'providers' | 'breakers' | 'clock' | 'settings'
  >,
  progress: ProgressSink,
): Promise<{ requestId: string; pages: PageStageInput[] }> {
  const started = ports.clock.now().getTime();
  // Read together; a failure is reported in this order all the same.
  const reads = [
    loadRequest(ports.requests, input.requestId),
    readInspection(ports.objects, input.requestId),
    ports.breakers?.states(ports.providers.ids()),
  ] as const;
  for (const read of reads) read?.catch(() => undefined);
  const record = await reads[0];
  const inspection = await reads[1];
  const states = await reads[2];
  const closed = (id: string) => states?.get(id)?.healthy ?? true;
  const preferred = record.preferredProvider
    ? TIERS.flatMap((t) => ports.providers.chain(t)).find((p) => p.id === record.preferredProvider)
    : undefined;
  const routes: PageRoute[] = [];
  for (const features of inspection.pages) {
    const complexity = inspection.complexity[features.pageNumber] ?? 0;
    const choice = chooseRoute(
      features,
      complexity,
      ports.settings.thresholds,
      (tier) => ports.providers.chain(tier),
      closed,
    );
    if (choice === undefined) {
      const tier = tierFor(complexity, ports.settings.thresholds);
      throw new ProviderUnavailableError(
        `no provider of tier ${tier} or above can parse page ${features.pageNumber}`,
      );
    }
    if ('open' in choice) throw new TierUnavailableError(choice.open.tier, choice.open.providers);
    let chosen: RouteChoice = choice;
    if (preferred && chooseProvider([preferred], features) && closed(preferred.id)) {
      chosen = { ...chosen, provider: preferred.id };
    }
    routes.push({ pageNumber: features.pageNumber, complexity, ...chosen });
  }
  // A provider running in this process may start on its pages while the routes are stored; a
  // resumed run's pages are left alone (most may have a checkpoint already).
  if (record.runs === undefined && ports.providers.prefetch) {
    for (const r of routes) {
      ports.providers.prefetch(r.provider, pageParseRequest(record, inspection, r.pageNumber));
    }
  }
  for (const r of routes) {
    progress.emit({
      event: 'route.page',
      page: r.pageNumber,
      tier: r.tier,
      provider: r.provider,
      // Beyond the spec's fields: the score and thresholds the tier was chosen by.
      complexity: r.complexity,
      fast_ceiling: ports.settings.thresholds.fastCeiling,
      pro_ceiling: ports.settings.thresholds.proCeiling,
    });
  }
  const now = ports.clock.now().getTime();
  await ports.requests.update(input.requestId, {
    routes,
    pagesStartedAt: now,
    updatedAt: new Date(now).toISOString(),
    timings: {
      ...record.timings,
      // Classify leaves its timing with the inspection for this write to record.
      ...(inspection.classificationMs === undefined
        ? {}
        : { classification_ms: inspection.classificationMs }),
      routing_ms: now - started,
    },
  });
  // A resumed run parses only the pages without a checkpoint.
  const done = new Set(
    record.runs === undefined
      ? []
      : (await ports.requests.listPages(input.requestId)).map((c) => c.pageNumber),
  );
  return {
    requestId: input.requestId,
    pages: routes
      .filter((r) => !done.has(r.pageNumber))
      .map((r) => ({ requestId: input.requestId, pageNumber: r.pageNumber })),
  };
}
