import katex from 'katex';

/** Results of earlier checks by LaTeX and mode (papers repeat `\theta`, `x_{t}` hundreds of times). */
const checked = new Map<string, boolean>();
/** Most results kept; the map is emptied when full (a page's formulas are few, documents many). */
const MAX_CHECKED = 5000;

/**
 * Whether KaTeX renders `latex` without an error: the LaTeX the service emits is only kept when
 * a common renderer reads it. `strict: 'ignore'` leaves out KaTeX's warnings about LaTeX-compatible
 * but unusual input (Unicode letters in math mode); real parse errors still fail. Only KaTeX's
 * MathML is built: its parser raises every error the HTML output would, and building the HTML
 * (font metrics, boxes) costs five times as much, most of a papers page's math time.
 *
 * @param display display style (`$$…$$`) rather than inline (`$…$`).
 */
export const katexParses = (latex: string, display = false): boolean => {
  const key = `${display ? 'D' : 'I'}${latex}`;
  const known = checked.get(key);
  if (known !== undefined) return known;
  let ok: boolean;
  try {
    katex.renderToString(latex, {
      throwOnError: true,
      displayMode: display,
      strict: 'ignore',
      output: 'mathml',
    });
    ok = latex.trim() !== '';
  } catch {
    ok = false;
  }
  if (checked.size >= MAX_CHECKED) checked.clear();
  checked.set(key, ok);
  return ok;
};
