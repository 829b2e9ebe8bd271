import { describe, expect, it } from 'vitest';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { PageText, TextRun } from '../../../../functions/engines/layout/types.js';
import { ocrLine, scanPage } from './ocr-page-fixtures.js';

const layout = (p: PageText) => layoutPage(p, buildLayoutProfile([p]));

/** Right edge of a line of runs. */
const endOf = (runs: readonly TextRun[]): number => Math.max(...runs.map((r) => r.x + r.w));

describe('layoutPage on a scanned form with boxes set close together', () => {
  it('reads the boxes one after the other when a rule stands in the narrow gutter', () => {
    // Arrange: the labels of check boxes beside a box of prose, 10 px apart (less than an em),
    // a vertical rule between them; the lines of both share baselines.
    const left = ['Freight Counted', 'By Shipper', 'By Driver/pallets said to contain'];
    const right = [
      'Carrier acknowledges receipt of packages and',
      'required placards and certifies that emergency',
      'response information was made available to',
    ];
    const leftRuns = left.map((text, i) => ocrLine(text, 100, 400 + 24 * i));
    const gutter = Math.max(...leftRuns.map(endOf));
    const rightRuns = right.map((text, i) => ocrLine(text, gutter + 10, 400 + 24 * i));
    const page: PageText = {
      ...scanPage([...leftRuns.flat(), ...rightRuns.flat()]),
      rules: [{ x1: gutter + 5, y1: 360, x2: gutter + 5, y2: 470 }],
    };
    // Act
    const { markdown } = layout(page);
    // Assert: each box's lines together, the left box first.
    const labels = markdown.indexOf('By Driver/pallets said to contain');
    const prose = markdown.indexOf('Carrier acknowledges receipt');
    expect(labels).toBeGreaterThan(-1);
    expect(prose).toBeGreaterThan(labels);
    expect(markdown).not.toMatch(/Counted Carrier|Shipper required|contain response/);
  });
});
