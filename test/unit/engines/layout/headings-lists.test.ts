import { describe, expect, it } from 'vitest';
import { layoutPage } from '../../../../functions/engines/layout/layout-page.js';
import { buildLayoutProfile } from '../../../../functions/engines/layout/profile.js';
import type { PageText } from '../../../../functions/engines/layout/types.js';
import { page, paragraph, run } from './page-fixtures.js';

const layout = (p: PageText) => layoutPage(p, buildLayoutProfile([p])).markdown;

describe('lists', () => {
  it('joins a bullet set on a baseline of its own to the text beside it', () => {
    // Arrange: a symbol-font bullet raised 4 px over its text's baseline.
    const runs = [
      run('Before shipping, check each of the following items carefully today:', 50, 100),
      run('•', 60, 118, { fontName: 'Symbol' }),
      run('Verify the pallet labels', 78, 114),
      run('Then the shipment may leave the dock as planned by the team.', 50, 132),
    ];
    // Act
    const markdown = layout(page(runs));
    // Assert
    expect(markdown).toContain('\n\n- Verify the pallet labels\n\n');
    expect(markdown).not.toMatch(/^-$/m);
  });

  it('reads bullets standing apart from their text as list items, not as a table', () => {
    // Arrange
    const runs = [
      run('Before shipping, check each of the following items carefully today:', 50, 100),
      run('•', 60, 114, { fontName: 'Symbol' }),
      run('Verify the pallet labels', 78, 114),
      run('•', 60, 128, { fontName: 'Symbol' }),
      run('Count the boxes on every pallet', 78, 128),
      run('•', 60, 142, { fontName: 'Symbol' }),
      run('Sign the delivery note', 78, 142),
    ];
    // Act
    const markdown = layout(page(runs));
    // Assert
    expect(markdown).not.toContain('|');
    expect(markdown).toContain(
      '- Verify the pallet labels\n\n- Count the boxes on every pallet\n\n- Sign the delivery note',
    );
  });

  it('nests list items by the indent of their markers', () => {
    // Arrange
    const runs = [
      run('1. Prepare the shipment', 50, 100),
      run('a) weigh every box', 70, 112),
      run('◦ write the weight on the label', 90, 124),
      run('2. Load the truck', 50, 136),
    ];
    // Act
    const markdown = layout(page(runs));
    // Assert
    expect(markdown).toBe(
      '1. Prepare the shipment\n\n   - a) weigh every box\n\n     - write the weight on the label\n\n2. Load the truck',
    );
  });
});

describe('headings', () => {
  it('makes numbered section titles in capitals headings with levels from the numbering', () => {
    // Arrange: IEEE style, body size, not bold; paragraphs indented on their first line.
    const runs = [
      run('I. INTRODUCTION', 120, 100),
      ...paragraph(60, 116, 3),
      run('A. Prior Work', 60, 160, { italic: true }),
      ...paragraph(60, 176, 3),
      run('II. MATERIALS', 120, 220),
      ...paragraph(60, 236, 3),
    ];
    // Act
    const markdown = layout(page(runs));
    // Assert
    expect(markdown).toContain('## I. INTRODUCTION\n\nLine 0');
    expect(markdown).toContain('## II. MATERIALS\n\nLine 0');
    expect(markdown).not.toContain('- I.');
  });

  it('joins a section number set apart from its title and levels it by its depth', () => {
    // Arrange: `2.1` on a baseline of its own, beside its bold title; `3` far left of its title.
    const bold = { bold: true, fontSize: 12, fontName: 'Bold' };
    const runs = [
      run('2.1', 50, 102, bold),
      run('Setup Details', 90, 100, bold),
      ...paragraph(50, 118, 3),
      run('3', 50, 170, bold),
      run('Results', 90, 170, bold),
      ...paragraph(50, 188, 3),
    ];
    // Act
    const markdown = layout(page(runs));
    // Assert
    expect(markdown).toContain('### 2.1 Setup Details\n\nLine 0');
    expect(markdown).toContain('## 3 Results\n\nLine 0');
  });

  it('makes a larger parenthesised section title in another font a heading of its own', () => {
    // Arrange: `(1) …` set 1 pt over the body in a medium weight, then body text.
    const runs = [
      run('(1) Revision of the Infectious Disease Act', 50, 100, {
        fontSize: 11,
        fontName: 'Medium',
      }),
      ...paragraph(50, 114, 4),
    ];
    // Act
    const markdown = layout(page(runs));
    // Assert
    expect(markdown).toMatch(/^#+ \(1\) Revision of the Infectious Disease Act\n\nLine 0/);
  });

  it('reads a title block: one heading for a centred two-line title, byline lines plain', () => {
    // Arrange
    const title = { fontSize: 18, fontName: 'Title' };
    const runs = [
      run('Bayesian optimisation for fast approximate inference in', 60, 100, title),
      run('state-space models with intractable likelihoods', 90, 122, title),
      run('Johan Dahlin, Mattias Villani and Thomas B. Schön', 150, 150, { fontSize: 12 }),
      run('June 14, 2017', 250, 170, { fontSize: 12 }),
      run('1 Introduction', 50, 210, { fontSize: 14, bold: true }),
      ...paragraph(50, 230, 6),
    ];
    // Act
    const markdown = layout(page(runs));
    // Assert
    expect(markdown).toMatch(
      /^# Bayesian optimisation for fast approximate inference in state-space models with intractable likelihoods\n\nJohan Dahlin, Mattias Villani and Thomas B\. Schön\n\nJune 14, 2017\n\n## 1 Introduction\n/,
    );
  });

  it('makes the title a heading even as a question, and the running label over it plain', () => {
    // Arrange
    const runs = [
      run('INDUSTRY WATCH', 60, 100, { fontSize: 13 }),
      run('Corporate social responsibility and the tobacco industry:', 60, 130, { fontSize: 19 }),
      run('hope or hype?', 60, 151, { fontSize: 19 }),
      run('N Hirschhorn', 60, 175, { fontSize: 11 }),
      ...paragraph(60, 200, 8),
    ];
    // Act
    const markdown = layout(page(runs));
    // Assert
    expect(markdown).toMatch(
      /^INDUSTRY WATCH\n\n# Corporate social responsibility and the tobacco industry: hope or hype\?\n\nN Hirschhorn\n\n/,
    );
  });

  it('sets a small chapter label apart from the chapter title beside it', () => {
    // Arrange
    const runs = [
      run('Chapter 1.', 20, 100, { fontSize: 7, bold: true }),
      run('Securing and protecting data', 60, 100, { fontSize: 26, bold: true }),
      ...paragraph(60, 140, 6),
    ];
    // Act
    const markdown = layout(page(runs));
    // Assert
    expect(markdown).toMatch(/^Chapter 1\.\n\n#+ Securing and protecting data\n\nLine 0/);
  });
});
