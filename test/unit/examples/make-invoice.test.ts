import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INVOICE_PDF, makeInvoice } from '../../../examples/make-invoice.js';

describe('examples/make-invoice.ts', () => {
  it('makes the committed examples/invoice.pdf byte for byte', async () => {
    // Act
    const made = await makeInvoice();
    // Assert: rebuild it with `npx tsx examples/make-invoice.ts` after changing the script.
    expect(Buffer.from(made).equals(readFileSync(INVOICE_PDF))).toBe(true);
  });
});
