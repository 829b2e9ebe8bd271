import { describe, expect, it } from 'vitest';
import { confidenceReport, gradeOf } from '../../../../functions/core/domain/confidence.js';
import { ConfidenceReport } from '../../../../functions/core/domain/schemas.js';

describe('gradeOf', () => {
  it.each([
    [1, 'excellent'],
    [0.9, 'excellent'],
    [0.8999, 'good'],
    [0.75, 'good'],
    [0.7499, 'fair'],
    [0.5, 'fair'],
    [0.4999, 'poor'],
    [0, 'poor'],
  ] as const)('grades %s as %s', (score, grade) => {
    // Act
    const result = gradeOf(score);
    // Assert
    expect(result).toBe(grade);
  });
});

describe('confidenceReport', () => {
  it('grades the mean of the scores and the lowest one', () => {
    // Act
    const report = confidenceReport({ layout: 1, ocr: 0.95, verbatim: 0.4, table: null });
    // Assert
    expect(report).toEqual({
      layout_score: 1,
      ocr_score: 0.95,
      verbatim_score: 0.4,
      table_score: null,
      mean_grade: 'good',
      low_grade: 'poor',
    });
  });

  it('counts the table score in both grades when the page has tables', () => {
    // Act
    const report = confidenceReport({ layout: 0.9, ocr: 0.9, verbatim: 0.9, table: 0.1 });
    // Assert
    expect(report.table_score).toBe(0.1);
    expect(report.mean_grade).toBe('fair');
    expect(report.low_grade).toBe('poor');
  });

  it('rounds scores to three decimals and clamps them into [0, 1]', () => {
    // Act
    const report = confidenceReport({ layout: 1.2, ocr: -0.1, verbatim: 0.123456, table: 0.98765 });
    // Assert
    expect(report).toMatchObject({
      layout_score: 1,
      ocr_score: 0,
      verbatim_score: 0.123,
      table_score: 0.988,
    });
    expect(ConfidenceReport.safeParse(report).success).toBe(true);
  });
});
