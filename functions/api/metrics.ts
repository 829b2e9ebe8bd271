import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** The CloudWatch namespace of the service's metrics. */
export const METRICS_NAMESPACE = 'docparse';

/**
 * The service's metric names (CloudWatch, namespace {@link METRICS_NAMESPACE}, dimension
 * `service`=`docparse` plus the one named beside each). Alarms and dashboards refer to these.
 */
export const METRIC = {
  /** A page parsed and checkpointed, by the tier that answered it (dimension `tier`). */
  pagesParsed: 'PagesParsed',
  /** A provider call that failed as unavailable (dimension `provider`). */
  providerFailures: 'ProviderFailures',
  /** A provider's circuit breaker opened (dimension `provider`). */
  breakerOpens: 'BreakerOpens',
  /** A result-cache lookup that found a valid entry (no dimension). */
  cacheHits: 'CacheHits',
  /** A result-cache lookup that found nothing (no dimension). */
  cacheMisses: 'CacheMisses',
} as const;

export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/** Counters the adapters and the composition root call; each is one EMF line on Lambda. */
export interface ServiceMetrics {
  pageParsed(tier: string): void;
  providerFailed(providerId: string): void;
  breakerOpened(providerId: string): void;
  cacheHit(): void;
  cacheMissed(): void;
}

/**
 * Counters that write CloudWatch Embedded Metric Format lines through Powertools Metrics, each
 * as a single metric (published at once, so no invocation has to flush, and the dimensions of
 * one never mix with another's).
 *
 * @example
 * const metrics = powertoolsMetrics();
 * metrics.cacheHit();
 */
export function powertoolsMetrics(
  base: Metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'docparse' }),
): ServiceMetrics {
  const count = (name: MetricName, dimension?: [string, string]) => {
    const single = base.singleMetric();
    if (dimension) single.addDimension(...dimension);
    single.addMetric(name, MetricUnit.Count, 1);
  };
  return {
    pageParsed: (tier) => {
      count(METRIC.pagesParsed, ['tier', tier]);
    },
    providerFailed: (providerId) => {
      count(METRIC.providerFailures, ['provider', providerId]);
    },
    breakerOpened: (providerId) => {
      count(METRIC.breakerOpens, ['provider', providerId]);
    },
    cacheHit: () => {
      count(METRIC.cacheHits);
    },
    cacheMissed: () => {
      count(METRIC.cacheMisses);
    },
  };
}

/** Counters that count nothing: the local runtime, which has no CloudWatch. */
export const noMetrics: ServiceMetrics = {
  pageParsed: () => undefined,
  providerFailed: () => undefined,
  breakerOpened: () => undefined,
  cacheHit: () => undefined,
  cacheMissed: () => undefined,
};

let current: ServiceMetrics = noMetrics;

/**
 * The process's counters: Powertools Metrics on Lambda (set by the composition root), nothing
 * elsewhere. For code outside `functions/core` that counts an event (the result cache counts its
 * hits with `serviceMetrics().cacheHit()`).
 */
export const serviceMetrics = (): ServiceMetrics => current;

/** Makes `metrics` the process's counters (the AWS composition root; tests). */
export function useMetrics(metrics: ServiceMetrics): void {
  current = metrics;
}
