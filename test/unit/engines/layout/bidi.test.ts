import { describe, expect, it } from 'vitest';
import {
  directionOf,
  logicalRuns,
  logicalToVisual,
  visualToLogical,
} from '../../../../functions/engines/layout/bidi.js';
import { buildRows, rowText } from '../../../../functions/engines/layout/lines.js';
import type { TextRun } from '../../../../functions/engines/layout/types.js';

/** A run at x (5 px per character, 10 px font) on baseline 100. */
const run = (text: string, x: number, extra: Partial<TextRun> = {}): TextRun => ({
  text,
  x,
  y: 92,
  w: text.length * 5,
  h: 10,
  baseline: 100,
  fontSize: 10,
  fontName: 'Body',
  bold: false,
  italic: false,
  monospace: false,
  ...extra,
});

describe('visualToLogical', () => {
  it('reverses right-to-left text and keeps left-to-right words and numbers in order', () => {
    // Arrange
    const logical = 'تحسين الإنتاجية بلغة R و Python عام 2023 (نص).';
    // Act
    const visual = logicalToVisual(logical, 'rtl');
    // Assert
    expect(visual).not.toBe(logical);
    expect(visualToLogical(visual, 'rtl')).toBe(logical);
  });

  it('separates a right-to-left word from a Latin word drawn against it', () => {
    // Act / Assert
    expect(visualToLogical('نم Python', 'rtl')).toBe('Python من');
  });

  it('leaves text without right-to-left letters as it is', () => {
    // Act / Assert
    expect(visualToLogical('a (b) c', 'rtl')).toBe('a (b) c');
    expect(directionOf('Hello world')).toBe('ltr');
    expect(directionOf('ملاعلا Hi')).toBe('rtl');
  });
});

describe('logicalRuns', () => {
  it('orders the pieces of a mixed line logically, keeping each piece’s style', () => {
    // Arrange: visual "Python و R ةغلب" with R in bold.
    const runs = [run('Python', 0), run('و', 35), run('R', 45, { bold: true }), run('ةغلب', 55)];
    // Act
    const pieces = logicalRuns(runs, 0.18, 'rtl');
    // Assert
    expect(pieces.map((p) => p.text).join('')).toBe('بلغة R و Python');
    expect(pieces.find((p) => p.text.includes('R'))?.bold).toBe(true);
    expect(
      pieces.every((p, i) => i === 0 || p.x === (pieces[i - 1]?.x ?? 0) + (pieces[i - 1]?.w ?? 0)),
    ).toBe(true);
  });
});

describe('buildRows on right-to-left text', () => {
  it('reads a short mixed line right to left when the page is mostly right to left', () => {
    // Arrange: a long Arabic line, and a line holding only "R و Python" (visual).
    const runs = [
      run('ةيلاثم اهلعجت ةديرف تازيم', 0, { baseline: 80, y: 72 }),
      run('Python', 0),
      run('و', 35),
      run('R', 45),
    ];
    // Act
    const rows = buildRows(runs);
    // Assert
    expect(rows.map(rowText)).toEqual(['ميزات فريدة تجعلها مثالية', 'R و Python']);
  });
});
