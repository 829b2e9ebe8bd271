/** Type declarations for `@joplin/turndown-plugin-gfm` 1.x, which ships none (the rules used). */
declare module '@joplin/turndown-plugin-gfm' {
  import type TurndownService from 'turndown';

  /** `~~strike~~` from `<del>`, `<s>` and `<strike>`. */
  export const strikethrough: TurndownService.Plugin;
  /** `[x]` / `[ ]` from checkboxes in list items (also inside a label or span). */
  export const taskListItems: TurndownService.Plugin;
  /** Fenced code with the language of a `highlight-source-*` or `highlight-text-*` wrapper. */
  export const highlightedCodeBlock: TurndownService.Plugin;
}
