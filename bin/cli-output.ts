import { mkdir, writeFile } from 'node:fs/promises';
import { basename, extname, join, relative, isAbsolute } from 'node:path';
import { TIERS, type EstimateResult, type ParsedPage, type ParseResponse } from './cli-api.js';
import type { OutputKind } from './cli-args.js';

/**
 * What the `docparse` command line writes: the Markdown of a parse, the output files and the
 * summary lines. Everything but {@link writeOutputs} is pure.
 */

/**
 * The document's Markdown: each page's `content_markdown` (in page order, trimmed) after a
 * `<!-- page N -->` line (invisible when rendered), pages separated by a blank line, ending
 * with one newline. An empty string when no page has Markdown (extract mode).
 */
export function assembleMarkdown(response: {
  pages: readonly Pick<ParsedPage, 'page_number' | 'content_markdown'>[];
}): string {
  const pages = [...response.pages].sort((a, b) => a.page_number - b.page_number);
  if (pages.every((page) => page.content_markdown.trim() === '')) return '';
  return pages
    .map((page) => {
      const content = page.content_markdown.trim();
      return content === ''
        ? `<!-- page ${page.page_number} -->\n`
        : `<!-- page ${page.page_number} -->\n\n${content}\n`;
    })
    .join('\n');
}

/**
 * The base name of the output files for a document: the file name without its extension, or
 * for a URL the last path segment (decoded) without its extension; characters that file systems
 * refuse become `_`; `document` when nothing is left.
 */
export function outputStem(input: string): string {
  let name = input;
  if (/^https?:\/\//i.test(input)) {
    let path = '';
    try {
      path = new URL(input).pathname;
    } catch {
      path = input;
    }
    const segment = path.split('/').filter(Boolean).at(-1) ?? '';
    try {
      name = decodeURIComponent(segment);
    } catch {
      name = segment;
    }
  } else {
    name = basename(input);
  }
  const stem = name.slice(0, name.length - extname(name).length) || name;
  // eslint-disable-next-line no-control-regex
  const safe = stem.replace(/[/\\:*?"<>|\u0000-\u001f]/g, '_').trim();
  return safe === '' || safe === '.' || safe === '..' ? 'document' : safe;
}

/**
 * Output base names for the files `names` of one folder, in the same order: the name without
 * its extension, except where two files would share it (`a.pdf` and `a.png` keep `a.pdf` and
 * `a.png`); a name still taken gets `-2`, `-3`, ….
 */
export function uniqueStems(names: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const name of names) {
    const stem = outputStem(name).toLowerCase();
    counts.set(stem, (counts.get(stem) ?? 0) + 1);
  }
  const taken = new Set<string>();
  return names.map((name) => {
    const stem = outputStem(name);
    let candidate = (counts.get(stem.toLowerCase()) ?? 0) > 1 ? basename(name) : stem;
    for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${stem}-${n}`;
    taken.add(candidate.toLowerCase());
    return candidate;
  });
}

/** Files written for one document. */
export interface WrittenFiles {
  markdown?: string;
  json?: string;
}

/**
 * Writes `<dir>/<stem>.md` (unless `kind` is `json`, or the document has no Markdown: extract
 * mode) and `<dir>/<stem>.json` (the whole response, indented; unless `kind` is `markdown`),
 * creating `dir` when needed.
 * @returns the paths written.
 */
export async function writeOutputs(
  dir: string,
  stem: string,
  response: ParseResponse,
  kind: OutputKind,
): Promise<WrittenFiles> {
  await mkdir(dir, { recursive: true });
  const written: WrittenFiles = {};
  const markdown = assembleMarkdown(response);
  if (kind !== 'json' && markdown !== '') {
    written.markdown = join(dir, `${stem}.md`);
    await writeFile(written.markdown, markdown);
  }
  if (kind !== 'markdown') {
    written.json = join(dir, `${stem}.json`);
    await writeFile(written.json, `${JSON.stringify(response, null, 2)}\n`);
  }
  return written;
}

/** `path` as short as it reads best: relative to `cwd` when inside it. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** A cost in USD: `$0.0020` below one dollar, `$12.34` above. */
export function formatCost(usd: number): string {
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

/** A duration: `850 ms`, `4.2 s`, `3 min 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** Pages per tier, in tier order, leaving out empty tiers: `fast 2, pro 1`; `-` when none. */
export function formatTiers(byTier: Partial<Record<string, number>> | undefined): string {
  if (!byTier) return '-';
  const known: readonly string[] = TIERS;
  const order = [...TIERS, ...Object.keys(byTier).filter((tier) => !known.includes(tier))];
  const parts = order
    .map((tier) => [tier, byTier[tier] ?? 0] as const)
    .filter(([, count]) => count > 0)
    .map(([tier, count]) => `${tier} ${count}`);
  return parts.length > 0 ? parts.join(', ') : '-';
}

/** Pages per tier of a response: `usage.pages_by_tier`, else counted from the pages. */
export function pagesByTier(response: ParseResponse): Partial<Record<string, number>> {
  if (response.usage.pages_by_tier) return response.usage.pages_by_tier;
  const counts: Partial<Record<string, number>> = {};
  for (const page of response.pages) counts[page.tier_used] = (counts[page.tier_used] ?? 0) + 1;
  return counts;
}

/** `1 page`, `3 pages`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The extracted object's top-level fields, or undefined when the response has none. */
export function extractedFields(response: ParseResponse): number | undefined {
  const { extracted } = response;
  return extracted && typeof extracted === 'object' ? Object.keys(extracted).length : undefined;
}

/**
 * The one-line summary of a parse:
 * `report.pdf: 3 pages (fast 2, pro 1), $0.0030, 2.1 s, req_… → report.md, report.json`.
 */
export function parseSummary(
  name: string,
  response: ParseResponse,
  elapsedMs: number,
  written: readonly string[],
): string {
  const pages = response.document.pages;
  const cost = response.usage.estimated_cost_usd;
  const files = written.length > 0 ? ` → ${written.join(', ')}` : '';
  return `${name}: ${plural(pages, 'page')} (${formatTiers(pagesByTier(response))}), ${formatCost(cost)}, ${formatDuration(elapsedMs)}, ${response.id}${files}`;
}

/** An estimate for people: page count, tier mix, cost, document type, preset. */
export function formatEstimate(name: string, estimate: EstimateResult): string {
  const preset = estimate.applied_preset;
  const lines = [
    name,
    `  pages:          ${estimate.page_count}`,
    `  tiers:          ${formatTiers(estimate.tier_mix)}`,
    `  estimated cost: ${formatCost(estimate.estimated_cost_usd)}`,
    `  document type:  ${estimate.doc_type.replaceAll('_', ' ')}`,
  ];
  lines.push(
    `  preset:         tier floor ${preset.tier_floor}, grounding ${preset.return_grounding ? 'on' : 'off'}`,
  );
  return lines.join('\n');
}
