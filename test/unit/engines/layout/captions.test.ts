import { describe, expect, it } from 'vitest';
import { analyzePage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import { page, paragraph, run } from './page-fixtures.js';

describe('captions', () => {
  it('reads a caption opening as a caption and a sentence citing a table as a paragraph', () => {
    // Arrange
    const p = page([
      ...paragraph(50, 100, 3),
      run('Table 1 presents the accuracy of each model on the test set.', 50, 160),
      ...paragraph(50, 200, 3),
      run('Table 2: Accuracy by model', 50, 260),
      ...paragraph(50, 300, 3),
      run('Figure 3-11 Selecting the table', 50, 360),
      ...paragraph(50, 400, 3),
      run('Fig. 4 shows the same for the validation set.', 50, 460),
    ]);
    // Act
    const { captions } = analyzePage(p, buildLayoutProfile([p]));
    // Assert
    expect(captions.map((c) => c.text)).toEqual([
      'Table 2: Accuracy by model',
      'Figure 3-11 Selecting the table',
    ]);
  });
});
