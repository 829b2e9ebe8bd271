import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StateMachine } from 'aws-local-stepfunctions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLocalDefinition } from '../../../../functions/adapters/local/local-workflow.js';
import { PARSE_DOCUMENT_ASL } from '../../../../functions/pipeline/stages.js';

const ASL = fileURLToPath(new URL(`../../../../${PARSE_DOCUMENT_ASL}`, import.meta.url));

// The local workflow runs the definition without checking it at each start: the check is here.
describe('the parse state machine definition', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'asl-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is valid ASL as the local runtime substitutes it (ARNs and JSONPaths checked)', async () => {
    // Arrange
    const definition = await readLocalDefinition(ASL, { TableName: 'docparse-local' });
    // Act
    const build = () => new StateMachine(definition);
    // Assert
    expect(build).not.toThrow();
    expect(JSON.stringify(definition)).not.toMatch(/\$\{\w+\}/);
  });

  it('would be refused with a transition to a state it does not have', async () => {
    // Arrange
    const broken = JSON.parse(await readFile(ASL, 'utf8')) as { StartAt: string };
    broken.StartAt = 'NoSuchState';
    const path = join(dir, 'broken.asl.json');
    await writeFile(path, JSON.stringify(broken));
    const definition = await readLocalDefinition(path, { TableName: 'docparse-local' });
    // Act
    const build = () => new StateMachine(definition);
    // Assert
    expect(build).toThrow(/NoSuchState/);
  });
});
