import type { Block, Line } from './block.js';
import { median } from './tables.js';

/**
 * Code listings: lines set in a monospace font rendered as one fenced block, spacing kept from
 * positions, and the pieces of one listing (cut apart at its blank lines, or a line's end set far
 * right) joined back.
 */

/** The lines of a listing, kept with its blocks for joining (see {@link joinListings}). */
const listingLines = new WeakMap<Block, Line[]>();

/**
 * The block of a listing: lines on one baseline (a line's end that reading order put apart) are
 * one line, each line's runs set at their columns (the listing's average advance per character
 * from its left edge), and a blank line kept where the baselines leave one.
 *
 * @param body the page's body font size in pixels (the advance guessed when none is known).
 */
export const codeBlock = (lines: readonly Line[], body: number): Block => {
  const x0 = Math.min(...lines.map((l) => l.x0));
  const y0 = Math.min(...lines.map((l) => l.y0));
  const x1 = Math.max(...lines.map((l) => l.x1));
  const y1 = Math.max(...lines.map((l) => l.y1));
  const runs = lines.flatMap((l) => l.runs);
  const charWidth =
    runs.reduce((a, r) => a + r.w, 0) /
      Math.max(
        1,
        runs.reduce((a, r) => a + r.text.length, 0),
      ) || body * 0.6;
  // Lines on one baseline, top to bottom.
  const rows: { baseline: number; size: number; runs: Line['runs'] }[] = [];
  for (const line of lines.slice().sort((a, b) => a.baseline - b.baseline)) {
    const last = rows[rows.length - 1];
    if (last && Math.abs(line.baseline - last.baseline) < 0.3 * line.size) {
      last.runs = [...last.runs, ...line.runs];
    } else {
      rows.push({ baseline: line.baseline, size: line.size, runs: [...line.runs] });
    }
  }
  const steps = rows.slice(1).map((r, k) => r.baseline - (rows[k]?.baseline ?? r.baseline));
  const step = median(steps) || body * 1.2;
  const code: string[] = [];
  rows.forEach((row, k) => {
    const above = rows[k - 1];
    if (above && row.baseline - above.baseline > 1.6 * step) code.push('');
    let text = '';
    let cursor = x0;
    for (const run of row.runs.sort((a, b) => a.x - b.x)) {
      const pad = Math.round((run.x - cursor) / charWidth);
      if (pad > 0) text += ' '.repeat(Math.min(pad, 80));
      else if (text !== '' && !/\s$/.test(text) && run.x - cursor > 0.1 * charWidth) text += ' ';
      text += run.text;
      cursor = run.x + run.w;
    }
    code.push(text.replace(/\s+$/, ''));
  });
  const fence = code.some((c) => c.includes('```')) ? '~~~' : '```';
  const block: Block = {
    kind: 'code',
    markdown: `${fence}\n${code.join('\n')}\n${fence}`,
    text: code.join('\n'),
    x0,
    y0,
    x1,
    y1,
    confidence: 0.8,
  };
  listingLines.set(block, [...lines]);
  return block;
};

/**
 * Pieces of one listing are one code block: code blocks that follow one another in reading order
 * and overlap horizontally (or share a baseline), the next starting below the previous within
 * three of its lines (a blank line or two of the listing). Returns the blocks left; `blocks` is
 * not changed.
 */
export const joinListings = (blocks: readonly Block[], body: number): Block[] => {
  const out: Block[] = [];
  for (const b of blocks) {
    const prev = out[out.length - 1];
    const prevLines = prev && listingLines.get(prev);
    const lines = listingLines.get(b);
    if (prev && prevLines && lines) {
      const lineHeight = median(prevLines.map((l) => l.y1 - l.y0)) || body;
      const sameRow = lines.some((l) =>
        prevLines.some((p) => Math.abs(p.baseline - l.baseline) < 0.3 * l.size),
      );
      const below =
        b.y0 >= prev.y0 && b.y0 - prev.y1 <= 3 * lineHeight && b.x0 < prev.x1 && prev.x0 < b.x1;
      if (sameRow || below) {
        out[out.length - 1] = codeBlock([...prevLines, ...lines], body);
        continue;
      }
    }
    out.push(b);
  }
  return out;
};
