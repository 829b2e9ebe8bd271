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
import { defineCommand, parseCommandLineOrExit } from './cli.js';

const COMMAND = defineCommand({
  usage: 'npm run bench:batch [-- options]',
  summary:
    'Parses documents of the dev corpus one after the other through POST /v1/parse, then as one ' +
    'batch through POST /v1/parse/batch, and prints both rates and the speed-up.',
  options: {
    count: { type: 'number', value: 'n', default: 100, description: 'documents parsed' },
    concurrency: {
      type: 'number',
      value: 'n',
      default: 4,
      description: "the batch's concurrency (BATCH_CONCURRENCY)",
    },
    priority: {
      type: 'string',
      default: 'normal',
      choices: ['normal', 'high', 'low'],
      description: "the batch's priority",
    },
  },
});

const flags = parseCommandLineOrExit(COMMAND);
await measureBatchThroughput({
  count: flags.count,
  concurrency: flags.concurrency,
  priority: flags.priority satisfies BatchPriority,
  sequential: true,
});
