import type { TokenUsage } from './schemas.js';

/** What a provider charges per page and per token, in USD (from the provider configuration). */
export interface ProviderPrice {
  perPageUsd: number;
  perInputTokenUsd: number;
  perOutputTokenUsd: number;
}

/**
 * The cost of one parsed page in USD: the service's price per page of the page's tier, plus what
 * the provider that parsed it charges (its price per page, and its token prices times the page's
 * tokens). Offline providers charge nothing, so with them a page costs exactly its tier's price.
 * Rounded to micro-dollars.
 */
export function pageCostUsd(
  tierPricePerPage: number,
  price: ProviderPrice,
  tokens: TokenUsage,
): number {
  const cost =
    tierPricePerPage +
    price.perPageUsd +
    tokens.input_tokens * price.perInputTokenUsd +
    tokens.output_tokens * price.perOutputTokenUsd;
  return Math.round(cost * 1e6) / 1e6;
}

/**
 * The expected cost of a page routed to a tier, before it is parsed: the tier's price plus the
 * per-page price of the tier's first provider. Token charges are unknown before the model
 * answers and are not included (estimates of token-priced tiers are lower bounds).
 */
export function expectedPageCostUsd(
  tierPricePerPage: number,
  firstProvider: ProviderPrice,
): number {
  return pageCostUsd(tierPricePerPage, firstProvider, { input_tokens: 0, output_tokens: 0 });
}
