import { describe, expect, it } from 'vitest';
import { GRADE_THRESHOLDS } from '../../../../functions/core/domain/confidence.js';
import {
  holdsSeveralValues,
  markdownLayoutSignals,
  markdownTables,
  recognitionScore,
  scorePage,
  tableScore,
  tableSignals,
  verbatimParts,
} from '../../../../functions/core/domain/page-scores.js';
import type { ProviderPageResult } from '../../../../functions/core/ports/page-provider.js';

const PARAGRAPHS = [
  'Revenue grew in every region this year, led by the northern stores and the new online shop.',
  'Operating costs fell slightly because the warehouse leases were renegotiated in the spring.',
  'The board approved a dividend of forty cents per share, payable at the end of the quarter.',
  'Staff turnover stayed low; most departures were retirements announced well in advance.',
  'Capital spending focused on refrigeration, lighting and the replacement of delivery vans.',
  'The outlook for next year is cautious, as interest rates and energy prices remain high.',
];
/** The page's text layer: a running header, the paragraphs wrapped into lines, the page number. */
const EVIDENCE = [
  'ACME Annual Report 2024',
  ...PARAGRAPHS.map((p) => p.replace(/, /g, ',\n').replace('because the', 'be-\ncause the')),
  '7',
].join('\n');
const FURNITURE = ['ACME Annual Report 2024', '7'];
const md = (paragraphs: readonly string[]) => paragraphs.join('\n\n');

describe('verbatimParts', () => {
  it('is 1 when the Markdown holds the text layer in order, furniture and hyphenation aside', () => {
    // Act
    const parts = verbatimParts(
      `# Report\n\n${md(PARAGRAPHS)}`.replace('# Report\n\n', ''),
      EVIDENCE,
      FURNITURE,
    );
    // Assert
    expect(parts).toEqual({ coverage: 1, excess: 0, order: 1, score: 1 });
  });

  it('goes down by about the share of text dropped', () => {
    // Act
    const parts = verbatimParts(md(PARAGRAPHS.filter((_, i) => i !== 2)), EVIDENCE, FURNITURE);
    // Assert
    expect(parts.coverage).toBeLessThan(0.87);
    expect(parts.score).toBeLessThan(0.87);
    // Only the grams across the new junction are not in the evidence.
    expect(parts.excess).toBeLessThan(0.02);
  });

  it('goes down when a paragraph is duplicated', () => {
    // Act
    const parts = verbatimParts(md([...PARAGRAPHS, PARAGRAPHS[1] ?? '']), EVIDENCE, FURNITURE);
    // Assert
    expect(parts.coverage).toBe(1);
    expect(parts.excess).toBeGreaterThan(0.1);
    expect(parts.score).toBeLessThan(0.9);
  });

  it('goes down when paragraphs are reordered', () => {
    // Act
    const [a, b, c, d, e, f] = PARAGRAPHS;
    const parts = verbatimParts(md([d, e, f, a, b, c] as string[]), EVIDENCE, FURNITURE);
    // Assert
    expect(parts.coverage).toBeGreaterThan(0.99);
    expect(parts.order).toBeLessThan(0.6);
    expect(parts.score).toBeLessThan(0.6);
  });

  it('counts furniture in the body as dropped text when it is not given as furniture', () => {
    // Act
    const parts = verbatimParts(md(PARAGRAPHS), EVIDENCE);
    // Assert
    expect(parts.coverage).toBeLessThan(1);
  });

  it('reads a right-to-left text layer stored in visual order as the logical Markdown', () => {
    // Arrange
    const logical = 'تعتبر البرمجة بلغة بايثون من الأدوات القوية التي تعزز الإنتاجية';
    const visual = logical
      .split(' ')
      .map((w) => Array.from(w).reverse().join(''))
      .join(' ');
    // Act
    const score = verbatimParts(logical, visual).score;
    // Assert
    expect(score).toBeGreaterThan(0.95);
  });

  it('reads the lam-alef ligature in either order', () => {
    // Act
    const score = verbatimParts('الإنتاجية وحل المشكلات', 'اإلنتاجية وحل المشكالت').score;
    // Assert
    expect(score).toBe(1);
  });

  it('compares texts shorter than a gram for equality', () => {
    // Act / Assert
    expect(verbatimParts('4', '4').score).toBe(1);
    expect(verbatimParts('', 'Some text').score).toBe(0);
  });

  it('scores a 20,000-character page in well under a second', () => {
    // Arrange
    const long = Array.from({ length: 260 }, (_, i) => `${PARAGRAPHS[i % 6] ?? ''} (${String(i)})`);
    // Act
    const started = performance.now();
    const parts = verbatimParts(md(long), long.join('\n'));
    // Assert
    expect(performance.now() - started).toBeLessThan(500);
    expect(parts.score).toBe(1);
  });
});

