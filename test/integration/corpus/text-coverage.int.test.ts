/**
 * Nothing is lost silently: every character of a PDF page's text layer ends up in the page's
 * Markdown or in one of its grounding entries that carry text beside it (running headers and
 * footers, figures). Runs every PDF of the dev and papers corpora through the offline text-layer
 * provider, as the service lays them out, and compares per page the multiset of non-space
 * characters (see `bench/text-coverage.ts` for what is folded or ignored: markup, bullets,
 * ligatures, accents, line-end hyphens).
 *
 * Two stages are checked:
 * - extraction: the text layer as PDFium reads it (`stats.rawText`, every glyph of the page) against
 *   the runs handed to the layout;
 * - layout: the runs whose centre lies inside the page box against the Markdown and the texts of
 *   the header, footer and figure entries.
 *
 * Losses known today are listed in {@link KNOWN} with the stage that drops them; a page may lose
 * those characters (or fewer) and nothing else, so any new loss fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lossesBeyond, markdownPlainText, textCoverage } from '../../../bench/text-coverage.js';
import type { DocumentRef } from '../../../functions/core/ports/document-engine.js';
import { trueBox } from '../../../functions/engines/math/latex.js';
import { LocalTextProvider } from '../../../functions/engines/pdf/local-text-provider.js';
import { PdfDocumentCache } from '../../../functions/engines/pdf/pdf-document-cache.js';
import { PdfEngine } from '../../../functions/engines/pdf/pdf-engine.js';
import { CorpusStore } from '../../support/corpus-store.js';
import { corpusDir } from '../../support/corpus.js';
import { laidOutPages } from '../../support/laid-out-pages.js';

const CORPUS = corpusDir();
const CORPORA = ['dev', 'papers'] as const;

interface CorpusDoc {
  id: string;
  file: string;
  format: string;
}

/** Losses known today, by `corpus/document#page`: the characters lost at each stage, and why. */
interface KnownLoss {
  /** Characters of the text layer that never reach the layout's runs. */
  extraction?: string;
  /** Characters of the runs inside the page box missing from the Markdown and grounding texts. */
  layout?: string;
  reason: string;
}

const ROTATED_STAMP =
  'extraction (pdfium-page-text.ts): the rotated arXiv identifier in the left margin is left out of the runs (only upright text is laid out)';
const ROTATED_FIGURE_TEXT =
  'extraction (pdfium-page-text.ts): rotated axis labels and tick values of a vector chart are left out of the runs';

const DRAWN_TWICE =
  'rows (lines.ts): a label drawn twice at the same place (fake bold, a shadow) is read once';

