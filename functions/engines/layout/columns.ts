import { buildRows, type Row } from './lines.js';
import type { PageText } from './types.js';

/**
 * Estimates the number of text columns: prose fragments (four words or more) at the page's
 * dominant size are grouped by overlapping x-extent; groups holding at least three of them count.
 * `rows` are the page's runs grouped by {@link buildRows} (grouped here when not given).
 *
 * @returns 1 to 4 (1 for pages without prose).
 */
export const estimateColumns = (
  page: PageText,
  rows: readonly Row[] = buildRows(page.runs),
): number => {
  const fragments = rows.flatMap((r) => r.fragments);
  const sizes = new Map<number, number>();
  for (const f of fragments) {
    const key = Math.round(f.fontSize);
    sizes.set(key, (sizes.get(key) ?? 0) + f.text.length);
  }
  let body = 0;
  let best = -1;
  for (const [size, n] of sizes) {
    if (n > best) {
      best = n;
      body = size;
    }
  }
  const prose = fragments
    .filter((f) => Math.abs(f.fontSize - body) <= body * 0.15 && f.text.split(/\s+/).length >= 4)
    .sort((a, b) => a.x0 - b.x0);
  const groups: { x1: number; count: number }[] = [];
  for (const f of prose) {
    const last = groups[groups.length - 1];
    if (last && f.x0 < last.x1) {
      last.x1 = Math.max(last.x1, f.x1);
      last.count++;
    } else {
      groups.push({ x1: f.x1, count: 1 });
    }
  }
  return Math.min(4, Math.max(1, groups.filter((g) => g.count >= 3).length));
};
