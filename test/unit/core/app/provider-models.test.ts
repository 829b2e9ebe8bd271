import { describe, expect, it } from 'vitest';
import {
  providerModels,
  resolveProviderModel,
} from '../../../../functions/core/app/provider-models.js';
import { ValidationError } from '../../../../functions/core/domain/errors.js';
import type { ProviderRegistry } from '../../../../functions/core/ports/pipeline.js';
import type { ProviderCapability } from '../../../../functions/core/domain/routing.js';

/**
 * The offline engines on fast, a vision model then OCR on pro, and on premium a second vision
 * provider running the same model as the first, and a provider the registry names no model for.
 */
const REGISTRY: Pick<ProviderRegistry, 'chain'> = {
  chain(tier) {
    const text: ProviderCapability = {
      id: 'local-text',
      needsTextLayer: true,
      model: 'pdf-text-layout-1',
      otherModels: ['office-convert-1'],
    };
    const ocr: ProviderCapability = {
      id: 'local-ocr',
      needsTextLayer: false,
      model: 'tesseract-5-lstm',
    };
    const vision = { id: 'vision', needsTextLayer: false, model: 'gpt-4.1-mini' };
    const twin = { id: 'vision-eu', needsTextLayer: false, model: 'gpt-4.1-mini' };
    const bare = { id: 'bare', needsTextLayer: false };
    if (tier === 'fast') return [text, ocr];
    if (tier === 'pro') return [vision, ocr];
    return [twin, vision, bare];
  },
};

const LOC = ['body', 'providers', 0];

/** The one issue of the ValidationError `act` throws. */
function issueOf(act: () => unknown): { loc: unknown; msg: string } {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    const [issue] = (error as ValidationError).issues;
    return { loc: issue?.loc, msg: issue?.msg ?? '' };
  }
  throw new Error('expected a ValidationError');
}

describe('providerModels', () => {
  it('lists every provider of some tier once, in chain order, with its model', () => {
    // Act
    const listed = providerModels(REGISTRY);
    // Assert
    expect(listed).toEqual([
      { id: 'local-text', model: 'pdf-text-layout-1', otherModels: ['office-convert-1'] },
      { id: 'local-ocr', model: 'tesseract-5-lstm', otherModels: [] },
      { id: 'vision', model: 'gpt-4.1-mini', otherModels: [] },
      { id: 'vision-eu', model: 'gpt-4.1-mini', otherModels: [] },
      { id: 'bare', model: 'bare', otherModels: [] },
    ]);
  });
});

describe('resolveProviderModel', () => {
  it.each([
    ['a pair of a provider and its model', { id: 'local-text', model: 'pdf-text-layout-1' }],
    ['a provider id alone, in a pair', { id: 'local-text' }],
    ['a provider id alone', 'local-text'],
    ['the model alone', 'pdf-text-layout-1'],
    [
      'a pair naming the other model its pages report',
      { id: 'local-text', model: 'office-convert-1' },
    ],
    ['the other model alone', 'office-convert-1'],
  ])('accepts %s', (_, name) => {
    // Act
    const provider = resolveProviderModel(REGISTRY, name, LOC);
    // Assert
    expect(provider).toEqual({ id: 'local-text', model: 'pdf-text-layout-1' });
  });

  it('takes the first provider in chain order for a model two providers run', () => {
    // Act
    const provider = resolveProviderModel(REGISTRY, 'gpt-4.1-mini', LOC);
    // Assert
    expect(provider).toEqual({ id: 'vision', model: 'gpt-4.1-mini' });
  });

  it('names a provider by id before a model of the same name', () => {
    // Act
    const provider = resolveProviderModel(REGISTRY, 'bare', LOC);
    // Assert
    expect(provider).toEqual({ id: 'bare', model: 'bare' });
  });

  it('rejects a model the provider does not run, listing the valid pairs', () => {
    // Act
    const issue = issueOf(() =>
      resolveProviderModel(REGISTRY, { id: 'local-ocr', model: 'pdf-text-layout-1' }, LOC),
    );
    // Assert
    expect(issue.loc).toEqual(LOC);
    expect(issue.msg).toMatch(
      /^provider local-ocr runs the model "tesseract-5-lstm", not "pdf-text-layout-1"; the valid pairs are \[/,
    );
    expect(issue.msg).toContain(
      '[{"id":"local-text","model":"pdf-text-layout-1"},{"id":"local-text","model":"office-convert-1"},{"id":"local-ocr","model":"tesseract-5-lstm"},{"id":"vision","model":"gpt-4.1-mini"},',
    );
    expect(issue.msg).toContain('GET /v1/providers');
  });

  it('rejects the provider id given as its model when the provider runs another', () => {
    // Act
    const issue = issueOf(() =>
      resolveProviderModel(REGISTRY, { id: 'local-ocr', model: 'local-ocr' }, LOC),
    );
    // Assert
    expect(issue.msg).toMatch(/^provider local-ocr runs the model "tesseract-5-lstm"/);
  });

  it('rejects an unknown provider id in a pair', () => {
    // Act
    const issue = issueOf(() =>
      resolveProviderModel(REGISTRY, { id: 'gpt-9', model: 'gpt-9' }, LOC),
    );
    // Assert
    expect(issue.msg).toMatch(/^no configured provider is named "gpt-9"; the valid pairs are /);
  });

  it('rejects a single name that is neither a provider nor a model, at its location', () => {
    // Act
    const issue = issueOf(() =>
      resolveProviderModel(REGISTRY, 'gpt-imaginary', ['body', 'preferred_model']),
    );
    // Assert
    expect(issue.loc).toEqual(['body', 'preferred_model']);
    expect(issue.msg).toMatch(/^no configured provider or model is named "gpt-imaginary"/);
    expect(issue.msg).toContain('{"id":"local-ocr","model":"tesseract-5-lstm"}');
  });
});