const KNOWN: Readonly<Record<string, KnownLoss>> = {
  'dev/docling-redp5110_sampled#3': {
    layout: 'r×9',
    reason:
      'lists (lists.ts): the bullets, drawn as the letter r of a symbol font, are read as bullets (`-`)',
  },
  'dev/docling-redp5110_sampled#10': {
    layout: 'C×3 E×3 A×2 F×2 L×2 O×2 R×2 S×2 D×1 N×1',
    reason: DRAWN_TWICE,
  },
  'dev/docling-redp5110_sampled#11': {
    layout: 'n×2 A×1 C×1 E×1 I×1 L×1 S×1 a×1 d×1 e×1 g×1 i×1 o×1 s×1',
    reason: DRAWN_TWICE,
  },
  'dev/docling-redp5110_sampled#9': {
    extraction:
      'B×7 M×6 D×5 Q×4 S×4 A×3 I×3 C×2 L×2 N×2 O×2 o×2 t×2 E×1 J×1 T×1 Y×1 h×1 i×1 r×1 u×1 y×1',
    reason:
      'extraction (pdfium-page-text.ts): rotated column headers of a table are left out of the runs',
  },
  'dev/zerox-0004#1': {
    extraction:
      '0×3 1×4 2×3 4×3 .×2 7×2 c×2 v×2 :×1 [×1 ]×1 9×1 A×1 I×1 O×1 X×1 a×1 i×1 r×1 s×1 t×1',
    reason: ROTATED_STAMP,
  },
  'dev/olmocr-discoverworld_crazy_table4#1': {
    extraction: 'e×24 o×21 r×12 d×9 l×9 n×9 C×6 P×6 c×6 i×6 m×6 p×6 t×6 u×6 K×3 g×3 w×3',
    reason:
      'extraction (pdfium-page-text.ts): the rotated header cells of the table are left out of the runs',
  },
  'papers/readoc-arxiv-1506.06975#1': {
    extraction:
      '0×3 1×3 .×2 3×2 5×2 6×2 7×2 a×2 t×2 v×2 2×1 9×1 :×1 C×1 J×1 O×1 X×1 [×1 ]×1 i×1 n×1 r×1 s×1 u×1',
    reason: ROTATED_STAMP,
  },
  'papers/readoc-arxiv-1506.06975#4': {
    extraction:
      '0×24 4×20 e×8 5×7 t×7 s×6 i×5 .×4 6×4 a×4 l×3 m×3 o×3 2×2 8×2 n×2 p×2 r×2 1×1 3×1 Q×1 S×1 d×1 g×1 u×1 y×1',
    reason: ROTATED_FIGURE_TEXT,
  },
  'papers/readoc-arxiv-1506.06975#13': {
    extraction: 'e×18 t×18 i×12 o×12 r×12 s×12 0×8 1×8 2×8 4×8 6×6 a×6 m×6 p×6 8×4 3×2 5×2',
    reason: ROTATED_FIGURE_TEXT,
  },
  'papers/readoc-arxiv-1506.06975#14': {
    extraction: '0×22 .×12 5×4 ^×3 2×2 3×2 4×2 8×2 9×2 f×1 m×1 s×1 v×1',
    reason: ROTATED_FIGURE_TEXT,
  },
  'papers/readoc-arxiv-1506.06975#15': {
    extraction:
      't×16 e×14 o×13 i×11 r×10 s×10 0×9 1×7 2×7 a×6 l×5 m×5 4×4 p×4 6×3 8×3 5×2 d×2 g×2 y×2 3×1 h×1 n×1 u×1 v×1',
    reason: ROTATED_FIGURE_TEXT,
  },
  'papers/readoc-arxiv-1506.06975#17': {
    extraction:
      '0×39 .×18 o×15 t×13 1×12 2×12 l×12 a×11 i×8 e×7 r×7 4×6 6×6 g×6 m×6 s×6 y×6 d×5 u×5 n×4 (×3 )×3 3×3 5×3 7×3 8×3 b×3 h×3 v×3',
    reason: ROTATED_FIGURE_TEXT,
  },
  'papers/readoc-arxiv-1506.06975#18': {
    extraction: '0×8 1×2 2×2 r×2 3×1 4×1 5×1 e×1 g×1 l×1 n×1 o×1 s×1 t×1 u×1',
    reason: ROTATED_FIGURE_TEXT,
  },
  'papers/readoc-arxiv-1506.06975#19': {
    extraction: '0×4 2×2 r×2 4×1 e×1 g×1 l×1 n×1 o×1 s×1 t×1 u×1',
    reason: ROTATED_FIGURE_TEXT,
  },
  'papers/readoc-arxiv-2206.11906#1': {
    extraction:
      '2×6 0×3 1×3 .×2 6×2 a×2 r×2 v×2 3×1 9×1 :×1 A×1 G×1 J×1 X×1 [×1 ]×1 h×1 i×1 n×1 o×1 p×1 s×1 t×1 u×1',
    reason: ROTATED_STAMP,
  },
  'papers/readoc-arxiv-2206.11906#21': {
    extraction: '.×8 0×8 e×8 ,×4 /×4 1×4 2×4 5×4 L×4 V×4 X×4 g×4 k×4 r×4 s×4',
    reason: ROTATED_FIGURE_TEXT,
  },
  'papers/docling-table_mislabeled_as_picture#1': {
    layout: 'y×12',
    reason:
      'rows and lists (lines.ts, lists.ts): each bullet of the list is the letter y of a symbol font with a zero-width copy in the text font; the copies are left out (no width) and the bullets read as bullets (`-`)',
  },
};

const store = new CorpusStore();
const cache = new PdfDocumentCache(store);
const engine = new PdfEngine(cache);
const provider = new LocalTextProvider(cache);

