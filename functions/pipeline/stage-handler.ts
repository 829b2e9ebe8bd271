import middy from '@middy/core';
import type { z } from 'zod';
import { parseWith } from '../core/domain/validation.js';
import type { Deps } from '../container.js';

/**
 * A Task state's Lambda: validates the state input, emits `node.started` / `node.completed` on the
 * request's event log, and runs the stage. Errors propagate with their `name` so the state
 * machine's Retry and Catch match them.
 */
export function stageHandler<S extends z.ZodType<{ requestId: string }>, O>(
  getDeps: () => Promise<Deps>,
  node: string,
  schema: S,
  run: (input: z.infer<S>, deps: Deps) => Promise<O>,
) {
  return middy<unknown, O>().handler(async (event) => {
    const input = parseWith('state', schema, event);
    const deps = await getDeps();
    const page = (input as { pageNumber?: number }).pageNumber;
    const fields = page === undefined ? { node } : { node, page };
    await deps.events.append(input.requestId, { event: 'node.started', ...fields });
    const output = await run(input, deps);
    await deps.events.append(input.requestId, { event: 'node.completed', ...fields });
    return output;
  });
}