const SOUND = [
  '| Region | 2023 | 2024 |',
  '| --- | --- | --- |',
  '| North | 1,136 | 1,892 |',
  '| South | 876 | 680 |',
].join('\n');
const SOUND_EVIDENCE = 'Region 2023 2024\nNorth 1,136 1,892\nSouth 876 680';

describe('tableScore', () => {
  it('is null without tables and 1 for a sound table that holds every number', () => {
    // Act / Assert
    expect(tableScore('just a paragraph', 'just a paragraph')).toBeNull();
    expect(tableScore(SOUND, SOUND_EVIDENCE)).toBe(1);
  });

  it('goes down when a table is split in two', () => {
    // Arrange
    const split = [
      '| Region | 2023 | 2024 |',
      '| --- | --- | --- |',
      '',
      '| North | 1,136 | 1,892 |',
      '| --- | --- | --- |',
      '| South | 876 | 680 |',
    ].join('\n');
    // Act
    const signals = tableSignals(split, SOUND_EVIDENCE);
    // Assert
    expect(signals.map((s) => s.adjacent)).toEqual([1, 1]);
    expect(tableScore(split, SOUND_EVIDENCE)).toBeLessThan(0.85);
  });

  it('goes down when two rows are merged into one row of two-value cells', () => {
    // Arrange
    const merged = [
      '| Region | 2023 | 2024 |',
      '| --- | --- | --- |',
      '| North South | 1,136 876 | 1,892 680 |',
    ].join('\n');
    // Act
    const score = tableScore(merged, SOUND_EVIDENCE);
    // Assert
    expect(score).toBeLessThan(0.5);
  });

  it('does not count records stacked in a row, each value on its own line, as merged', () => {
    // Arrange: each cell holds the values of two records, one per line, in GFM and in HTML.
    const stacked = [
      '| Region | 2023 | 2024 |',
      '| --- | --- | --- |',
      '| North<br>South | 1,136<br>876 | 1,892<br>680 |',
    ].join('\n');
    const html = [
      '<table>',
      '<tr><th>Region</th><th colspan="2">Years</th></tr>',
      '<tr><td>North<br>South</td><td>1,136<br/>876</td><td>1,892<br>680</td></tr>',
      '</table>',
    ].join('\n');
    // Act
    const signals = [...tableSignals(stacked, SOUND_EVIDENCE), ...tableSignals(html, null)];
    // Assert
    expect(signals.map((s) => s.merged)).toEqual([0, 0]);
    expect(tableScore(stacked, SOUND_EVIDENCE)).toBe(1);
  });

  it('goes down by the share of the region numbers missing from the cells', () => {
    // Arrange
    const dropped = SOUND.replace('| 876 |', '|  |');
    // Act
    const withRegion = tableScore(dropped, SOUND_EVIDENCE, { regions: [SOUND_EVIDENCE] });
    const pageWide = tableScore(dropped, `${SOUND_EVIDENCE}\n12`, { furniture: ['12'] });
    // Assert
    expect(withRegion).toBeLessThan(0.85);
    expect(pageWide).toBeLessThan(0.85);
    expect(tableScore(SOUND, `${SOUND_EVIDENCE}\n12`, { furniture: ['12'] })).toBe(1);
  });

  it('ignores regions that do not pair with the tables', () => {
    // Act
    const score = tableScore(SOUND, SOUND_EVIDENCE, { regions: ['1 2 3', '4 5 6'] });
    // Assert
    expect(score).toBe(1);
  });

  it('goes down for numbers of the cells that the evidence lacks', () => {
    // Act
    const score = tableScore(SOUND.replace('680', '690'), SOUND_EVIDENCE);
    // Assert
    expect(score).toBeLessThan(0.9);
  });

  it('goes down for ragged rows, a header of body values, prose cells and many empty cells', () => {
    // Arrange
    const ragged = `${SOUND}\n| West | 12 |`;
    const valueHeader = SOUND.replace('| Region | 2023 | 2024 |', '| North | $1,136 | $1,892 |');
    const emptyHeader = SOUND.replace('| Region | 2023 | 2024 |', '|  |  |  |');
    // A line of body text beside the table taken in as a row.
    const prose = SOUND.replace(
      '| South | 876 | 680 |',
      '| Revenue grew in every region this year, led by | the northern stores and the new online shop | while operating costs fell slightly this spring |',
    );
    const empty = SOUND.replace('| 876 | 680 |', '|  |  |').replace('| 1,136 |', '|  |');
    // Act / Assert
    for (const broken of [ragged, valueHeader, emptyHeader, prose, empty]) {
      expect(tableScore(broken, null)).toBeLessThan(0.9);
    }
  });

  it('reads HTML tables with their spans, so spanned rows are not ragged', () => {
    // Arrange
    const html = [
      '<table>',
      '<tr><th rowspan="2">Region</th><th colspan="2">Sales</th></tr>',
      '<tr><th>2023</th><th>2024</th></tr>',
      '<tr><td>North &amp; East</td><td>1,136</td><td>1,892</td></tr>',
      '<tr><td>South<br/>coast</td><td>876</td><td>680</td></tr>',
      '</table>',
    ].join('\n');
    // Act
    const [table] = markdownTables(`Intro\n\n${html}\n\nAfter`);
    const [signals] = tableSignals(html, SOUND_EVIDENCE.replace('Region', 'Region Sales'));
    // Assert
    expect(table?.rows[2]?.[0]?.text).toBe('North & East');
    expect(table?.rows[3]?.[0]?.text).toBe('South coast');
    expect(signals).toMatchObject({ ragged: 0, header: 0, merged: 0, missing: 0 });
  });

  it('lowers the header confidence of a lone title over the columns', () => {
    // Arrange
    const titled = [
      '<table>',
      '<tr><th colspan="3">Composition of the mix</th></tr>',
      '<tr><td>North</td><td>1,136</td><td>1,892</td></tr>',
      '</table>',
    ].join('\n');
    // Act
    const [signals] = tableSignals(titled, null);
    // Assert
    expect(signals?.header).toBe(0.5);
  });
});

