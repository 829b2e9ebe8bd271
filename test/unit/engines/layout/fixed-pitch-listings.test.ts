import { describe, expect, it } from 'vitest';
import { fixedPitchFonts } from '../../../../functions/engines/layout/fixed-pitch.js';
import type { Segment, TextRun } from '../../../../functions/engines/layout/types.js';
import { markdownOf, paragraph, run } from './page-fixtures.js';

const h = (y: number, x1: number, x2: number): Segment => ({ x1, y1: y, x2, y2: y });

/** A run in a listing font without the fixed-pitch flag: 6 px per character, 10 px size. */
const code = (text: string, x: number, baseline: number): TextRun =>
  run(text, x, baseline, { fontName: 'ListingGothic', w: text.trimEnd().length * 6 });

/** A run in a proportional font: its width follows its letters. */
const prose = (text: string, x: number, baseline: number): TextRun => {
  const narrow = (text.match(/[iljtfr.,' ]/g) ?? []).length;
  return run(text, x, baseline, { fontName: 'Serif', w: text.length * 5.5 - narrow * 2.5 });
};

describe('listings set in a font without the fixed-pitch flag', () => {
  it('reads a listing between two rules as code, not as a table of keywords and operands', () => {
    // Arrange: Example 2-1, a query between a top and a bottom rule, keywords lined up.
    const runs = [
      ...paragraph(72, 80, 6),
      run('Example 2-1 Query to list who may define rules', 72, 190, { italic: true }),
      code('SELECT', 72, 215),
      code('function_id,', 150, 215),
      code('user_name,', 150, 229),
      code('usage', 150, 243),
      code('FROM', 72, 257),
      code('function_usage', 150, 257),
      code('WHERE', 72, 271),
      code("function_id='SECADM'", 150, 271),
      code('ORDER BY', 72, 285),
      code('user_name;', 150, 285),
      ...paragraph(72, 320, 3),
    ];
    const rules = [h(200, 72, 540), h(292, 72, 540)];
    // Act
    const markdown = markdownOf(runs, { rules });
    // Assert
    expect(markdown).not.toContain('|');
    expect(markdown).toContain('```\nSELECT       function_id,\n             user_name,');
    expect(markdown).toContain('ORDER BY     user_name;\n```');
  });

  it('finds the fonts whose runs all have one advance per character, not the proportional ones', () => {
    // Arrange
    const runs = [
      code('RETURN', 72, 100),
      code('CASE', 72, 114),
      code('ELSE NULL', 72, 128),
      code('WHEN VERIFY_GROUP_FOR_USER ( SESSION_USER )', 72, 142),
      prose('Table', 72, 160),
      prose('illustrates', 72, 174),
      prose('MMWW summary', 72, 188),
      prose('the rules that are enforced', 72, 202),
    ];
    // Act
    const fonts = fixedPitchFonts(runs);
    // Assert
    expect([...fonts]).toEqual(['ListingGothic']);
  });

  it('never takes the body font for a listing font', () => {
    // Arrange: the same fixed-pitch runs, their font the document's body font.
    const runs = [code('RETURN', 72, 100), code('CASE', 72, 114), code('ELSE NULL', 72, 128)];
    // Act
    const fonts = fixedPitchFonts(runs, 'ListingGothic');
    // Assert
    expect(fonts.size).toBe(0);
  });
});
