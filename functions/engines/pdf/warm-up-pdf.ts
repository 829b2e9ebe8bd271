import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { deflateSync } from 'node:zlib';

/** Fonts shipped with pdf.js (Liberation: OFL; Foxit: BSD), embedded in the warm-up page. */
const fontFile = (name: string): Promise<Uint8Array> => {
  const require = createRequire(import.meta.url);
  return readFile(require.resolve(`pdfjs-dist/standard_fonts/${name}`));
};

/**
 * The parts of a Type 1 font in PFB form (segments of ASCII and binary data) as a PDF FontFile
 * wants them: the concatenated data and the lengths of the clear-text, encrypted and trailing
 * parts (Length1, Length2, Length3).
 */
const pfbParts = (pfb: Uint8Array): { data: Uint8Array; lengths: [number, number, number] } => {
  const chunks: Uint8Array[] = [];
  const lengths = [0, 0, 0];
  let part = 0;
  for (let at = 0; at + 6 <= pfb.length && pfb[at] === 0x80 && pfb[at + 1] !== 3;) {
    const type = pfb[at + 1];
    const size =
      (pfb[at + 2] ?? 0) |
      ((pfb[at + 3] ?? 0) << 8) |
      ((pfb[at + 4] ?? 0) << 16) |
      ((pfb[at + 5] ?? 0) << 24);
    const chunk = pfb.subarray(at + 6, at + 6 + size);
    if (type === 2) part = 1;
    else if (part === 1) part = 2;
    lengths[part] = (lengths[part] ?? 0) + chunk.length;
    chunks.push(chunk);
    at += 6 + size;
  }
  return { data: concat(chunks), lengths: [lengths[0] ?? 0, lengths[1] ?? 0, lengths[2] ?? 0] };
};

const concat = (chunks: readonly Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
};

/**
 * A one-page PDF that exercises what typical documents use, for readers to load and compile
 * their code before the first real document: a Flate-compressed content stream, the standard
 * fonts, an embedded TrueType and an embedded Type 1 font, kerned text, rules, filled
 * rectangles, a form XObject, a grey image, and mathematics in TeX's fonts. The cross-reference table is left out (readers
 * rebuild it, which they must also do for damaged files).
 */
