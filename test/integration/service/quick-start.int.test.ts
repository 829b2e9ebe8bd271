import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINE_ITEMS, TERMS, TOTAL } from '../../../examples/make-invoice.js';
import { runDocCommand } from '../../support/doc-examples.js';
import { startTestService, type TestService } from '../../support/local-service.js';

const ROOT = join(import.meta.dirname, '../../..');

/** The shell lines of the README's "Try it" block. */
function tryItLines(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('Try it\n'));
  const block = section?.match(/```sh\n([\s\S]*?)```/)?.[1];
  if (block === undefined) throw new Error('README.md has no sh block under "## Try it"');
  return block.trimEnd().split('\n');
}

let running: TestService;

/**
 * Runs the block's lines after `npm start &` against this test's server, as bash runs them (in
 * a child process, without blocking the server, which runs in this one).
 */
async function runTryIt(): Promise<string> {
  const script = tryItLines().slice(1).join('\n');
  const { stdout } = await runDocCommand(script, running, { timeoutMs: 60_000 });
  return stdout;
}

beforeAll(async () => {
  // No API_KEYS: the first start creates the demo key, as `npm start` does.
  running = await startTestService('quick-start', {});
});

afterAll(async () => {
  await running.close();
});

describe("the README's Try it", () => {
  it('is five lines: start the service, wait for it, upload the example invoice, print Markdown', () => {
    // Act
    const lines = tryItLines();
    // Assert
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe('npm start &');
    expect(lines.join('\n')).toContain('curl --fail-with-body');
    expect(lines.join('\n')).toContain('-F file=@examples/invoice.pdf');
    expect(lines.join('\n')).not.toContain('../');
  });

  it("prints the invoice's title, table and list when run against the local service", async () => {
    // Act
    const markdown = await runTryIt();
    // Assert
    expect(markdown).toContain('# Invoice INV-2026-0042');
    expect(markdown).toMatch(/^\| Date \| Description \| Amount \|$/m);
    for (const item of LINE_ITEMS) {
      expect(markdown).toContain(`| ${item.date} | ${item.description} | ${item.amount} |`);
    }
    expect(markdown).toContain(`| Total | ${TOTAL} |`);
    for (const term of TERMS) expect(markdown.split('\n')).toContain(`- ${term}`);
  });

  it('shows the Markdown the request prints', async () => {
    // Arrange
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const shown = readme.match(/## Try it[\s\S]*?```text\n([\s\S]*?)```/)?.[1];
    // Act
    const printed = await runTryIt();
    // Assert
    expect(shown?.trim()).toBe(printed.trim());
  });
});
