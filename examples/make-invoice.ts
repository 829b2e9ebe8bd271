/**
 * Makes `examples/invoice.pdf`, the one-page document the README's quick start uploads: a title,
 * a ruled table of dated line items with amounts, and a bulleted list.
 *
 * The PDF is generated rather than copied from somewhere so that its licence is the project's
 * and it can be rebuilt from this file: `npx tsx examples/make-invoice.ts`. The output is
 * byte-for-byte reproducible (fixed dates and metadata), and a test checks that the committed
 * file is what this script makes.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';

/** Where the quick start expects the invoice, relative to this file. */
export const INVOICE_PDF = resolve(import.meta.dirname, 'invoice.pdf');

/** The line items: what the table holds, and what the quick start's output shows. */
export const LINE_ITEMS = [
  { date: '2026-03-02', description: 'Design review', amount: '$1,200.00' },
  { date: '2026-03-09', description: 'Layout prototype', amount: '$2,450.00' },
  { date: '2026-03-16', description: 'Accessibility audit', amount: '$875.50' },
  { date: '2026-03-23', description: 'Hosting, March', amount: '$99.00' },
] as const;

/** The total of {@link LINE_ITEMS}. */
export const TOTAL = '$4,624.50';

/** The payment terms, printed as a bulleted list under the table. */
export const TERMS = [
  'Payment is due within 30 days of the invoice date.',
  'Pay by bank transfer to IBAN DE89 3704 0044 0532 0130 00.',
  'Quote the invoice number INV-2026-0042 with your payment.',
] as const;

const FIXED_DATE = new Date('2026-03-31T12:00:00Z');

/** Builds the invoice PDF (US Letter, standard fonts, so nothing is embedded but the text). */
export async function makeInvoice(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle('Invoice INV-2026-0042');
  doc.setAuthor('Example Studio Ltd');
  doc.setProducer('docparse examples/make-invoice.ts');
  doc.setCreator('docparse examples/make-invoice.ts');
  doc.setCreationDate(FIXED_DATE);
  doc.setModificationDate(FIXED_DATE);

  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const page = doc.addPage([612, 792]);
  const black = rgb(0, 0, 0);
  const left = 72;

  page.drawText('Invoice INV-2026-0042', { x: left, y: 700, size: 24, font: bold });
  page.drawText('Example Studio Ltd, 12 Harbour Street, Bristol', {
    x: left,
    y: 668,
    size: 11,
    font: regular,
  });
  page.drawText('Billed to Northwind Traders, 4 Mill Lane, Leeds', {
    x: left,
    y: 640,
    size: 11,
    font: regular,
  });

  // A ruled grid: every row and column bounded by a line, the header row in bold.
  const columns = [left, 172, 412, 540];
  const rowHeight = 22;
  const rows = [
    ['Date', 'Description', 'Amount'],
    ...LINE_ITEMS.map((item) => [item.date, item.description, item.amount]),
    ['', 'Total', TOTAL],
  ];
  const top = 610;
  rows.forEach((cells, r) => {
    const y = top - (r + 1) * rowHeight + 7;
    const font = r === 0 || r === rows.length - 1 ? bold : regular;
    cells.forEach((text, c) => {
      const x = columns[c] ?? left;
      // Amounts are right-aligned in their column, as invoices print them.
      const offset = c === 2 ? (columns[3] ?? 540) - x - 8 - font.widthOfTextAtSize(text, 11) : 8;
      page.drawText(text, { x: x + offset, y, size: 11, font });
    });
  });
  const bottom = top - rows.length * rowHeight;
  for (let r = 0; r <= rows.length; r++) {
    const y = top - r * rowHeight;
    page.drawLine({ start: { x: left, y }, end: { x: 540, y }, thickness: 0.8, color: black });
  }
  for (const x of columns) {
    page.drawLine({ start: { x, y: top }, end: { x, y: bottom }, thickness: 0.8, color: black });
  }

  let y = bottom - 44;
  page.drawText('Payment terms', { x: left, y, size: 14, font: bold });
  for (const term of TERMS) {
    y -= 22;
    page.drawText('\u2022', { x: left + 4, y, size: 11, font: regular });
    page.drawText(term, { x: left + 18, y, size: 11, font: regular });
  }

  return doc.save({ useObjectStreams: false });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(INVOICE_PDF, await makeInvoice());
  console.log(`wrote ${INVOICE_PDF}`);
}
