import {
  UsageError,
  commandHelp,
  globalOptionsOf,
  isUrl,
  oneArgument,
  positiveInt,
  strictParse,
  type GlobalOptions,
  type Options,
} from '../cli-args.js';
import { EXIT, call, inputFile, waitFor, type CliCommand, type Context } from '../cli-context.js';
import { formatEstimate } from '../cli-output.js';

/** `docparse estimate FILE`: what a parse would take, without parsing. */
export interface EstimateInvocation {
  kind: 'estimate';
  global: GlobalOptions;
  file: string;
  maxPages: number | undefined;
  /** Print the raw JSON answer. */
  json: boolean;
}

const OPTIONS = {
  'max-pages': { type: 'string' },
  json: { type: 'boolean' },
} as const satisfies Options;

const USAGE = 'usage: docparse estimate FILE [--max-pages N] [--json]';

export const estimateCommand = {
  options: OPTIONS,
  usage: USAGE,
  help: commandHelp(
    USAGE,
    `Estimates a parse (POST /v1/parse/estimate): page count, pages per tier, estimated cost in USD
and document type, from ingestion and classification only; nothing is parsed or charged.

  --max-pages N        count the first N pages only
  --json               print the answer as JSON`,
  ),
  read(argv, env): EstimateInvocation {
    const { values, positionals } = strictParse(argv, OPTIONS, 'estimate');
    const file = oneArgument(positionals, 'estimate', 'a FILE');
    if (isUrl(file)) {
      throw new UsageError('estimate takes a local file, not a URL', 'estimate');
    }
    return {
      kind: 'estimate',
      global: globalOptionsOf(values, env),
      file,
      maxPages: positiveInt(values['max-pages'], '--max-pages', 'estimate'),
      json: values.json === true,
    };
  },
  run,
} satisfies CliCommand<EstimateInvocation>;

/** Runs `docparse estimate FILE`. */
async function run(ctx: Context, inv: EstimateInvocation): Promise<number> {
  const file = await inputFile(ctx, inv.file, 'estimate');
  const estimate = await waitFor(ctx, `estimating ${file.name}`, () =>
    ctx.client.estimate(file, inv.maxPages, call(ctx)),
  );
  ctx.io.stdout.write(
    inv.json
      ? `${JSON.stringify(estimate, null, 2)}\n`
      : `${formatEstimate(file.name, estimate)}\n`,
  );
  return EXIT.ok;
}
