/**
 * The dev corpus as the benches see it: where it lives, its manifest, and the categories the
 * reports group documents by.
 */
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { corpusPath } from '../test/support/corpus.js';

/** One document of `corpus/dev/manifest.json`. */
export interface ManifestDoc {
  id: string;
  /** Path relative to the corpus directory, e.g. `files/zerox-0004.pdf`. */
  file: string;
  format: string;
  pages: number;
  categories: string[];
}

/** The project root. */
export const ROOT = resolve(import.meta.dirname, '..');
/**
 * The benchmark kit next to the project (`../shared/bench`): the scorer, the hostile-corpus
 * checker and the reference figures. The one place the benches name it.
 */
export const SHARED_BENCH = resolve(ROOT, '../shared/bench');
/** The dev corpus, in the test corpus that `DOCPARSE_CORPUS_DIR` locates. */
export const CORPUS_DIR = corpusPath('dev');
export const MANIFEST = join(CORPUS_DIR, 'manifest.json');
/** The kit's scorer: Markdown against the corpus ground truth. */
export const SCORER = join(SHARED_BENCH, 'score.mjs');
/** The kit's checker of the hostile corpus's expected outcomes. */
export const HOSTILE_CHECK = join(SHARED_BENCH, 'hostile-check.mjs');
/** The README of the shared bench, with the figures other tools reach. */
export const SHARED_BENCH_README = join(SHARED_BENCH, 'README.md');

/**
 * `path` as the benches print it: relative to the project root, so that a corpus found through
 * `DOCPARSE_CORPUS_DIR` shows where it is (`../shared/corpus/dev` by default).
 */
export const shownPath = (path: string): string => relative(ROOT, path) || '.';

export const OFFICE_FORMATS: ReadonlySet<string> = new Set([
  'docx',
  'pptx',
  'xlsx',
  'xls',
  'html',
  'md',
]);
export const IMAGE_FORMATS: ReadonlySet<string> = new Set([
  'png',
  'jpeg',
  'jpg',
  'webp',
  'tiff',
  'heic',
]);
/** Every format the service parses. */
export const PARSEABLE_FORMATS: ReadonlySet<string> = new Set([
  'pdf',
  ...IMAGE_FORMATS,
  ...OFFICE_FORMATS,
]);

/** The document groups of the reports. */
export type DocumentCategory = 'born-digital' | 'ocr' | 'office';

/** Human labels of the categories, as the reports print them. */
export const CATEGORY_LABELS: Readonly<Record<DocumentCategory, string>> = {
  'born-digital': 'born-digital PDFs',
  ocr: 'scans and images',
  office: 'office documents',
};

/** The documents of the dev corpus. */
export function loadManifest(): ManifestDoc[] {
  return (JSON.parse(readFileSync(MANIFEST, 'utf8')) as { documents: ManifestDoc[] }).documents;
}

export function isOfficeDoc(d: ManifestDoc): boolean {
  return OFFICE_FORMATS.has(d.format);
}

/** Images and image-only (scanned) PDFs: the documents that need OCR. */
export function isOcrDoc(d: ManifestDoc): boolean {
  return (
    !isOfficeDoc(d) &&
    (d.format !== 'pdf' ||
      d.categories.includes('scanned') ||
      d.categories.includes('image-only-pdf'))
  );
}

/** Which report group a document belongs to. */
export function categoryOf(d: ManifestDoc): DocumentCategory {
  if (isOfficeDoc(d)) return 'office';
  return isOcrDoc(d) ? 'ocr' : 'born-digital';
}
