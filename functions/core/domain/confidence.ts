import type { ConfidenceReport, QualityGrade } from './schemas.js';

/**
 * Grade thresholds on a score in [0, 1]: excellent ≥ 0.90, good ≥ 0.75, fair ≥ 0.50, else poor.
 */
export const GRADE_THRESHOLDS = { excellent: 0.9, good: 0.75, fair: 0.5 } as const;

export function gradeOf(score: number): QualityGrade {
  if (score >= GRADE_THRESHOLDS.excellent) return 'excellent';
  if (score >= GRADE_THRESHOLDS.good) return 'good';
  if (score >= GRADE_THRESHOLDS.fair) return 'fair';
  return 'poor';
}

const round3 = (v: number): number => Math.round(Math.min(1, Math.max(0, v)) * 1000) / 1000;

/**
 * Builds a ConfidenceReport: `mean_grade` grades the mean of the available scores, `low_grade`
 * the lowest one (table_score counts only when the page has tables).
 */
export function confidenceReport(scores: {
  layout: number;
  ocr: number;
  verbatim: number;
  table: number | null;
}): ConfidenceReport {
  const values = [scores.layout, scores.ocr, scores.verbatim];
  if (scores.table !== null) values.push(scores.table);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return {
    layout_score: round3(scores.layout),
    ocr_score: round3(scores.ocr),
    verbatim_score: round3(scores.verbatim),
    table_score: scores.table === null ? null : round3(scores.table),
    mean_grade: gradeOf(mean),
    low_grade: gradeOf(Math.min(...values)),
  };
}
