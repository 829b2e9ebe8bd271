/**
 * A GFM pipe table from a grid of cell texts (Markdown inline content). The first row is the
 * header row (GFM requires one); rows are padded to the widest. Pipes in cells are escaped and
 * line breaks become `<br>`, so that every row stays on one line.
 *
 * @example
 * gfmTable([['Food', 'Calories'], ['Leaves', '50']]);
 * // '| Food | Calories |\n| --- | --- |\n| Leaves | 50 |'
 */
export function gfmTable(rows: readonly (readonly string[])[]): string {
  const width = rows.reduce((max, r) => Math.max(max, r.length), 1);
  const line = (cells: readonly string[]) =>
    `| ${Array.from({ length: width }, (_, c) => gfmCell(cells[c] ?? '')).join(' | ')} |`;
  const [header = [], ...body] = rows;
  return [line(header), `| ${Array.from({ length: width }, () => '---').join(' | ')} |`]
    .concat(body.map(line))
    .join('\n');
}

/** One cell's content on one line: pipes escaped, line breaks as `<br>`, blanks collapsed. */
export function gfmCell(text: string): string {
  return text
    .trim()
    .replace(/\r\n?/g, '\n')
    .replace(/\s*\n\s*(\n\s*)*/g, '<br>')
    .replace(/(?<!\\)\|/g, '\\|')
    .replace(/[ \t]+/g, ' ');
}

/**
 * Most grid cells a spanning (merged) cell's text is repeated in. GFM has no spans, so a
 * spanning cell's text goes in every cell it covers, keeping each row complete; past this many
 * cells it stays in the first one only, the others empty: repeated, one 100-character cell
 * merged over 700 × 700 cells would be 49 MB of Markdown from a 2 KB file.
 */
export const MAX_REPEATED_SPAN_CELLS = 64;

/**
 * The text of grid cell (`dr`, `dc`) of a spanning cell of `rows` × `cols` cells holding `text`
 * (0, 0 being its first cell): `text` in each cell up to {@link MAX_REPEATED_SPAN_CELLS}, else
 * in the first cell only.
 */
export function spannedText(text: string, rows: number, cols: number, dr: number, dc: number) {
  return (dr === 0 && dc === 0) || rows * cols <= MAX_REPEATED_SPAN_CELLS ? text : '';
}
