import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../functions/config.js';
import { pdfReaderOptions } from '../../../functions/engines/pdf-reader-options.js';

describe('pdfReaderOptions', () => {
  it('takes the PDF reader settings from the configuration, one deadline for reading and rendering', () => {
    // Arrange
    const config = loadConfig({
      RUNTIME_MODE: 'local',
      MAX_DOCUMENT_PAGES: '40',
      PDF_TEXT_READER: 'pdfjs',
      PDF_PAGE_TIMEOUT_MS: '9000',
      PDF_WORKER_MEMORY_MB: '512',
      ENGINE_IDLE_MS: '2000',
    });
    // Act
    const options = pdfReaderOptions(config);
    // Assert
    expect(options).toEqual({
      maxPagesPerDocument: 40,
      textReader: 'pdfjs',
      timeoutMs: 9000,
      renderTimeoutMs: 9000,
      maxMemoryMb: 512,
      idleMs: 2000,
    });
  });
});
