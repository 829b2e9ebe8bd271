/**
 * The dev corpus as the benches see it: where it lives, its manifest, and the categories the
 * reports group documents by.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
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
/** The shared directory next to the project: scorer and reference figures. */
export const SHARED = resolve(ROOT, '../shared');
/** The dev corpus, in the test corpus that `DOCPARSE_CORPUS_DIR` locates. */
export const CORPUS_DIR = corpusPath('dev');
export const MANIFEST = join(CORPUS_DIR, 'manifest.json');
export const SCORER = join(SHARED, 'bench/score.mjs');
/** The README of the shared bench, with the figures other tools reach. */
export const SHARED_BENCH_README = join(SHARED, 'bench/README.md');

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
