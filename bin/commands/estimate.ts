import { type Invocation } from '../cli-args.js';
import { EXIT, call, inputFile, waitFor, type Context } from '../cli-context.js';
import { formatEstimate } from '../cli-output.js';

/** `docparse estimate FILE`. */
export async function estimateCommand(
  ctx: Context,
  inv: Extract<Invocation, { kind: 'estimate' }>,
): Promise<number> {
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
