import { describe, expect, it, vi } from 'vitest';
import type { DocumentRef } from '../../../../functions/core/ports/document-engine.js';
import type {
  PageParseRequest,
  ProviderPageResult,
} from '../../../../functions/core/ports/page-provider.js';
import { LocalTextProvider } from '../../../../functions/engines/pdf/local-text-provider.js';
import type { PdfPageSource } from '../../../../functions/engines/pdf/pdf-page-source.js';
import { aProviderResult } from '../../../support/builders.js';

/** A PDF reader whose layouts are counted; each answer names its call, and `fail` rejects one. */
class CountingSource implements PdfPageSource {
  readonly layouts: { pageNumber: number; dpi: number; profile: unknown }[] = [];
  /** The stored document of each layout, in order. */
  readonly documents: string[] = [];
  fail = false;

  pageCount(): Promise<number> {
    return Promise.resolve(100);
  }
  page(): Promise<never> {
    return Promise.reject(new Error('not read here'));
  }
  render(): Promise<never> {
    return Promise.reject(new Error('not rendered here'));
  }
  layOut(
    ref: DocumentRef,
    pageNumber: number,
    dpi: number,
    profile: unknown,
  ): Promise<ProviderPageResult> {
    this.layouts.push({ pageNumber, dpi, profile });
    this.documents.push(ref.key);
    if (this.fail) return Promise.reject(new Error('the worker was replaced'));
    return Promise.resolve(aProviderResult({ markdown: `layout ${this.layouts.length}`, dpi }));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const aRequest = (overrides: Partial<PageParseRequest> = {}): PageParseRequest => ({
  document: { key: 'uploads/a.pdf', hash: 'sha256-a', format: 'pdf' },
  pageNumber: 1,
  dpi: null,
  profile: { bodyFontSize: 10 },
  maintainFormat: false,
  ...overrides,
});

describe('LocalTextProvider.prefetch', () => {
  it('lays a page out once: the parse that follows takes the layout started ahead', async () => {
    // Arrange
    const source = new CountingSource();
    const provider = new LocalTextProvider(source, undefined, { prefetch: true });
    // Act
    provider.prefetch(aRequest());
    const result = await provider.parsePage(aRequest());
    // Assert
    expect(source.layouts).toEqual([{ pageNumber: 1, dpi: 144, profile: { bodyFontSize: 10 } }]);
    expect(result.markdown).toBe('layout 1');
    // Taken: asked again, the page is laid out again.
    expect((await provider.parsePage(aRequest())).markdown).toBe('layout 2');
  });

  it('does nothing unless enabled, and leaves other formats alone', () => {
    // Arrange
    const source = new CountingSource();
    const off = new LocalTextProvider(source);
    const on = new LocalTextProvider(source, undefined, { prefetch: true });
    // Act
    off.prefetch(aRequest());
    on.prefetch(aRequest({ document: { key: 'uploads/a.docx', hash: 'h', format: 'docx' } }));
    // Assert
    expect(source.layouts).toEqual([]);
  });

  it.each([
    ['another DPI', { dpi: 200 }],
    ['another profile', { profile: { bodyFontSize: 12 } }],
    ['another page', { pageNumber: 2 }],
    [
      'another document',
      { document: { key: 'uploads/b.pdf', hash: 'sha256-b', format: 'pdf' as const } },
    ],
    [
      "another request's upload of the same file",
      { document: { key: 'uploads/c.pdf', hash: 'sha256-a', format: 'pdf' as const } },
    ],
  ])('lays the page out afresh for %s', async (_what, change) => {
    // Arrange
    const source = new CountingSource();
    const provider = new LocalTextProvider(source, undefined, { prefetch: true });
    provider.prefetch(aRequest());
    // Act
    const result = await provider.parsePage(aRequest(change));
    // Assert
    expect(source.layouts).toHaveLength(2);
    expect(result.markdown).toBe('layout 2');
  });

  it('tries a page again when the layout started ahead failed', async () => {
    // Arrange
    const source = new CountingSource();
    const provider = new LocalTextProvider(source, undefined, { prefetch: true });
    source.fail = true;
    provider.prefetch(aRequest());
    await Promise.resolve();
    source.fail = false;
    // Act
    const result = await provider.parsePage(aRequest());
    // Assert
    expect(source.layouts).toHaveLength(2);
    expect(result.markdown).toBe('layout 2');
  });

  it('starts at most 64 pages ahead, and one more each time a page is taken', async () => {
    // Arrange
    const source = new CountingSource();
    const provider = new LocalTextProvider(source, undefined, { prefetch: true });
    // Act
    for (let n = 1; n <= 80; n++) provider.prefetch(aRequest({ pageNumber: n }));
    // Assert
    expect(source.layouts.map((l) => l.pageNumber)).toEqual(
      Array.from({ length: 64 }, (_, i) => i + 1),
    );
    await provider.parsePage(aRequest({ pageNumber: 1 }));
    await provider.parsePage(aRequest({ pageNumber: 2 }));
    expect(source.layouts.map((l) => l.pageNumber).slice(64)).toEqual([65, 66]);
  });

  it('lays out once a page asked for before its turn, and drops its hint', async () => {
    // Arrange
    const source = new CountingSource();
    const provider = new LocalTextProvider(source, undefined, { prefetch: true });
    for (let n = 1; n <= 70; n++) provider.prefetch(aRequest({ pageNumber: n }));
    // Act
    await provider.parsePage(aRequest({ pageNumber: 66 }));
    for (let n = 1; n <= 70; n++)
      if (n !== 66) await provider.parsePage(aRequest({ pageNumber: n }));
    // Assert: page 66 laid out once, when asked for, and every page once in all.
    const laidOut = source.layouts.map((l) => l.pageNumber);
    expect(laidOut.filter((n) => n === 66)).toHaveLength(1);
    expect(laidOut.slice(64, 66)).toEqual([66, 65]);
    expect([...laidOut].sort((a, b) => a - b)).toEqual(Array.from({ length: 70 }, (_, i) => i + 1));
  });

  it('drops pages laid out ahead and hints never asked for within a minute', async () => {
    // Arrange
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const source = new CountingSource();
      const provider = new LocalTextProvider(source, undefined, { prefetch: true });
      for (let n = 1; n <= 65; n++) provider.prefetch(aRequest({ pageNumber: n }));
      vi.setSystemTime(Date.now() + 61_000);
      // Act
      const result = await provider.parsePage(aRequest({ pageNumber: 1 }));
      // Assert: laid out afresh, and the stale hint of page 65 was not started.
      expect(result.markdown).toBe('layout 65');
      expect(source.layouts.map((l) => l.pageNumber).slice(64)).toEqual([1]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('starts no waiting hint of a document whose pages are no longer asked for', async () => {
    // Arrange: a request's 64 pages fill the window; another request (since cancelled) hints at
    // two pages, then the first at six more.
    const source = new CountingSource();
    const provider = new LocalTextProvider(source, undefined, { prefetch: true });
    const cancelled = { key: 'uploads/b.pdf', hash: 'sha256-b', format: 'pdf' as const };
    for (let n = 1; n <= 64; n++) provider.prefetch(aRequest({ pageNumber: n }));
    provider.prefetch(aRequest({ document: cancelled, pageNumber: 1 }));
    provider.prefetch(aRequest({ document: cancelled, pageNumber: 2 }));
    for (let n = 65; n <= 70; n++) provider.prefetch(aRequest({ pageNumber: n }));
    // Act
    await provider.parsePage(aRequest({ pageNumber: 1 }));
    await provider.parsePage(aRequest({ pageNumber: 2 }));
    // Assert: the first request's next pages start, not the older hints of the other.
    expect(source.documents.slice(64)).toEqual(['uploads/a.pdf', 'uploads/a.pdf']);
    expect(source.layouts.slice(64).map((l) => l.pageNumber)).toEqual([65, 66]);
  });
});
