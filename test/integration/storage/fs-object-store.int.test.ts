import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsObjectStore } from '../../../functions/adapters/local/fs-object-store.js';
import { resetStorageCalls, storageCalls } from '../../../functions/adapters/storage-calls.js';
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

describeObjectStoreContract(
  'FsObjectStore on a temporary directory, as the only writer',
  () => new FsObjectStore(join(dir, 'only-writer'), { onlyWriter: true }),
);

describe('FsObjectStore as the only writer', () => {
  it('answers reads of small objects it wrote from memory, as independent copies', async () => {
    // Arrange: the files are removed behind the store's back.
    const base = join(dir, 'kept');
    const store: ObjectStore = new FsObjectStore(base, { onlyWriter: true });
    const small = new TextEncoder().encode('{"pages":[1,2]}');
    const large = new Uint8Array(300 * 1024).fill(7);
    await store.put('work/r-1/inspection.json', small, 'application/json');
    await store.put('work/r-1/large.bin', large, 'application/octet-stream');
    small[0] = 0;
    await rm(join(base, 'work'), { recursive: true, force: true });
    // Act
    const read = await store.get('work/r-1/inspection.json');
    read[1] = 0;
    const again = await store.get('work/r-1/inspection.json');
    // Assert: the small object comes from memory, unchanged; the large one was not kept.
    expect(new TextDecoder().decode(again)).toBe('{"pages":[1,2]}');
    await expect(store.get('work/r-1/large.bin')).rejects.toThrow(/large\.bin/);
  });
});

describe('FsObjectStore', () => {
  it('counts its writes, and its reads from disk apart from those answered from memory', async () => {
    // Arrange
    const base = join(dir, 'counted');
    const kept: ObjectStore = new FsObjectStore(base, { onlyWriter: true });
    const plain = new FsObjectStore(base);
    const body = new TextEncoder().encode('{}');
    resetStorageCalls();
    // Act
    await kept.put('work/r-1/inspection.json', body, 'application/json');
    await kept.get('work/r-1/inspection.json');
    await plain.get('work/r-1/inspection.json');
    // Assert
    expect(storageCalls()).toEqual(
      new Map([
        ['object put', 1],
        ['object get (kept in memory)', 1],
        ['object get', 1],
      ]),
    );
  });

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
