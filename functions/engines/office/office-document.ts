import type { BBoxLabel, DocumentFormat } from '../../core/domain/schemas.js';

/** The formats the office engine converts: Office files, HTML and Markdown. */
export const OFFICE_FORMATS = ['docx', 'pptx', 'xlsx', 'xls', 'html', 'md'] as const;
export type OfficeFormat = (typeof OFFICE_FORMATS)[number];

/** Whether a document format is converted by the office engine (and has no page image). */
export function isOfficeFormat(format: DocumentFormat): format is OfficeFormat {
  return (OFFICE_FORMATS as readonly string[]).includes(format);
}

/** A box in points (1/72 inch), origin at the top-left corner of the page. */
export interface PointBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** One element of a converted page, with its box on the page. */
export interface OfficeElement {
  text: string;
  box: PointBox;
  label: BBoxLabel;
  /** title, heading, paragraph, list_item, table, figure, caption, code, notes, header, footer. */
  elementType: string;
  /** Confidence in the box: 1 where the file gives the geometry, lower for the flow layout. */
  confidence: number;
}

/** One page of a converted document. */
export interface OfficePage {
  /** Page size in points. */
  widthPt: number;
  heightPt: number;
  markdown: string;
  elements: OfficeElement[];
  /**
   * The page's text read straight from the source (runs, cells, shape text), independent of the
   * Markdown rendering; the verification evidence. Null when the format has none to offer.
   */
  sourceText: string | null;
}

/** A converted document: its pages, and where the element boxes come from. */
export interface OfficeDocument {
  format: OfficeFormat;
  pages: OfficePage[];
  /**
   * `file`: boxes are the file's own geometry (slide shapes, sheet cells). `flow`: the file has
   * no geometry (word processing, HTML, Markdown); boxes come from a synthetic layout of the
   * blocks in reading order on a page of the document's size.
   */
  geometry: 'file' | 'flow';
}
