import middy from '@middy/core';
import type { z } from 'zod';
import { OrderedProgress } from '../core/domain/pipeline/progress.js';
import { parseWith } from '../core/domain/validation.js';
import type { ProgressSink } from '../core/ports/event-log.js';
import type { Deps } from '../container.js';
import { appendParseKeys, lambdaContextLogging, logger } from '../observability/logger.js';

/**
 * A Task state's Lambda: validates the state input, emits `node.started` / `node.completed` on the
 * request's event log around the stage, and runs the stage. Errors propagate with their `name` so
 * the state machine's Retry and Catch match them.
 *
 * Events are written in order while the stage runs, not before it goes on. On Lambda the handler
 * returns once they are all written (nothing runs after a Lambda returns); a long-lived process
 * (`deps.deferEvents`) lets the last ones finish while the next state starts.
 *
 * Every log line of the invocation carries the Lambda context and the parse's `request_id` (and
 * `page` for a page stage); the stage logs its start at debug, its end at debug with its duration,
 * and a failure at warn with the error's name (the state machine's Retry and Catch decide what
 * follows).
 */
export function stageHandler<S extends z.ZodType<{ requestId: string }>, O>(
  getDeps: () => Promise<Deps>,
  node: string,
  schema: S,
  run: (input: z.infer<S>, deps: Deps, progress: ProgressSink) => Promise<O>,
) {
  return middy<unknown, O>()
    .use(lambdaContextLogging())
    .handler(async (event) => {
      const input = parseWith('state', schema, event);
      const page = (input as { pageNumber?: number }).pageNumber;
      appendParseKeys({ request_id: input.requestId, page });
      // The stage's own lines name the request and page themselves too: in a local process,
      // concurrent invocations share the logger and its appended keys.
      const own =
        page === undefined
          ? { request_id: input.requestId }
          : { request_id: input.requestId, page };
      logger.debug('stage started', { stage: node, ...own });
      const started = performance.now();
      const deps = await getDeps();
      const fields = page === undefined ? { node } : { node, page };
      const progress = new OrderedProgress(deps.events, input.requestId);
      progress.emit({ event: 'node.started', ...fields });
      let output: O;
      try {
        output = await run(input, deps, progress);
      } catch (error) {
        logger.warn('stage failed', {
          stage: node,
          ...own,
          durationMs: Math.round(performance.now() - started),
          error:
            error instanceof Error ? { name: error.name, message: error.message } : String(error),
        });
        // The events emitted before the failure are still written.
        await progress.settled().catch(() => undefined);
        throw error;
      }
      // Debug like the start: one line per stage and page would flood the local server's output.
      logger.debug('stage ended', {
        stage: node,
        ...own,
        durationMs: Math.round(performance.now() - started),
      });
      progress.emit({ event: 'node.completed', ...fields });
      if (deps.deferEvents) deps.deferEvents(progress.settled());
      else await progress.settled();
      return output;
    });
}
