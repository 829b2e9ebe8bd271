import { describe, expect, it } from 'vitest';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { PageText, Segment, TextRun } from '../../../../functions/engines/layout/types.js';
import { run } from './page-fixtures.js';

/** A grid with rules on every side, one rule under the header and none between body records. */
const rules: Segment[] = [
  { x1: 50, y1: 100, x2: 350, y2: 100 },
  { x1: 50, y1: 120, x2: 350, y2: 120 },
  { x1: 50, y1: 180, x2: 350, y2: 180 },
  { x1: 50, y1: 100, x2: 50, y2: 180 },
  { x1: 200, y1: 100, x2: 200, y2: 180 },
  { x1: 350, y1: 100, x2: 350, y2: 180 },
];

const page = (runs: TextRun[]): PageText => ({
  pageNumber: 1,
  width: 612,
  height: 792,
  dpi: 72,
  runs: [run('Text above the table.', 50, 60), ...runs],
  rules,
  images: [],
});

const markdownOf = (p: PageText) => layoutPage(p, buildLayoutProfile([p])).markdown;

describe('ruled tables without rules between records', () => {
  it('splits a grid row into one table row per record when every column has every line', () => {
    // Arrange
    const p = page([
      run('Model', 60, 113),
      run('Score', 210, 113),
      ...[
        ['Alpha', '1.0', 135],
        ['Beta', '2.0', 150],
        ['Gamma', '3.0', 165],
      ].flatMap(([name, score, y]) => [
        run(String(name), 60, Number(y)),
        run(String(score), 210, Number(y)),
      ]),
    ]);
    // Act
    const markdown = markdownOf(p);
    // Assert
    expect(markdown).toMatch(/\|\s*Alpha\s*\|\s*1\.0\s*\|/);
    expect(markdown).toMatch(/\|\s*Beta\s*\|\s*2\.0\s*\|/);
    expect(markdown).toMatch(/\|\s*Gamma\s*\|\s*3\.0\s*\|/);
  });

  it('keeps a wrapped cell in one row when the other columns have a single line', () => {
    // Arrange
    const p = page([
      run('Model', 60, 113),
      run('Notes', 210, 113),
      run('Alpha', 60, 135),
      run('first half of a long note', 210, 135),
      run('second half of the note', 210, 150),
    ]);
    // Act
    const markdown = markdownOf(p);
    // Assert
    expect(markdown).toMatch(
      /\|\s*Alpha\s*\|\s*first half of a long note second half of the note\s*\|/,
    );
  });
});
