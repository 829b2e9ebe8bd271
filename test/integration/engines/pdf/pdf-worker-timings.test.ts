import { afterAll, describe, expect, it } from 'vitest';
import type { DocumentRef } from '../../../../functions/core/ports/document-engine.js';
import { PdfWorkerClient } from '../../../../functions/engines/pdf/pdf-worker-client.js';
import { resetStageTimes, stageTimes } from '../../../../functions/engines/stage-timings.js';
import { CorpusStore } from '../../../support/corpus-store.js';

const client = new PdfWorkerClient(new CorpusStore());
const ref: DocumentRef = {
  key: 'dev/files/pypdf-minimal-document.pdf',
  format: 'pdf',
  hash: 'pdf-worker-timings',
};

afterAll(async () => {
  await client.close();
});

describe('PdfWorkerClient stage times', () => {
  it('records the time each call spent in the worker and around it', async () => {
    // Arrange
    resetStageTimes();
    // Act
    await client.pageCount(ref);
    await client.page(ref, 1);
    // Assert
    const times = stageTimes();
    expect(times.get('pdf worker: pageCount (with open)')?.calls).toBe(1);
    expect(times.get('pdf worker: page')?.calls).toBe(1);
    expect(times.get('pdf worker: page')?.ms).toBeGreaterThan(0);
    expect(times.get('pdf worker: transfer')?.calls).toBe(2);
    expect(times.get('pdf worker: queued')?.calls).toBe(2);
  });
});
