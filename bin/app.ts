import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { deployContext } from '../lib/deploy-context.js';
import { DocparseStack } from '../lib/docparse-stack.js';

/**
 * The CDK app: `npm run synth`, `npx cdk deploy`. Context keys configure a deployment (all of
 * them in `CONTEXT_KEYS` of lib/deploy-context.ts, listed in docs/deploy.md):
 * - `docparse:env`, a JSON object of the variables in `functions/config.ts` for every function,
 *   e.g. `npx cdk deploy -c 'docparse:env={"MAX_UPLOAD_BYTES":"104857600","FAST_CEILING":"0.3"}'`;
 *   the API keys of remote providers named by `api_key_env` go there too, and reach only the
 *   functions that call providers (ParsePage, Deliver);
 * - `docparse:providers`, the path of a provider configuration file (tiers, provider chains,
 *   tier prices), e.g. `-c docparse:providers=config/my-providers.json`, validated at synth and
 *   passed to every function as `PROVIDERS_JSON`. Without it the bundled `config/providers.json`
 *   (offline engines) applies;
 * - `docparse:retentionDays`, days documents, results and their records are kept (default 7):
 *   the bucket's lifecycle rules and every function's `RETENTION_DAYS`;
 * - the cost guards and operations settings (throttles, reserved concurrency, WAF, alarm mail).
 * cdk-nag's AWS Solutions checks run at synth; each acknowledged finding carries its reason
 * next to the resource.
 */
const app = new App();
new DocparseStack(app, 'Docparse', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  ...deployContext(app),
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
