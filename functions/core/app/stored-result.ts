import type { Page, ParseResponse } from '../domain/schemas.js';
import type { AppDeps } from './app-deps.js';

/** Reads a stored ParseResponse. */
export async function readResult(
  deps: Pick<AppDeps, 'objects'>,
  key: string,
): Promise<ParseResponse> {
  return JSON.parse(new TextDecoder().decode(await deps.objects.get(key))) as ParseResponse;
}

/** The ParseResponse as returned: per-page `warnings` only when asked for (spec §4 include_warnings). */
export function resultView(response: ParseResponse, includeWarnings: boolean): ParseResponse {
  if (includeWarnings) {
    return {
      ...response,
      pages: response.pages.map((p) => ({ ...p, warnings: p.warnings ?? [] })),
    };
  }
  return {
    ...response,
    pages: response.pages.map(
      (page) => Object.fromEntries(Object.entries(page).filter(([k]) => k !== 'warnings')) as Page,
    ),
  };
}
