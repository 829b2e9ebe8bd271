/**
 * The bucket's key layout: every prefix under which the service stores objects. The object keys
 * below, the functions' IAM grants (per prefix, `functions/api/endpoints.ts` and `lib/`) and the
 * bucket's expiry rules ({@link EXPIRING_PREFIXES}) all name these, so they cannot drift apart.
 */
export const OBJECT_PREFIXES = {
  /** Uploaded originals: a request's `uploads/<request_id>/document`. */
  uploads: 'uploads/',
  /** Upload slots (POST /v1/uploads), one level deeper than a request's upload. */
  uploadSlots: 'uploads/slots/',
  /** Documents sent to POST /v1/parse/estimate. */
  estimates: 'uploads/estimates/',
  /** A request's intermediate work (inspection, parsed pages). */
  work: 'work/',
  /** Finished results, `results/<tenant>/<request_id>.json` and `.md`. */
  results: 'results/',
  /** Objects dropped for event-driven ingestion, `incoming/<tenant>/<name>`. */
  incoming: 'incoming/',
} as const;

/**
 * The prefixes whose objects hold documents or their content, each expiring after the retention
 * (the bucket's lifecycle rules, the local store's sweep): uploaded originals (with upload slots
 * and estimates), intermediate page work, results, and objects dropped for ingestion.
 */
export const EXPIRING_PREFIXES = [
  OBJECT_PREFIXES.uploads,
  OBJECT_PREFIXES.work,
  OBJECT_PREFIXES.results,
  OBJECT_PREFIXES.incoming,
] as const;

/** Object keys of a request's intermediate work and results; derived from the input so retries overwrite. */
export const workKeys = {
  upload: (requestId: string) => `${OBJECT_PREFIXES.uploads}${requestId}/document`,
  /** A document sent to POST /v1/parse/estimate (read by the engines, then left to expire). */
  estimate: (estimateId: string) => `${OBJECT_PREFIXES.estimates}${estimateId}/document`,
  inspection: (requestId: string) => `${OBJECT_PREFIXES.work}${requestId}/inspection.json`,
  page: (requestId: string, pageNumber: number) =>
    `${OBJECT_PREFIXES.work}${requestId}/pages/${String(pageNumber).padStart(4, '0')}.json`,
  resultJson: (tenant: string, requestId: string) =>
    `${OBJECT_PREFIXES.results}${tenant}/${requestId}.json`,
  resultMarkdown: (tenant: string, requestId: string) =>
    `${OBJECT_PREFIXES.results}${tenant}/${requestId}.md`,
};