afterAll(async () => {
  await cache.close();
});

/** The grounding entries whose text stands for text kept out of the Markdown. */
const TEXT_BESIDE_MARKDOWN: ReadonlySet<string> = new Set(['header', 'footer', 'figure']);

/** Each page's losses beyond the known ones, e.g. `dev/x#2 layout: a×1` (empty when none). */
async function unexpectedLosses(corpus: string, doc: CorpusDoc): Promise<string[]> {
  const document: DocumentRef = { key: `${corpus}/${doc.file}`, format: 'pdf', hash: doc.id };
  const found: string[] = [];
  for await (const { pageNumber, result } of laidOutPages(engine, provider, document)) {
    const id = `${corpus}/${doc.id}#${String(pageNumber)}`;
    const known = KNOWN[id];
    const { text, stats } = await cache.page(document, pageNumber);
    const runs = text.runs.map((r) => r.text);
    // Runs read into a formula are written as its LaTeX (`\\theta` for θ): the formula's
    // grounding entry accounts for them. A glyph is where it is drawn (trueBox): the box a reader
    // gives a big delimiter or operator of TeX's extension font sits above it.
    const k = text.dpi / result.dpi;
    const formulas = result.elements
      .filter((e) => e.label === 'formula')
      .map(({ bbox: b }) => ({ x: b.x * k, y: b.y * k, w: b.w * k, h: b.h * k }));
    const inFormula = (x: number, y: number): boolean =>
      formulas.some((b) => x >= b.x && y >= b.y && x <= b.x + b.w && y <= b.y + b.h);
    // A run partly read into a formula (`Σ) with covariance Σ.`: TeX sets Σ in its text font, in
    // one run with the words) keeps the characters outside the formula, each where its share of
    // the run's width puts it, as the layout cuts such runs.
    const onPage = text.runs.flatMap((run) => {
      const r = trueBox(run);
      const cx = r.x + r.w / 2;
      const cy = r.y + r.h / 2;
      if (cx < 0 || cy < 0 || cx > text.width || cy > text.height || inFormula(cx, cy)) return [];
      const share = r.w / (run.text.length || 1);
      const overlaps = formulas.some(
        (b) => b.x < r.x + r.w && b.x + b.w > r.x && cy >= b.y && cy <= b.y + b.h,
      );
      if (!overlaps) return [run.text];
      let kept = '';
      for (let i = 0; i < run.text.length; i++) {
        if (!inFormula(r.x + (i + 0.5) * share, cy)) kept += run.text[i] ?? '';
      }
      return [kept];
    });
    const output = [
      markdownPlainText(result.markdown),
      ...result.elements.filter((e) => TEXT_BESIDE_MARKDOWN.has(e.label)).map((e) => e.text),
    ];
    const stages = {
      extraction: textCoverage([stats.rawText], runs),
      layout: textCoverage(onPage, output),
    };
    for (const [stage, coverage] of Object.entries(stages)) {
      const beyond = lossesBeyond(coverage.missing, known?.[stage as 'layout'] ?? '');
      if (beyond !== '') found.push(`${id} ${stage}: ${beyond}`);
    }
  }
  return found;
}

describe.each(CORPORA)('the %s corpus through the offline text-layer provider', (corpus) => {
  const docs = (
    JSON.parse(readFileSync(join(CORPUS, corpus, 'manifest.json'), 'utf8')) as {
      documents: CorpusDoc[];
    }
  ).documents.filter((d) => d.format === 'pdf');

  it.each(docs.map((d) => [d.id, d] as const))(
    'keeps every text-layer character of %s in the Markdown or its grounding',
    async (_id, doc) => {
      // Act
      const losses = await unexpectedLosses(corpus, doc);
      // Assert
      expect(losses).toEqual([]);
    },
  );
});

describe('the known losses', () => {
  it('name pages of the corpora with a stage and a reason', () => {
    // Assert
    for (const [id, known] of Object.entries(KNOWN)) {
      expect(id).toMatch(/^(dev|papers)\/[\w.-]+#\d+$/);
      expect(known.extraction ?? known.layout).toBeTruthy();
      expect(known.reason).toMatch(/^\w[\w ]* \(|^\w+ \(/);
    }
  });
});