export async function warmUpPdf(): Promise<Uint8Array> {
  const [ttf, pfb] = await Promise.all([
    fontFile('LiberationSans-Regular.ttf'),
    fontFile('FoxitSerif.pfb'),
  ]);
  const type1 = pfbParts(pfb);
  const operators: string[] = [];
  for (let i = 0; i < 40; i++) {
    const font = `/F${(i % 5) + 1} ${9 + (i % 4)} Tf`;
    const words = `[(Line ${i} of the) -250 (warm-up page,) -3000 (${i * 7}.5%)] TJ`;
    operators.push(`BT ${font} 72 ${750 - i * 16} Td ${words} ET`);
  }
  for (let i = 0; i < 20; i++) {
    operators.push(`0.5 w 72 ${90 + i * 5} m 540 ${90 + i * 5} l S ${72 + i * 20} 60 10 6 re f`);
  }
  operators.push('q 200 0 0 100 300 40 cm /Im1 Do Q', 'q 1 0 0 1 0 0 cm /Fm1 Do Q');
  // Mathematics in TeX's fonts, so that finding formulas and rebuilding their LaTeX is compiled
  // too: a display equation with a superscript, a fraction and its number, and inline math.
  operators.push(
    'BT /F6 10 Tf 400 520 Td (x) Tj /F7 10 Tf ( = ) Tj /F6 10 Tf (a) Tj /F7 7 Tf 4 Ts (2) Tj',
    '0 Ts /F7 10 Tf ( + ) Tj ET',
    'BT /F6 10 Tf 452 526 Td (b) Tj 0 -12 Td (c) Tj ET 0.4 w 450 522 m 460 522 l S',
    'BT /F7 10 Tf 540 520 Td (\\(3\\)) Tj ET',
    'BT /F7 10 Tf 360 490 Td (where the state ) Tj /F6 10 Tf (x) Tj /F6 7 Tf -2 Ts (t) Tj',
    '0 Ts /F7 10 Tf ( follows the rule.) Tj ET',
  );

  const content = deflateSync(operators.join('\n'));
  const image = deflateSync(new Uint8Array(64 * 64).map((_, i) => (i * 7) % 256));
  const form = '0.5 w 320 150 m 560 150 l S 320 150 m 320 200 l S';
  const encoder = new TextEncoder();
  const objects: (string | Uint8Array)[][] = [
    ['<< /Type /Catalog /Pages 2 0 R >>'],
    ['<< /Type /Pages /Kids [3 0 R] /Count 1 >>'],
    [
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources',
      ' << /Font << /F1 5 0 R /F2 6 0 R /F3 7 0 R /F4 8 0 R /F5 11 0 R /F6 16 0 R /F7 17 0 R >>',
      ' /XObject << /Im1 14 0 R /Fm1 15 0 R >> >> >>',
    ],
    [`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`, content, '\nendstream'],
    ['<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'],
    ['<< /Type /Font /Subtype /Type1 /BaseFont /Times-Bold >>'],
    ['<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>'],
    [
      '<< /Type /Font /Subtype /TrueType /BaseFont /LiberationSans',
      ' /Encoding /WinAnsiEncoding /FontDescriptor 9 0 R >>',
    ],
    [
      '<< /Type /FontDescriptor /FontName /LiberationSans /Flags 32 /FontBBox [-200 -300 1200 1000]',
      ' /ItalicAngle 0 /Ascent 905 /Descent -212 /CapHeight 716 /StemV 80 /FontFile2 10 0 R >>',
    ],
    [`<< /Length ${ttf.length} /Length1 ${ttf.length} >>\nstream\n`, ttf, '\nendstream'],
    [
      '<< /Type /Font /Subtype /Type1 /BaseFont /FoxitSerif /Encoding /WinAnsiEncoding',
      ' /FontDescriptor 12 0 R >>',
    ],
    [
      '<< /Type /FontDescriptor /FontName /FoxitSerif /Flags 34 /FontBBox [-200 -300 1200 1000]',
      ' /ItalicAngle 0 /Ascent 890 /Descent -216 /CapHeight 662 /StemV 80 /FontFile 13 0 R >>',
    ],
    [
      `<< /Length ${type1.data.length} /Length1 ${type1.lengths[0]} /Length2 ${type1.lengths[1]}`,
      ` /Length3 ${type1.lengths[2]} >>\nstream\n`,
      type1.data,
      '\nendstream',
    ],
    [
      '<< /Type /XObject /Subtype /Image /Width 64 /Height 64 /ColorSpace /DeviceGray',
      ` /BitsPerComponent 8 /Filter /FlateDecode /Length ${image.length} >>\nstream\n`,
      image,
      '\nendstream',
    ],
    [
      `<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Length ${form.length} >>\nstream\n`,
      form,
      '\nendstream',
    ],
    // Not embedded: readers substitute a font and keep the TeX names math is found by.
    ['<< /Type /Font /Subtype /Type1 /BaseFont /CMMI10 /Encoding /WinAnsiEncoding >>'],
    ['<< /Type /Font /Subtype /Type1 /BaseFont /CMR10 /Encoding /WinAnsiEncoding >>'],
  ];
  const chunks: Uint8Array[] = [encoder.encode('%PDF-1.5\n')];
  objects.forEach((parts, i) => {
    chunks.push(encoder.encode(`${i + 1} 0 obj\n`));
    for (const part of parts) chunks.push(typeof part === 'string' ? encoder.encode(part) : part);
    chunks.push(encoder.encode('\nendobj\n'));
  });
  chunks.push(encoder.encode('trailer << /Root 1 0 R >>\n%%EOF\n'));
  return concat(chunks);
}
