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
