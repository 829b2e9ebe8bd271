/**
 * Batch bench: 100 documents of the dev corpus (born-digital PDFs and images, cycled), served by
 * a local origin, parsed twice by the local service in this process:
 * 1. one after the other through POST /v1/parse (each request waits for its result);
 * 2. as one batch through POST /v1/parse/batch, polling GET /v1/batch/{id} until it ends.
 * Prints both wall times and rates (documents/s, pages/s), the batch's totals and the speed-up.
 * One document is parsed first so that both runs find the engines warm. See `batch-throughput.ts`.
 *
 *   npm run bench:batch [-- --concurrency 4] [-- --priority normal|high|low] [-- --count 100]
 */
import './quiet-logs.js';
import { type BatchPriority, measureBatchThroughput } from './batch-throughput.js';
import { parseCliArgs } from './cli.js';

const args = parseCliArgs(process.argv.slice(2));
const priority = args.option('priority', 'normal');
if (priority !== 'normal' && priority !== 'high' && priority !== 'low') {
  throw new Error(`--priority must be normal, high or low, not "${priority}"`);
}

await measureBatchThroughput({
  count: args.number('count', 100),
  concurrency: args.number('concurrency', 4),
  priority: priority satisfies BatchPriority,
  sequential: true,
});
