import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { katexParses } from '../functions/engines/math/katex-check.js';

/** Formulas of a Markdown text: `$$…$$` display and `$…$` inline, with the mode of each. */
export const formulasOf = (markdown: string): { latex: string; display: boolean }[] => {
  const out: { latex: string; display: boolean }[] = [];
  const rest = markdown.replace(/\$\$([^$]+?)\$\$/g, (_, latex: string) => {
    out.push({ latex, display: true });
    return ' ';
  });
  // As pandoc reads `$…$`: no space inside either dollar, no digit after the closing one (so
  // amounts like `$5 and $10` are not formulas), on one line.
  for (const match of rest.matchAll(/(?<![\\$])\$(?=\S)([^$\n]+?)(?<=\S)\$(?!\d)/g)) {
    out.push({ latex: match[1] ?? '', display: false });
  }
  return out;
};

/**
 * Counts the formulas of the Markdown files (`*.md`) in `dir` and those KaTeX does not parse,
 * and prints them as a Markdown section (the first few failures with their document).
 */
export const reportFormulas = (dir: string, corpus: string): void => {
  let display = 0;
  let inline = 0;
  const failures: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.md'))) {
    for (const f of formulasOf(readFileSync(join(dir, file), 'utf8'))) {
      if (f.display) display++;
      else inline++;
      if (!katexParses(f.latex, f.display)) failures.push(`${file}: ${f.latex.slice(0, 120)}`);
    }
  }
  console.log(`\n## Formulas on ${corpus}\n`);
  console.log('| display ($$) | inline ($) | KaTeX failures |');
  console.log('| --: | --: | --: |');
  console.log(`| ${String(display)} | ${String(inline)} | ${String(failures.length)} |`);
  for (const f of failures.slice(0, 10)) console.log(`- ${f}`);
};
