import { describe, expect, it } from 'vitest';
import {
  chooseProvider,
  complexityScore,
  tierFor,
  type ProviderCapability,
} from '../../../../functions/core/domain/routing.js';
import { pageFeatures, scannedPageFeatures } from '../../../support/builders.js';

const THRESHOLDS = { fastCeiling: 0.35, proCeiling: 0.7 };

describe('complexityScore', () => {
  it('scores plain single-column prose with a clean text layer as 0', () => {
    // Arrange
    const features = pageFeatures();
    // Act
    const score = complexityScore(features);
    // Assert
    expect(score).toBe(0);
  });

  it('adds the full text-layer weight for a page without a usable text layer', () => {
    // Arrange
    const features = pageFeatures({ usableTextLayer: false });
    // Act
    const score = complexityScore(features);
    // Assert
    expect(score).toBe(0.35);
  });

  it('scores a full-page scan at 0.45 (text layer plus image coverage)', () => {
    // Arrange
    const features = scannedPageFeatures(1);
    // Act
    const score = complexityScore(features);
    // Assert
    expect(score).toBe(0.45);
  });

  it('counts the garbage share of a usable text layer twice towards the text-layer weight', () => {
    // Arrange
    const features = pageFeatures({ garbageRatio: 0.1 });
    // Act
    const score = complexityScore(features);
    // Assert
    expect(score).toBe(0.07);
  });

  it('weights tables, columns, fonts and math by their documented shares', () => {
    // Arrange
    const ruled = pageFeatures({ ruleCount: 60 });
    const aligned = pageFeatures({ tableAlignment: 0.5 });
    const halfAligned = pageFeatures({ tableAlignment: 0.25 });
    const columns = pageFeatures({ columnCount: 3 });
    const fonts = pageFeatures({ fontCount: 12 });
    const math = pageFeatures({ mathCharRatio: 0.2 });
    // Act
    const scores = [ruled, aligned, halfAligned, columns, fonts, math].map(complexityScore);
    // Assert: rule lines and whitespace alignment are two kinds of table evidence.
    expect(scores).toEqual([0.2, 0.2, 0.1, 0.1, 0.1, 0.1]);
  });

  it('reaches 1 for a scanned, ruled, multi-column page with math on an unknown page size', () => {
    // Arrange
    const features = pageFeatures({
      usableTextLayer: false,
      imageCoverage: 1,
      ruleCount: 500,
      columnCount: 4,
      fontCount: 30,
      mathCharRatio: 0.5,
      widthPt: 0,
      heightPt: 0,
    });
    // Act
    const score = complexityScore(features);
    // Assert
    expect(score).toBe(1);
  });

  it('treats A4 as an ordinary page size', () => {
    // Arrange
    const features = pageFeatures({ widthPt: 595, heightPt: 842 });
    // Act
    const score = complexityScore(features);
    // Assert
    expect(score).toBeLessThan(0.01);
  });

  it('stays in [0, 1] when measurements are not finite or out of range', () => {
    // Arrange
    const features = pageFeatures({
      garbageRatio: Number.NaN,
      imageCoverage: Number.POSITIVE_INFINITY,
      ruleCount: -5,
      columnCount: 0,
      fontCount: -1,
      mathCharRatio: Number.NaN,
    });
    // Act
    const score = complexityScore(features);
    // Assert
    expect(score).toBeGreaterThanOrEqual(0);
    expect(score).toBeLessThanOrEqual(1);
    expect(Number.isFinite(score)).toBe(true);
  });
});

describe('tierFor', () => {
  it.each([
    [0, 'fast'],
    [0.35, 'fast'],
    [0.351, 'pro'],
    [0.7, 'pro'],
    [0.701, 'premium'],
    [1, 'premium'],
  ] as const)('maps complexity %s to %s with the default thresholds', (complexity, tier) => {
    // Act
    const chosen = tierFor(complexity, THRESHOLDS);
    // Assert
    expect(chosen).toBe(tier);
  });

  it('sends every page to premium when both ceilings are below 0', () => {
    // Act
    const chosen = tierFor(0, { fastCeiling: -1, proCeiling: -1 });
    // Assert
    expect(chosen).toBe('premium');
  });
});

describe('chooseProvider', () => {
  const chain: ProviderCapability[] = [
    { id: 'pdf-text', needsTextLayer: true },
    { id: 'ocr', needsTextLayer: false },
  ];

  it('picks the first provider of the chain for a page with a usable text layer', () => {
    // Act
    const provider = chooseProvider(chain, pageFeatures());
    // Assert
    expect(provider?.id).toBe('pdf-text');
  });

  it('skips text-layer providers for a page without a usable text layer', () => {
    // Act
    const provider = chooseProvider(chain, scannedPageFeatures(1));
    // Assert
    expect(provider?.id).toBe('ocr');
  });

  it('returns undefined when only text-layer providers serve a scanned page', () => {
    // Act
    const provider = chooseProvider(
      [{ id: 'pdf-text', needsTextLayer: true }],
      scannedPageFeatures(1),
    );
    // Assert
    expect(provider).toBeUndefined();
  });

  it('returns undefined for an empty chain', () => {
    // Act
    const provider = chooseProvider([], pageFeatures());
    // Assert
    expect(provider).toBeUndefined();
  });
});
