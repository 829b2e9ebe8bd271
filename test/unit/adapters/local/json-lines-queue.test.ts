import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonLinesQueue } from '../../../../functions/adapters/local/json-lines-queue.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docparse-jsonl-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const lines = async (path: string) =>
  (await readFile(path, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { sentAt: string; body: string; attributes: object });

describe('JsonLinesQueue', () => {
  it('appends each message as one JSON line, in the order sent, creating the directory', async () => {
    // Arrange
    const path = join(dir, 'dead-letters', 'webhooks.jsonl');
    const queue = new JsonLinesQueue(path);
    // Act
    await Promise.all([
      queue.send({ body: { n: 1 }, attributes: { reason: 'HTTP 500' } }),
      queue.sendMany([
        { id: 'a', body: { n: 2 } },
        { id: 'b', body: { n: 3 } },
      ]),
    ]);
    // Assert
    const written = await lines(path);
    expect(written.map((l) => [l.body, l.attributes])).toEqual([
      ['{"n":1}', { reason: 'HTTP 500' }],
      ['{"n":2}', {}],
      ['{"n":3}', {}],
    ]);
    expect(Number.isNaN(Date.parse(written[0]!.sentAt))).toBe(false);
  });

  it('refuses a message that breaks the queue rules, writing nothing', async () => {
    // Arrange
    const path = join(dir, 'q.jsonl');
    const queue = new JsonLinesQueue(path);
    // Act
    const sending = queue.send({ body: {}, delaySeconds: 901 });
    // Assert
    await expect(sending).rejects.toBeInstanceOf(RangeError);
    await expect(readFile(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
