/** Type declarations for `turndown-plugin-gfm` 1.x, which ships none. */
declare module 'turndown-plugin-gfm' {
  import type TurndownService from 'turndown';

  /** `~~strike~~` from `<del>`, `<s>` and `<strike>`. */
  export const strikethrough: TurndownService.Plugin;
  /** `[x]` / `[ ]` from checkbox inputs in list items. */
  export const taskListItems: TurndownService.Plugin;
  /** Fenced code with the language of a `highlight-source-*` wrapper. */
  export const highlightedCodeBlock: TurndownService.Plugin;
  /** Tables whose first row is a heading row. */
  export const tables: TurndownService.Plugin;
  /** All of the above. */
  export const gfm: TurndownService.Plugin;
}
