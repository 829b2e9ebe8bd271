/**
 * The two arXiv papers of the papers corpus, whose ground truth writes mathematics as `$…$` and
 * `$$…$$` from their LaTeX sources: their text scores (the shared scorer's, on the Markdown of
 * the offline text-layer provider) stay at least where formulas as LaTeX brought them, and every
 * formula the Markdown holds parses with KaTeX.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SCORER } from '../../../bench/corpus.js';
import { formulasOf } from '../../../bench/formula-count.js';
import type { DocumentRef } from '../../../functions/core/ports/document-engine.js';
import { katexParses } from '../../../functions/engines/math/katex-check.js';
import { LocalTextProvider } from '../../../functions/engines/pdf/local-text-provider.js';
import { PdfDocumentCache } from '../../../functions/engines/pdf/pdf-document-cache.js';
import { PdfEngine } from '../../../functions/engines/pdf/pdf-engine.js';
import { CorpusStore } from '../../support/corpus-store.js';
import { corpusPath, REPO_ROOT } from '../../support/corpus.js';
import { laidOutPages } from '../../support/laid-out-pages.js';

/** Text scores reached with formulas written as LaTeX (before: 0.622 and 0.817). */
const FLOORS: Readonly<Record<string, number>> = {
  'readoc-arxiv-1506.06975': 0.74,
  'readoc-arxiv-2206.11906': 0.893,
};

const PAPERS = corpusPath('papers');
const store = new CorpusStore();
const cache = new PdfDocumentCache(store);
const engine = new PdfEngine(cache);
const provider = new LocalTextProvider(cache);
const work = mkdtempSync(join(tmpdir(), 'papers-math-'));

afterAll(async () => {
  await cache.close();
  rmSync(work, { recursive: true, force: true });
});

const laidOut = new Map<string, Promise<string>>();

/** The Markdown of a paper, its pages joined by blank lines, as the service lays them out. */
function markdownOf(id: string): Promise<string> {
  let markdown = laidOut.get(id);
  if (!markdown) {
    markdown = layOut(id);
    laidOut.set(id, markdown);
  }
  return markdown;
}

async function layOut(id: string): Promise<string> {
  const document: DocumentRef = { key: `papers/files/${id}.pdf`, format: 'pdf', hash: id };
  const pages: string[] = [];
  for await (const { result } of laidOutPages(engine, provider, document)) {
    pages.push(result.markdown);
  }
  return pages.join('\n\n');
}

describe('the arXiv papers of the papers corpus', () => {
  it('keep their text scores with formulas as LaTeX, every formula parsing with KaTeX', async () => {
    // Arrange: a manifest of the two papers beside their ground truth.
    const ids = Object.keys(FLOORS);
    const full = JSON.parse(readFileSync(join(PAPERS, 'manifest.json'), 'utf8')) as {
      documents: { id: string }[];
    };
    const manifest = join(work, 'manifest.json');
    writeFileSync(
      manifest,
      JSON.stringify({ ...full, documents: full.documents.filter((d) => ids.includes(d.id)) }),
    );
    symlinkSync(join(PAPERS, 'gt'), join(work, 'gt'));
    const pred = join(work, 'pred');
    mkdirSync(pred);
    // Act
    const markdown = new Map<string, string>();
    for (const id of ids) {
      const md = await markdownOf(id);
      markdown.set(id, md);
      writeFileSync(join(pred, `${id}.md`), md);
    }
    const json = join(work, 'scores.json');
    execFileSync(
      process.execPath,
      [SCORER, '--manifest', manifest, '--pred', pred, '--json', json, '--quiet'],
      { cwd: REPO_ROOT },
    );
    // Assert
    const scores = JSON.parse(readFileSync(json, 'utf8')) as {
      documents: { id: string; text: number }[];
    };
    for (const id of ids) {
      const text = scores.documents.find((d) => d.id === id)?.text ?? 0;
      expect({ id, text: text >= (FLOORS[id] ?? 1) }).toEqual({ id, text: true });
      const formulas = formulasOf(markdown.get(id) ?? '');
      expect(formulas.length).toBeGreaterThan(100);
      expect(formulas.filter((f) => !katexParses(f.latex, f.display))).toEqual([]);
    }
  }, 120_000);

  it('keep the largest CMEX ( that PDFium leaves out of the text page (1506.06975, eq. 16a)', async () => {
    // Act
    const markdown = await markdownOf('readoc-arxiv-1506.06975');
    // Assert: code 0x20 of CMEX10 is the \Bigg( the page draws before x_0.
    const line = markdown.split('\n').find((l) => l.endsWith('(16a)')) ?? '';
    expect(line).toContain('\\mathcal{N}\\Bigg{(}x_{0};\\mu');
    expect(line).toContain('\\Bigg{)},$$');
  }, 60_000);
});
