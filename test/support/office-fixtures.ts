import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { corpusPath } from './corpus.js';

export const DEV = corpusPath('dev/files');
export const HOSTILE = corpusPath('hostile');

/** A file of the dev corpus (`docling-word_sample.docx`...). */
export const devFile = (name: string): Uint8Array => readFileSync(join(DEV, name));

/** A ZIP of the given entries (text as UTF-8), deflated at `level` (0: stored). */
export function zipOf(
  files: Record<string, string | Uint8Array>,
  level: 0 | 1 | 6 | 9 = 6,
): Uint8Array {
  return zipSync(
    Object.fromEntries(
      Object.entries(files).map(([name, body]) => [
        name,
        typeof body === 'string' ? strToU8(body) : body,
      ]),
    ),
    { level },
  );
}

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/></Types>';

const rels = (items: { id: string; type: string; target: string }[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${items
    .map(
      (r) =>
        `<Relationship Id="${r.id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${r.type}" Target="${r.target}"/>`,
    )
    .join('')}</Relationships>`;

export const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** A minimal Word package around a `w:body` content. */
export function docxOf(body: string, extra: Record<string, string | Uint8Array> = {}): Uint8Array {
  return zipOf({
    '[Content_Types].xml': CONTENT_TYPES,
    '_rels/.rels': rels([{ id: 'rId1', type: 'officeDocument', target: 'word/document.xml' }]),
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W_NS}"><w:body>${body}</w:body></w:document>`,
    ...extra,
  });
}

/** A Word paragraph of one run. */
export const para = (text: string, pPr = '') =>
  `<w:p>${pPr === '' ? '' : `<w:pPr>${pPr}</w:pPr>`}<w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;

const P_NS =
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';

/** EMU of a point. */
export const PT = 12_700;

/** A shape tree element: `<p:sp>` with a placeholder or none, a position in points and paragraphs. */
export function shape(options: {
  name?: string;
  ph?: string;
  at?: [number, number, number, number];
  paragraphs?: string[];
  hidden?: boolean;
}): string {
  const [x, y, w, h] = options.at ?? [0, 0, 0, 0];
  const xfrm = options.at
    ? `<a:xfrm><a:off x="${x * PT}" y="${y * PT}"/><a:ext cx="${w * PT}" cy="${h * PT}"/></a:xfrm>`
    : '';
  return `<p:sp><p:nvSpPr><p:cNvPr id="2" name="${options.name ?? 'Shape'}"${options.hidden ? ' hidden="1"' : ''}/><p:cNvSpPr/><p:nvPr>${options.ph ?? ''}</p:nvPr></p:nvSpPr><p:spPr>${xfrm}</p:spPr><p:txBody><a:bodyPr/><a:lstStyle/>${(options.paragraphs ?? []).join('')}</p:txBody></p:sp>`;
}

/** A DrawingML paragraph: text, and optional paragraph properties. */
export const apara = (text: string, pPr = '') =>
  `<a:p>${pPr}<a:r><a:rPr lang="en-US"/><a:t>${text}</a:t></a:r></a:p>`;

/**
 * A minimal PowerPoint package: slides (shape tree contents), optional notes per slide, one layout
 * and one master. The master places the title at (36, 20) 648 × 60 pt and gives body text
 * bullets at every level.
 */
export function pptxOf(slides: string[], notes: (string | undefined)[] = []): Uint8Array {
  const files: Record<string, string> = {
    '[Content_Types].xml': CONTENT_TYPES,
    '_rels/.rels': rels([{ id: 'rId1', type: 'officeDocument', target: 'ppt/presentation.xml' }]),
    'ppt/presentation.xml': `<?xml version="1.0" encoding="UTF-8"?><p:presentation ${P_NS}><p:sldIdLst>${slides
      .map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 10}"/>`)
      .join('')}</p:sldIdLst><p:sldSz cx="${720 * PT}" cy="${540 * PT}"/></p:presentation>`,
    'ppt/_rels/presentation.xml.rels': rels(
      slides.map((_, i) => ({
        id: `rId${i + 10}`,
        type: 'slide',
        target: `slides/slide${i + 1}.xml`,
      })),
    ),
    'ppt/slideLayouts/slideLayout1.xml': `<?xml version="1.0" encoding="UTF-8"?><p:sldLayout ${P_NS}><p:cSld><p:spTree>${shape({ ph: '<p:ph type="title"/>' })}${shape({ ph: '<p:ph idx="1"/>' })}</p:spTree></p:cSld></p:sldLayout>`,
    'ppt/slideLayouts/_rels/slideLayout1.xml.rels': rels([
      { id: 'rId1', type: 'slideMaster', target: '../slideMasters/slideMaster1.xml' },
    ]),
    'ppt/slideMasters/slideMaster1.xml': `<?xml version="1.0" encoding="UTF-8"?><p:sldMaster ${P_NS}><p:cSld><p:spTree>${shape({ ph: '<p:ph type="title"/>', at: [36, 20, 648, 60] })}${shape({ ph: '<p:ph type="body" idx="1"/>', at: [36, 100, 648, 400] })}</p:spTree></p:cSld><p:txStyles><p:titleStyle><a:lvl1pPr><a:buNone/></a:lvl1pPr></p:titleStyle><p:bodyStyle><a:lvl1pPr><a:buChar char="•"/></a:lvl1pPr><a:lvl2pPr><a:buChar char="–"/></a:lvl2pPr></p:bodyStyle><p:otherStyle><a:lvl1pPr/></p:otherStyle></p:txStyles></p:sldMaster>`,
  };
  slides.forEach((tree, i) => {
    const n = i + 1;
    files[`ppt/slides/slide${n}.xml`] =
      `<?xml version="1.0" encoding="UTF-8"?><p:sld ${P_NS}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${tree}</p:spTree></p:cSld></p:sld>`;
    const slideRels = [
      { id: 'rId1', type: 'slideLayout', target: '../slideLayouts/slideLayout1.xml' },
    ];
    const note = notes[i];
    if (note !== undefined) {
      slideRels.push({
        id: 'rId2',
        type: 'notesSlide',
        target: `../notesSlides/notesSlide${n}.xml`,
      });
      files[`ppt/notesSlides/notesSlide${n}.xml`] =
        `<?xml version="1.0" encoding="UTF-8"?><p:notes ${P_NS}><p:cSld><p:spTree>${shape({ ph: '<p:ph type="sldImg"/>' })}${shape({ ph: '<p:ph type="body" idx="1"/>', paragraphs: note.split('\n').map((t) => apara(t)) })}</p:spTree></p:cSld></p:notes>`;
    }
    files[`ppt/slides/_rels/slide${n}.xml.rels`] = rels(slideRels);
  });
  return zipOf(files);
}
