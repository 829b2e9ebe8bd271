import type { Region, RegionBox } from '../../core/ports/structure-extractor.js';
import { analyzePage } from '../layout/layout-page.js';
import { buildLayoutProfile } from '../layout/profile.js';
import type { PageText } from '../layout/types.js';
import { groupFigures, matchCaptions } from './figures.js';
import type { Box } from '../math/equations.js';

/** Where a page's text comes from. */
export type TextSource = 'text_layer' | 'ocr';

/** The regions of one page and what the reading of them is unsure of. */
export interface PageStructure {
  regions: Region[];
  notes: string[];
}

const boxOf = (b: Box): RegionBox => [b.x0, b.y0, b.x1, b.y1];

/**
 * The typed regions of one page, from the same layout analysis as its Markdown:
 * - tables: every table the layout finds (ruled grids, rule-bounded and unruled ones, OCR word
 *   grids on scans), with the cell grid and spans it read, grids read exactly
 *   (`GridReading.exact` of the layout);
 * - figures: the placed images the layout reads as figures, those that overlap or touch joined
 *   ({@link groupFigures}), each with its caption ({@link matchCaptions});
 * - equations: the display equations the layout writes as `$$…$$` (found from the math fonts
 *   of the text layer and checked with KaTeX, see `takeFormulas`), outside tables and figures. Not on OCR pages: OCR gives no
 *   fonts, so it is said in a note when the page was read by OCR.
 *
 * The page is laid out on its own (its own layout profile), so pages can be read in parallel.
 * @returns regions top to bottom, boxes in pixels of `page` (its `dpi`, origin top-left).
 */
export const pageStructure = (page: PageText, source: TextSource): PageStructure => {
  const analysis = analyzePage(page, buildLayoutProfile([page]), { exact: true });
  const notes: string[] = [];
  const regions: Region[] = [];
  for (const table of analysis.tables) {
    regions.push({
      kind: 'table',
      bbox: boxOf(table),
      cells: table.cells.map((c) => ({ ...c })),
    });
  }
  // Images that overlap or touch are one figure (strips, tiles, composites).
  const figures = groupFigures(analysis.figures, 2 * (page.dpi / 72));
  const captions = matchCaptions(figures, analysis.captions, page.height);
  figures.forEach((figure, i) => {
    regions.push({
      kind: 'figure',
      bbox: [figure.x, figure.y, figure.x + figure.w, figure.y + figure.h],
      caption: captions[i] ?? '',
    });
  });
  if (source === 'text_layer') {
    const exclude = [
      ...analysis.tables,
      ...figures.map((f) => ({ x0: f.x, y0: f.y, x1: f.x + f.w, y1: f.y + f.h })),
    ];
    const outside = (e: Box): boolean => {
      const x = (e.x0 + e.x1) / 2;
      const y = (e.y0 + e.y1) / 2;
      return !exclude.some((b) => x > b.x0 && x < b.x1 && y > b.y0 && y < b.y1);
    };
    for (const equation of analysis.equations.filter(outside)) {
      regions.push({
        kind: 'equation',
        bbox: boxOf(equation),
        latex: equation.latex,
        ...(equation.notes.length > 0 ? { notes: equation.notes } : {}),
      });
    }
  } else if (page.runs.length > 0) {
    notes.push('read by OCR (no usable text layer): equations are not recognised on such pages');
  }
  regions.sort((a, b) => a.bbox[1] - b.bbox[1] || a.bbox[0] - b.bbox[0]);
  return { regions, notes };
};
