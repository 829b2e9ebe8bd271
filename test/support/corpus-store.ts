import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ObjectNotFoundError } from '../../functions/core/domain/errors.js';
import type { ObjectStore } from '../../functions/core/ports/object-store.js';
import { corpusDir } from './corpus.js';

/** The shared test corpus (`../shared/corpus` beside the checkout). */
export const corpus = corpusDir();

/** Serves corpus files by their path relative to the corpus folder. */
export class CorpusStore implements ObjectStore {
  readonly #extra = new Map<string, Uint8Array>();

  readonly #types = new Map<string, string>();

  put(key: string, body: Uint8Array, contentType: string): Promise<void> {
    this.#extra.set(key, body);
    this.#types.set(key, contentType);
    return Promise.resolve();
  }

  get(key: string): Promise<Uint8Array> {
    const extra = this.#extra.get(key);
    if (extra) return Promise.resolve(extra);
    try {
      return Promise.resolve(new Uint8Array(readFileSync(path.join(corpus, key))));
    } catch (error) {
      return Promise.reject(new ObjectNotFoundError(key, { cause: error }));
    }
  }

  exists(key: string): Promise<boolean> {
    return this.get(key).then(
      () => true,
      () => false,
    );
  }

  delete(key: string): Promise<void> {
    this.#extra.delete(key);
    return Promise.resolve();
  }
}
