import { describe, expect, it } from 'vitest';
import type { Segment } from '../../../../functions/engines/layout/types.js';
import { markdownOf, run } from './page-fixtures.js';

const h = (y: number, x1: number, x2: number): Segment => ({ x1, y1: y, x2, y2: y });
const v = (x: number, y1: number, y2: number): Segment => ({ x1: x, y1, x2: x, y2 });

const sentence = 'This publication helps you understand the capabilities of the feature';

describe('boxes around running text', () => {
  it('reads a panel of paragraphs beside a ruled sidebar as text, not as a table', () => {
    // Arrange: a frame split at x=330 into a wide panel of prose and a narrow sidebar, over
    // two rows.
    const rules = [
      h(80, 50, 500),
      h(200, 50, 500),
      h(300, 50, 500),
      v(50, 80, 300),
      v(330, 80, 300),
      v(500, 80, 300),
    ];
    const prose = Array.from({ length: 8 }, (_, i) =>
      run(`${sentence} ${i}.`, 60, 96 + i * 12, { w: 260 }),
    );
    const runs = [
      ...prose,
      run('INTERNATIONAL ORGANIZATION', 340, 96),
      run('For more information:', 340, 216),
      run('ibm.com/redbooks', 340, 228),
    ];
    // Act
    const markdown = markdownOf(runs, { rules });
    // Assert
    expect(markdown).not.toMatch(/<table>|^\|/m);
    expect(markdown).toContain(`${sentence} 0. ${sentence} 1.`);
  });

  it('still reads a ruled table with a description column as a table', () => {
    // Arrange
    const rules = [
      h(80, 50, 500),
      h(100, 50, 500),
      h(120, 50, 500),
      h(140, 50, 500),
      v(50, 80, 140),
      v(150, 80, 140),
      v(500, 80, 140),
    ];
    const runs = [
      run('Name', 60, 94),
      run('Description', 160, 94),
      run('USER', 60, 114),
      run('The user profile that is running the job', 160, 114),
      run('SYSTEM', 60, 134),
      run('The name of the system the job runs on', 160, 134),
    ];
    // Act
    const markdown = markdownOf(runs, { rules });
    // Assert
    expect(markdown).toContain('| USER | The user profile that is running the job |');
  });
});
