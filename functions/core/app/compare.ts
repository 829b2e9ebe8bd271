import { z } from 'zod';
import { ValidationError } from '../domain/errors.js';
import { plainText, textSimilarity } from '../domain/markdown.js';
import type { ParseOptions, Plan, RequestRecord } from '../domain/request.js';
import type { CompareResult, ParseResponse } from '../domain/schemas.js';
import type { AppDeps } from './app-deps.js';
import { resolveProviderModel, type ModelPair } from './provider-models.js';
import { failureOf, startParse, submitUpload, type DocumentSource } from './parse-upload.js';
import { readResult, resultView } from './stored-result.js';

/** Most providers one comparison runs (spec §4: 1 to 4). */
export const MAX_COMPARED_PROVIDERS = 4;

/**
 * The `providers` form field of POST /v1/compare, once parsed from its JSON text: `{id, model}`
 * pairs, where `model` may be left out (the provider's one model).
 */
export const ComparedProviders = z
  .array(
    z.strictObject({
      id: z.string().trim().min(1),
      model: z.string().trim().min(1).optional(),
    }),
  )
  .min(1)
  .max(MAX_COMPARED_PROVIDERS);
export type ComparedProviders = z.infer<typeof ComparedProviders>;

/**
 * Status of one run of a comparison: `completed` (its ParseResponse is in `response`), `failed`
 * (the parse failed; `detail` says why and `response` is null), or `cancelled` (someone
 * cancelled that run's request).
 */
export type CompareRunStatus = 'completed' | 'failed' | 'cancelled';

/** Beyond the spec: how far the runs agree on each page. */
export interface PageAgreement {
  page_number: number;
  /** Mean of the pairwise text similarity of the completed runs' pages, in [0, 1]; null below two. */
  agreement: number | null;
}

/** The Compare result (spec §2) with the per-page agreement. */
export type Comparison = CompareResult & {
  runs: (CompareResult['runs'][number] & { detail?: string })[];
  page_agreement: PageAgreement[];
};

/**
 * POST /v1/compare: parses the document once per requested provider, all runs at once, each run
 * a request of its own whose pages go to that provider first (as `preferred_model` sends them;
 * a page the provider cannot parse, such as a scan for a text-layer reader, falls back to its
 * tier's chain, and the page says which provider parsed it).
 *
 * Each `{id, model}` must name a provider of the configuration's tiers by id, with the model its
 * pages report (GET /v1/providers lists the pairs; `model` may be left out); one provider is
 * allowed (a run pinned to it), up to four, without duplicates. `providers_requested` and each
 * run's `model_id` give the pairs so named. The document is checked once, before any run starts.
 * @throws {ValidationError} (422) at `providers` for an unknown id, a model that is not the
 *   provider's (listing the valid pairs), or a duplicate.
 * @throws the upload's errors (413, 400) before any run starts.
 */
export async function compareProviders(
  deps: AppDeps,
  request: {
    tenant: string;
    plan?: Plan;
    source: DocumentSource;
    filename: string | null;
    providers: ComparedProviders;
    options: ParseOptions;
    extractionSchema?: unknown;
  },
): Promise<Comparison> {
  const providers = checkedProviders(deps, request.providers);
  const compareId = `cmp_${deps.newId()}`;
  const records: { provider: ModelPair; record: RequestRecord }[] = [];
  // One after the other: the first stores nothing a failure would leave behind, and an upload
  // slot is read and checked once per run.
  for (const provider of providers) {
    records.push({
      provider,
      record: await submitUpload(deps, {
        ...request.source,
        tenant: request.tenant,
        ...(request.plan ? { plan: request.plan } : {}),
        options: request.options,
        extractionSchema: request.extractionSchema,
        providers: { preferred: provider.id },
      }),
    });
  }
  const runs = await Promise.all(
    records.map(async ({ provider, record }) => {
      const { executionId } = await startParse(deps, record.id);
      await deps.workflow.wait(executionId);
      const ended = await deps.requests.get(record.id);
      const base = { provider_id: provider.id, model_id: provider.model, request_id: record.id };
      if (ended?.status === 'completed' && ended.resultKey) {
        const response = resultView(await readResult(deps, ended.resultKey), false);
        return { ...base, status: 'completed' as const, response };
      }
      const status: CompareRunStatus = ended?.status === 'cancelled' ? 'cancelled' : 'failed';
      const detail = ended?.error ? failureOf(ended.error).message : `the run ended ${status}`;
      return { ...base, status, response: null, detail };
    }),
  );
  return {
    compare_id: compareId,
    filename: request.filename ?? '',
    providers_requested: providers,
    runs,
    page_agreement: pageAgreement(
      runs.map((run) => run.response).filter((r): r is ParseResponse => r !== null),
    ),
  };
}

/**
 * Per page, the mean pairwise similarity (1 − normalised edit distance of the plain texts, see
 * `textSimilarity`) of the runs' Markdown, rounded to 3 decimals; null with fewer than two runs.
 */
export function pageAgreement(responses: readonly ParseResponse[]): PageAgreement[] {
  const pageNumbers = [
    ...new Set(responses.flatMap((r) => r.pages.map((p) => p.page_number))),
  ].sort((a, b) => a - b);
  return pageNumbers.map((pageNumber) => {
    const texts = responses
      .map((r) => r.pages.find((p) => p.page_number === pageNumber))
      .filter((p) => p !== undefined)
      .map((p) => plainText(p.content_markdown));
    if (texts.length < 2) return { page_number: pageNumber, agreement: null };
    let sum = 0;
    let pairs = 0;
    texts.forEach((a, i) => {
      for (const b of texts.slice(i + 1)) {
        sum += textSimilarity(a, b);
        pairs += 1;
      }
    });
    return { page_number: pageNumber, agreement: Math.round((sum / pairs) * 1000) / 1000 };
  });
}

/**
 * The providers of a comparison, each with its model.
 * @throws {ValidationError} naming the first problem of `providers`.
 */
function checkedProviders(
  deps: Pick<AppDeps, 'providers'>,
  providers: ComparedProviders,
): ModelPair[] {
  const seen = new Set<string>();
  return providers.map((name, index) => {
    const loc = ['body', 'providers', index];
    const provider = resolveProviderModel(deps.providers, name, loc);
    if (seen.has(provider.id)) {
      throw new ValidationError([
        { loc, msg: `provider ${provider.id} is listed twice`, type: 'value_error' },
      ]);
    }
    seen.add(provider.id);
    return provider;
  });
}
