import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsObjectStore } from '../../../functions/adapters/local/fs-object-store.js';
import type { ObjectStore } from '../../../functions/core/ports/object-store.js';
import { describeObjectStoreContract } from '../../contract/object-store.contract.js';

let dir: string;
let root: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fs-object-store-'));
  root = join(dir, 'objects');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describeObjectStoreContract(
  'FsObjectStore on a temporary directory',
  () => new FsObjectStore(root),
);

describe('FsObjectStore', () => {
  it('stores a key as a file under the root', async () => {
    // Arrange
    const store: ObjectStore = new FsObjectStore(root);
    // Act
    await store.put('results/r-1/result.json', new TextEncoder().encode('{}'), 'application/json');
    // Assert
    expect(await readFile(join(root, 'results/r-1/result.json'), 'utf8')).toBe('{}');
  });

  it('leaves no temporary files behind after writing', async () => {
    // Arrange
    const store: ObjectStore = new FsObjectStore(root);
    // Act
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        store.put('tmp-check/page.md', new TextEncoder().encode(`v${i}`), 'text/markdown'),
      ),
    );
    // Assert
    expect(await readdir(join(root, 'tmp-check'))).toEqual(['page.md']);
  });

  it('rejects a key escaping the root and writes nothing outside it', async () => {
    // Arrange
    const store: ObjectStore = new FsObjectStore(root);
    // Act
    const writing = store.put('../escaped.bin', new Uint8Array([1]), 'application/octet-stream');
    // Assert
    await expect(writing).rejects.toMatchObject({ name: 'BadRequestError' });
    expect(await readdir(dir)).not.toContain('escaped.bin');
  });

  it('fails on a put where a stored key is a folder of other keys', async () => {
    // Arrange
    const store: ObjectStore = new FsObjectStore(root);
    await store.put('clash/inner.bin', new Uint8Array([1]), 'application/octet-stream');
    // Act
    const writing = store.put('clash', new Uint8Array([2]), 'application/octet-stream');
    // Assert
    await expect(writing).rejects.toThrow();
    expect(await readdir(join(root, 'clash'))).toEqual(['inner.bin']);
  });
});
