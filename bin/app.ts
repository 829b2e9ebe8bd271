import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { deployContext } from '../lib/deploy-context.js';
import { DocparseStack } from '../lib/docparse-stack.js';

/**
 * The CDK app: `npm run synth`, `npx cdk deploy`. Two context keys configure a deployment:
 * - `docparse:env`, a JSON object of the variables in `functions/config.ts` for every function,
 *   e.g. `npx cdk deploy -c 'docparse:env={"MAX_UPLOAD_BYTES":"104857600","FAST_CEILING":"0.3"}'`;
 *   the API keys of remote providers go there too (plain environment variables);
 * - `docparse:providers`, the path of a provider configuration file (tiers, provider chains,
 *   tier prices), e.g. `-c docparse:providers=config/my-providers.json`, validated at synth and
 *   passed to every function as `PROVIDERS_JSON`. Without it the bundled `config/providers.json`
 *   (offline engines) applies.
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
