import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BadRequestError, ObjectNotFoundError } from '../../functions/core/domain/errors.js';
import type { ObjectStore } from '../../functions/core/ports/object-store.js';

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

/** Keys that would leave the store: every adapter rejects them, so local and AWS agree. */
const ESCAPING_KEYS = ['../outside.bin', 'uploads/../../outside.bin', '/etc/passwd', '', '.'];

/**
 * The ObjectStore contract: what every adapter (S3, filesystem, in memory) must do.
 *
 * `factory` is called inside each test, after the caller's `beforeAll` has run.
 */
export function describeObjectStoreContract(
  name: string,
  factory: () => ObjectStore | Promise<ObjectStore>,
): void {
  describe(`${name} (ObjectStore contract)`, () => {
    const uniqueKey = (suffix = 'object.bin') => `contract/${randomUUID()}/${suffix}`;

    it('returns the bytes stored under a key', async () => {
      // Arrange
      const store = await factory();
      const key = uniqueKey('pages/0001.md');
      const body = Uint8Array.from([0, 1, 2, 127, 128, 254, 255]);
      // Act
      await store.put(key, body, 'application/octet-stream');
      const read = await store.get(key);
      // Assert
      expect(new Uint8Array(read)).toEqual(body);
    });

    it('stores an empty object', async () => {
      // Arrange
      const store = await factory();
      const key = uniqueKey();
      // Act
      await store.put(key, new Uint8Array(0), 'text/plain');
      // Assert
      expect((await store.get(key)).byteLength).toBe(0);
      expect(await store.exists(key)).toBe(true);
    });

    it('stores a large binary object unchanged', async () => {
      // Arrange
      const store = await factory();
      const key = uniqueKey('upload.pdf');
      const body = new Uint8Array(randomBytes(3 * 1024 * 1024));
      // Act
      await store.put(key, body, 'application/pdf');
      // Assert
      expect(Buffer.compare(await store.get(key), body)).toBe(0);
    });

    it('replaces the object on a second put', async () => {
      // Arrange
      const store = await factory();
      const key = uniqueKey();
      await store.put(key, encode('first version, longer than the second'), 'text/plain');
      // Act
      await store.put(key, encode('second'), 'text/plain');
      // Assert
      expect(new TextDecoder().decode(await store.get(key))).toBe('second');
    });

    it('keeps the stored bytes when the caller later mutates its buffer', async () => {
      // Arrange
      const store = await factory();
      const key = uniqueKey();
      const body = encode('immutable');
      await store.put(key, body, 'text/plain');
      // Act
      body.fill(0);
      // Assert
      expect(new TextDecoder().decode(await store.get(key))).toBe('immutable');
    });

    it('keeps keys apart, including a key that is a prefix of another', async () => {
      // Arrange
      const store = await factory();
      const base = uniqueKey('doc');
      await store.put(`${base}.md`, encode('markdown'), 'text/markdown');
      await store.put(`${base}.json`, encode('{}'), 'application/json');
      // Act
      const [markdown, json] = await Promise.all([
        store.get(`${base}.md`),
        store.get(`${base}.json`),
      ]);
      // Assert
      expect(new TextDecoder().decode(markdown)).toBe('markdown');
      expect(new TextDecoder().decode(json)).toBe('{}');
      expect(await store.exists(base)).toBe(false);
    });

    it('leaves one whole body when puts to the same key race', async () => {
      // Arrange
      const store = await factory();
      const key = uniqueKey();
      const bodies = Array.from({ length: 8 }, (_, i) => new Uint8Array(256 * 1024).fill(i + 1));
      // Act
      await Promise.all(bodies.map((body) => store.put(key, body, 'application/octet-stream')));
      // Assert
      const read = await store.get(key);
      expect(read.byteLength).toBe(256 * 1024);
      expect(new Set(read).size).toBe(1);
    });

    it('throws ObjectNotFoundError for a key never stored', async () => {
      // Arrange
      const store = await factory();
      const key = uniqueKey();
      // Act
      const reading = store.get(key);
      // Assert
      await expect(reading).rejects.toBeInstanceOf(ObjectNotFoundError);
      await expect(reading).rejects.toMatchObject({
        name: 'ObjectNotFoundError',
        details: { key },
      });
    });

    it('throws ObjectNotFoundError for a key that is only a prefix of stored keys', async () => {
      // Arrange
      const store = await factory();
      const folder = uniqueKey('folder');
      await store.put(`${folder}/inside.bin`, encode('x'), 'text/plain');
      // Act
      const reading = store.get(folder);
      // Assert
      await expect(reading).rejects.toBeInstanceOf(ObjectNotFoundError);
    });

    it('reports whether an object exists', async () => {
      // Arrange
      const store = await factory();
      const key = uniqueKey();
      // Act
      const before = await store.exists(key);
      await store.put(key, encode('x'), 'text/plain');
      const after = await store.exists(key);
      // Assert
      expect(before).toBe(false);
      expect(after).toBe(true);
    });

    it('deletes an object', async () => {
      // Arrange
      const store = await factory();
      const key = uniqueKey();
      await store.put(key, encode('x'), 'text/plain');
      // Act
      await store.delete(key);
      // Assert
      expect(await store.exists(key)).toBe(false);
      await expect(store.get(key)).rejects.toBeInstanceOf(ObjectNotFoundError);
    });

    it('deletes a missing key without error', async () => {
      // Arrange
      const store = await factory();
      // Act
      const deleting = store.delete(uniqueKey());
      // Assert
      await expect(deleting).resolves.toBeUndefined();
    });

    it.each(ESCAPING_KEYS)('rejects the key %j, which would leave the store', async (key) => {
      // Arrange
      const store = await factory();
      // Act
      const outcomes = await Promise.allSettled([
        store.put(key, encode('x'), 'text/plain'),
        store.get(key),
        store.exists(key),
        store.delete(key),
      ]);
      // Assert
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(BadRequestError);
      }
    });
  });
}