describe('holdsSeveralValues', () => {
  it.each([
    ['0.965 0.969', true],
    ['3.71T 3.32T', true],
    ['11.68±2.66s 23.23±8.42s', true],
    ['Jan 26, 2025 Jan 28, 2024', true],
    ['1,136', false],
    ['1 000', false],
    ['30, 30, 15 (m)', false],
    ['Merged Cell 1.1 1.2', false],
    ['OTSL HTML', false],
  ] as const)('%s: %s', (text, several) => {
    // Act / Assert
    expect(holdsSeveralValues(text)).toBe(several);
  });
});

describe('recognitionScore', () => {
  const words = (n: number, confidence: number, text = 'word') =>
    Array.from({ length: n }, () => ({ text, confidence }));

  it('is the character-weighted mean confidence when no word is doubtful', () => {
    // Act
    const score = recognitionScore([...words(9, 0.95), { text: 'ab', confidence: 0.75 }]);
    // Assert
    expect(score).toBeCloseTo((36 * 0.95 + 2 * 0.75) / 38, 6);
  });

  it('cannot grade good a page with many low-confidence words', () => {
    // Arrange: the mean stays high, but one word in six is under 0.6.
    const page = [...words(50, 0.97), ...words(10, 0.55)];
    // Act
    const score = recognitionScore(page) ?? 1;
    // Assert
    expect(score).toBeLessThan(GRADE_THRESHOLDS.good);
  });

  it('weighs low-confidence values (numbers, dates) more than words', () => {
    // Act
    const lowWords = recognitionScore([...words(40, 0.97), ...words(4, 0.5, 'word')]) ?? 1;
    const lowValues =
      recognitionScore([
        ...words(40, 0.97),
        ...words(4, 0.97, '12.50'),
        ...words(4, 0.5, '2024'),
      ]) ?? 1;
    // Assert
    expect(lowValues).toBeLessThan(lowWords);
  });

  it('is null without words', () => {
    // Act / Assert
    expect(recognitionScore([])).toBeNull();
  });
});

describe('markdownLayoutSignals', () => {
  it('counts lone fragments and formulas set as prose among the paragraphs', () => {
    // Arrange
    const markdown = [
      '# 3.4 Exercises',
      'The position of a particle is given below.',
      '3 2',
      's(t) = 2t − 3t − 12t + 8',
      '| a | b |\n| --- | --- |\n| 1 | 2 |',
    ].join('\n\n');
    // Act
    const signals = markdownLayoutSignals(markdown);
    // Assert
    expect(signals).toEqual({ fragments: 1 / 3, mathAsText: 1 / 3 });
    expect(markdownLayoutSignals('# Only a heading')).toEqual({ fragments: 0, mathAsText: 0 });
  });

  it('does not count prose, words of any length or math in delimiters', () => {
    // Act
    const signals = markdownLayoutSignals(
      'Image test\n\nThe mass is $m = 2$ kg.\n\n![](#figure-1)',
    );
    // Assert
    expect(signals).toEqual({ fragments: 0, mathAsText: 0 });
  });
});

