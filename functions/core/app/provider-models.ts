import { ValidationError } from '../domain/errors.js';
import type { ProviderRegistry } from '../ports/pipeline.js';

/*
 * One vocabulary of providers and models. Each configured provider runs one model, named by the
 * id its pages report as `Page.model` (remote providers: the configured model; offline engines:
 * their own, e.g. `pdf-text-layout-1`). GET /v1/providers lists the pairs, and every request
 * field that names a provider (`preferred_model`, `compare_provider`, compare's `providers`) is
 * checked here, against the same pairs.
 */

const TIERS = ['fast', 'pro', 'premium'] as const;

/** A provider id and a model id it runs, as compare's `providers` and runs name them. */
export interface ModelPair {
  id: string;
  model: string;
}

/** A configured provider and the model it runs. */
export interface ProviderModel extends ModelPair {
  /** Other model ids its pages report, which requests may name too (e.g. `office-convert-1`). */
  otherModels: readonly string[];
}

/**
 * How a request names a provider: a pair `{id, model}` (compare's `providers`), or one name, a
 * provider id or a model id (`preferred_model`, `compare_provider`).
 */
export type ProviderName = { id: string; model?: string | undefined } | string;

/**
 * Every provider some tier uses, once, in the order of the tiers' chains (fast, pro, premium),
 * with its model (its id where the registry names none).
 */
export function providerModels(providers: Pick<ProviderRegistry, 'chain'>): ProviderModel[] {
  const models = new Map<string, ProviderModel>();
  for (const provider of TIERS.flatMap((tier) => providers.chain(tier))) {
    if (!models.has(provider.id)) {
      models.set(provider.id, {
        id: provider.id,
        model: provider.model ?? provider.id,
        otherModels: provider.otherModels ?? [],
      });
    }
  }
  return [...models.values()];
}

/**
 * The configured provider a request names, with its model:
 * - a pair `{id, model}` names the provider `id`, and `model` must be its model; without
 *   `model`, the provider id alone names the provider's one model;
 * - a single name is a provider id, or else a model id (the first provider in chain order that
 *   runs it).
 *
 * Only providers some tier uses can be named.
 * @param loc where the name is in the request (`['body', 'preferred_model']`), for the error.
 * @throws {ValidationError} (422) at `loc` when nothing configured matches; its message lists
 *   the valid `{id, model}` pairs.
 * @example
 * resolveProviderModel(registry, { id: 'local-text', model: 'pdf-text-layout-1' }, loc);
 * // { id: 'local-text', model: 'pdf-text-layout-1' }
 * resolveProviderModel(registry, 'tesseract-5-lstm', loc); // { id: 'local-ocr', model: 'tesseract-5-lstm' }
 */
export function resolveProviderModel(
  providers: Pick<ProviderRegistry, 'chain'>,
  name: ProviderName,
  loc: (string | number)[],
): ModelPair {
  const known = providerModels(providers);
  const fail = (problem: string): never => {
    throw new ValidationError([
      {
        loc,
        msg: `${problem}; the valid pairs are ${validPairs(known)} (GET /v1/providers lists them)`,
        type: 'value_error',
      },
    ]);
  };
  if (typeof name === 'string') {
    const match =
      known.find((p) => p.id === name) ??
      known.find((p) => p.model === name) ??
      known.find((p) => p.otherModels.includes(name));
    return match ? pair(match) : fail(`no configured provider or model is named "${name}"`);
  }
  const provider = known.find((p) => p.id === name.id);
  if (!provider) return fail(`no configured provider is named "${name.id}"`);
  if (
    name.model !== undefined &&
    name.model !== provider.model &&
    !provider.otherModels.includes(name.model)
  ) {
    return fail(`provider ${provider.id} runs the model "${provider.model}", not "${name.model}"`);
  }
  return pair(provider);
}

/** A provider with its own model, the one its pages report first. */
function pair({ id, model }: ProviderModel): ModelPair {
  return { id, model };
}

/** The pairs as JSON text, as compare's `providers` takes them. */
function validPairs(known: readonly ProviderModel[]): string {
  return JSON.stringify(
    known.flatMap(({ id, model, otherModels }) =>
      [model, ...otherModels].map((m) => ({ id, model: m })),
    ),
  );
}
