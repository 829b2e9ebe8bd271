import { afterAll, describe, expect, it } from 'vitest';
import type { DocumentRef } from '../../../../functions/core/ports/document-engine.js';
import { PdfWorkerClient } from '../../../../functions/engines/pdf/pdf-worker-client.js';
import {
  PDF_WORKER_CPU,
  resetStageTimes,
  stageTimes,
} from '../../../../functions/engines/stage-timings.js';
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

  it("records the worker thread's CPU time on each call apart from its wall time", async () => {
    // Arrange: a document the worker has not read yet, so that both calls do work.
    const unread: DocumentRef = { ...ref, hash: 'pdf-worker-cpu' };
    await client.pageCount(unread);
    resetStageTimes();
    // Act
    await client.inspectPage(unread, 1);
    await client.render(unread, 1, { dpi: 72, maxPixels: 4_000_000, minDpi: 36 });
    // Assert
    const cpu = stageTimes().get(PDF_WORKER_CPU);
    expect(cpu?.calls).toBe(2);
    expect(cpu?.ms).toBeGreaterThan(0);
    // CPU time of one thread cannot exceed the wall time of the calls it was measured over.
    const wall = [...stageTimes()]
      .filter(([stage]) => /^pdf worker: (inspect|render)/.test(stage))
      .reduce((ms, [, t]) => ms + t.ms, 0);
    expect(cpu?.ms).toBeLessThanOrEqual(wall + 1);
  });
});
