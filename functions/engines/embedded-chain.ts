import type { ProviderCapability } from '../core/domain/routing.js';

/**
 * The provider chain of the embedded default, for every tier: the text-layer engine first, OCR
 * for pages without a usable text layer. Kept apart from the engines so that functions that only
 * report on providers (health) need not load them.
 */
export const EMBEDDED_CHAIN: readonly ProviderCapability[] = [
  { id: 'local-text', needsTextLayer: true },
  { id: 'local-ocr', needsTextLayer: false },
];
