import { App } from 'aws-cdk-lib';
import { DocparseStack } from '../lib/docparse-stack.js';

/** The CDK app: `npx cdk synth` / `npx cdk deploy`. */
const app = new App();
new DocparseStack(app, 'Docparse', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
app.synth();
