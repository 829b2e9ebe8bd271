import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DocparseStack } from '../lib/docparse-stack.js';

/**
 * The CDK app: `npm run synth`, `npx cdk deploy`. Service settings come from the context key
 * `docparse:env`, a JSON object of the variables in `functions/config.ts`, e.g.
 * `npx cdk deploy -c 'docparse:env={"PRICE_PRO_USD":"0.02"}'`. cdk-nag's AWS Solutions checks
 * run at synth; each acknowledged finding carries its reason next to the resource.
 */
const app = new App();
const raw: unknown = app.node.tryGetContext('docparse:env');
const serviceEnvironment =
  typeof raw === 'string'
    ? (JSON.parse(raw) as Record<string, string>)
    : (raw as Record<string, string> | undefined);
new DocparseStack(app, 'Docparse', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  serviceEnvironment,
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