const result = (overrides: Partial<ProviderPageResult> = {}): ProviderPageResult => ({
  markdown: md(PARAGRAPHS),
  elements: [
    {
      text: FURNITURE[0] ?? '',
      bbox: { x: 0, y: 0, w: 10, h: 10 },
      label: 'header',
      elementType: 'header',
      confidence: 1,
    },
    {
      text: FURNITURE[1] ?? '',
      bbox: { x: 0, y: 90, w: 10, h: 10 },
      label: 'footer',
      elementType: 'page_number',
      confidence: 1,
    },
  ],
  dpi: 144,
  width: 100,
  height: 100,
  model: 'm',
  tokens: { input: 0, output: 0 },
  ocrScore: null,
  layoutScore: 0.9,
  evidenceText: EVIDENCE,
  ...overrides,
});

describe('scorePage', () => {
  it('grades a faithful text-layer page excellent', () => {
    // Act
    const report = scorePage(result(), EVIDENCE, { garbageRatio: 0, invisibleCharRatio: 0 });
    // Assert
    expect(report).toEqual({
      layout_score: 0.9,
      ocr_score: 1,
      verbatim_score: 1,
      table_score: null,
      mean_grade: 'excellent',
      low_grade: 'excellent',
    });
  });

  it('lowers verbatim_score for dropped, duplicated and reordered text', () => {
    // Arrange
    const [a, b, c, d, e, f] = PARAGRAPHS as [string, string, string, string, string, string];
    const outputs = [md([a, b, d, e, f]), md([a, b, c, c, d, e, f]), md([d, e, f, a, b, c])];
    // Act
    const scores = outputs.map(
      (markdown) => scorePage(result({ markdown }), EVIDENCE).verbatim_score,
    );
    // Assert
    for (const score of scores) expect(score).toBeLessThan(0.9);
  });

  it('trusts an invisible text layer less and counts garbage glyphs against it', () => {
    // Act
    const report = scorePage(result(), EVIDENCE, { garbageRatio: 0.1, invisibleCharRatio: 1 });
    // Assert
    expect(report.ocr_score).toBe(0.72);
  });

  it('scores OCR words when the provider gives them, and uses them as verbatim without evidence', () => {
    // Arrange
    const words = [
      ...Array.from({ length: 50 }, () => ({ text: 'word', confidence: 0.97 })),
      ...Array.from({ length: 10 }, () => ({ text: '12.50', confidence: 0.4 })),
    ];
    // Act
    const report = scorePage(result({ words, ocrScore: 0.93, evidenceText: null }), null);
    // Assert
    expect(report.ocr_score).toBeLessThan(GRADE_THRESHOLDS.good);
    expect(report.verbatim_score).toBe(report.ocr_score);
    expect(report.mean_grade).not.toBe('excellent');
  });

  it('keeps the provider recognition score when it gives no words', () => {
    // Act
    const report = scorePage(result({ ocrScore: 0.93 }), null);
    // Assert
    expect(report.ocr_score).toBe(0.93);
  });

  it('takes the layout uncertainty of the Markdown and of the provider off layout_score', () => {
    // Arrange
    const fragmented = md([...PARAGRAPHS.slice(0, 3), '2', ...PARAGRAPHS.slice(3)]);
    // Act
    const seen = scorePage(result({ markdown: fragmented }), EVIDENCE).layout_score;
    const given = scorePage(
      result({
        layoutSignals: {
          readingOrderAmbiguity: 0.2,
          mathAsText: 0.2,
          guessedHeadingLevels: 0.4,
          unassignedLines: 0.1,
        },
      }),
      EVIDENCE,
    ).layout_score;
    // Assert
    expect(seen).toBeCloseTo(0.9 * (1 - 1 / 7), 3);
    expect(given).toBeCloseTo(0.9 * (1 - 0.1 - 0.1 - 0.1 - 0.1), 3);
  });

  it('scores the tables of the page from their regions', () => {
    // Arrange
    const markdown = `${md(PARAGRAPHS)}\n\n${SOUND.replace('| 876 |', '|  |')}`;
    // Act
    const report = scorePage(
      result({ markdown, tableRegionText: [SOUND_EVIDENCE] }),
      `${EVIDENCE}\n${SOUND_EVIDENCE}`,
    );
    // Assert
    expect(report.table_score).not.toBeNull();
    expect(report.table_score ?? 1).toBeLessThan(0.85);
  });
});
