import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTEXT_KEYS, deployContext } from '../../lib/deploy-context.js';
import { DocparseStack } from '../../lib/docparse-stack.js';
import { unbundledApp } from '../support/cdk-app.js';
import { isCdkProvided } from '../support/cdk-functions.js';

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'docparse-providers-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Writes `content` (JSON-encoded unless a string) to a file of the temporary folder. */
function providersFile(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

/** An app whose context holds `context` and skips bundling (no esbuild run). */
const appWith = (context: Record<string, unknown> = {}) => unbundledApp(context);

/** The stack as `bin/app.ts` builds it, from the app's context. */
const stackFrom = (app: App, id = 'Providers') =>
  new DocparseStack(app, id, { ...deployContext(app) });

const local = { kind: 'local-text' };
const tiersOf = (fast: string[], pro: string[], premium: string[]) => ({
  fast: { providers: fast, price_per_page_usd: 0.001 },
  pro: { providers: pro, price_per_page_usd: 0.01 },
  premium: { providers: premium, price_per_page_usd: 0.03 },
});

/** Bedrock (a model id and a cross-Region profile) and Textract, each used by a tier. */
const awsProviders = {
  $comment: 'AWS-hosted providers only: no API key needed.',
  providers: {
    'local-text': local,
    nova: {
      kind: 'bedrock-converse',
      model: 'amazon.nova-pro-v1:0',
      region: 'us-east-1',
    },
    'claude-eu': {
      kind: 'bedrock-converse',
      model: 'eu.anthropic.claude-sonnet-4-20250514-v1:0',
    },
    textract: { kind: 'textract', model: 'textract-analyze-layout-tables' },
    unused: { kind: 'bedrock-converse', model: 'meta.llama3-70b-instruct-v1:0' },
  },
  tiers: tiersOf(['local-text'], ['nova', 'local-text'], ['claude-eu', 'textract', 'local-text']),
};

/** The service's own functions: not the handlers CDK provides for its custom resources. */
const functionsOf = (resources: Resources) =>
  Object.entries(resources).filter(
    ([id, r]) => r.Type === 'AWS::Lambda::Function' && !isCdkProvided(id),
  );

const variablesOf = (fn: { Properties: Record<string, unknown> }) =>
  (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;

/** A CloudFormation string value with its references written `${Ref}`, e.g. `arn:${AWS::Partition}:…`. */
function flat(value: unknown): string {
  if (typeof value === 'string') return value;
  const object = value as { Ref?: string; 'Fn::Join'?: [string, unknown[]] };
  if (object.Ref !== undefined) return `\${${object.Ref}}`;
  if (object['Fn::Join']) return object['Fn::Join'][1].map(flat).join(object['Fn::Join'][0]);
  return JSON.stringify(value);
}

/** The Allow statements of the policies attached to the role of the function `functionId`. */
function statementsOf(resources: Resources, functionId: string): Statement[] {
  const fn = resources[functionId];
  const roleId = (fn?.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
    .filter((s) => s.Effect === 'Allow');
}

const functionIdOf = (resources: Resources, description: string): string => {
  const found = functionsOf(resources).find(([, f]) => f.Properties.Description === description);
  if (!found) throw new Error(`no function described as ${description}`);
  return found[0];
};

describe('the deploy-time provider configuration', () => {
  it('reaches every function as minified PROVIDERS_JSON, without its $comment', () => {
    // Arrange
    const file = providersFile('aws.json', awsProviders);
    const app = appWith({ [CONTEXT_KEYS.providers]: file });
    // Act
    const resources = Template.fromStack(stackFrom(app)).toJSON().Resources as Resources;
    // Assert
    const expected = { providers: awsProviders.providers, tiers: awsProviders.tiers };
    const functions = functionsOf(resources);
    expect(functions.length).toBeGreaterThan(10);
    for (const [, fn] of functions) {
      const value = variablesOf(fn).PROVIDERS_JSON;
      expect(value).toBe(JSON.stringify(expected));
    }
  });

  it('passes nothing without the context key, so the bundled default applies', () => {
    // Act
    const resources = Template.fromStack(stackFrom(appWith())).toJSON().Resources as Resources;
    // Assert
    for (const [, fn] of functionsOf(resources)) {
      expect(variablesOf(fn)).not.toHaveProperty('PROVIDERS_JSON');
      expect(variablesOf(fn)).not.toHaveProperty('PROVIDERS_FILE');
    }
  });

  it('accepts the AWS example configuration once its API keys are in docparse:env, giving them to ParsePage and Deliver only', () => {
    // Arrange: the keys the example names with api_key_env, as a deployment passes them (its
    // Anthropic key is read from Secrets Manager).
    const example = join(import.meta.dirname, '../../config/providers.aws.json');
    const keys = {
      OPENAI_API_KEY: 'sk-test',
      GEMINI_API_KEY: 'gm-test',
      MISTRAL_API_KEY: 'ms-test',
    };
    const app = appWith({
      [CONTEXT_KEYS.providers]: example,
      [CONTEXT_KEYS.environment]: JSON.stringify(keys),
    });
    // Act
    const stack = stackFrom(app, 'Example');
    app.synth();
    // Assert
    const resources = Template.fromStack(stack).toJSON().Resources as Resources;
    const callers = ['Parse pipeline: the ParsePage state', 'Parse pipeline: the Deliver state'];
    for (const [, fn] of functionsOf(resources)) {
      const variables = variablesOf(fn);
      if (callers.includes(fn.Properties.Description as string)) {
        expect(variables).toMatchObject(keys);
        expect(variables).not.toHaveProperty('PROVIDER_KEYS');
      } else {
        for (const name of Object.keys(keys)) expect(variables).not.toHaveProperty(name);
        expect(variables.PROVIDER_KEYS).toBe('withheld');
      }
      expect(typeof variables.PROVIDERS_JSON).toBe('string');
    }
  });

  it('fails the synth naming the problem when the file is not a valid configuration', () => {
    // Arrange: the pro tier names a provider the file does not define.
    const file = providersFile('bad-tier.json', {
      providers: { 'local-text': local },
      tiers: tiersOf(['local-text'], ['missing-one'], ['local-text']),
    });
    const app = appWith({ [CONTEXT_KEYS.providers]: file });
    // Act
    const act = () => stackFrom(app);
    // Assert
    expect(act).toThrow(
      /docparse:providers \(.*bad-tier\.json\) is not a valid provider configuration/,
    );
    expect(act).toThrow('tiers.pro.providers.0: tier pro names provider "missing-one"');
  });

  it('fails the synth when a key variable the file names is not in docparse:env', () => {
    // Arrange
    const file = providersFile('keyed.json', {
      providers: {
        'local-text': local,
        gpt: {
          kind: 'openai-compatible',
          model: 'gpt-4.1-mini',
          base_url: 'https://api.openai.com/v1',
          api_key_env: 'OPENAI_API_KEY',
        },
      },
      tiers: tiersOf(['local-text'], ['gpt'], ['gpt']),
    });
    const app = appWith({
      [CONTEXT_KEYS.providers]: file,
      [CONTEXT_KEYS.environment]: '{"MAX_UPLOAD_BYTES":"1048576"}',
    });
    // Act
    const act = () => stackFrom(app);
    // Assert
    expect(act).toThrow('providers.gpt.api_key_env: the variable OPENAI_API_KEY is not set');
    expect(act).toThrow(/set each named variable in docparse:env/);
  });

  it.each([
    ['does not exist', join('no', 'such', 'providers.json'), /cannot be read/],
    ['is not JSON', 'not json {', /is not JSON/],
  ])('fails the synth when the file %s', (_case, content, message) => {
    // Arrange
    const file = content.endsWith('.json')
      ? join(dir, content)
      : providersFile('text.json', content);
    const app = appWith({ [CONTEXT_KEYS.providers]: file });
    // Act / Assert
    expect(() => stackFrom(app)).toThrow(message);
  });

  it('fails the synth when docparse:env also sets PROVIDERS_JSON', () => {
    // Arrange
    const file = providersFile('both.json', awsProviders);
    const app = appWith({
      [CONTEXT_KEYS.providers]: file,
      [CONTEXT_KEYS.environment]: { PROVIDERS_JSON: JSON.stringify(awsProviders) },
    });
    // Act / Assert
    expect(() => stackFrom(app)).toThrow(/both configure the providers/);
  });

  it('fails the synth when docparse:env is not an object of strings', () => {
    // Arrange
    const app = appWith({ [CONTEXT_KEYS.environment]: '["MAX_UPLOAD_BYTES"]' });
    // Act / Assert
    expect(() => stackFrom(app)).toThrow(/docparse:env must be a JSON object of strings/);
  });
});

describe("the functions' environment", () => {
  /** A valid configuration of `count` HTTP providers, about 200 bytes each. */
  const manyProviders = (count: number) => {
    const ids = Array.from({ length: count }, (_, i) => `remote-${String(i).padStart(3, '0')}`);
    return {
      providers: Object.fromEntries(
        ids.map((id) => [
          id,
          {
            kind: 'openai-compatible',
            model: `vision-model-${id}`,
            base_url: `https://inference.example.com/${id}/v1`,
            timeout_ms: 90_000,
            price: { per_input_token_usd: 0.000001, per_output_token_usd: 0.000002 },
          },
        ]),
      ),
      tiers: tiersOf(ids, ids, ids),
    };
  };

  it('fails the synth when it would exceed 4 KB, naming the largest variable', () => {
    // Arrange
    const file = providersFile('large.json', manyProviders(20));
    const app = appWith({ [CONTEXT_KEYS.providers]: file });
    stackFrom(app, 'Large');
    // Act
    const act = () => app.synth();
    // Assert
    expect(act).toThrow(/over Lambda's limit of 4096 bytes \(4 KB/);
    expect(act).toThrow(/The largest variables: PROVIDERS_JSON \(\d+ bytes\)/);
  });

  it('fails the synth when docparse:env values alone are too large', () => {
    // Arrange
    const app = appWith({ [CONTEXT_KEYS.environment]: { API_KEYS: 'k'.repeat(4000) } });
    stackFrom(app, 'LargeEnv');
    // Act / Assert
    expect(() => app.synth()).toThrow(/The largest variables: API_KEYS/);
  });

  it('synthesizes a configuration that fits', () => {
    // Arrange
    const file = providersFile('fits.json', manyProviders(3));
    const app = appWith({ [CONTEXT_KEYS.providers]: file });
    stackFrom(app, 'Fits');
    // Act / Assert
    expect(() => app.synth()).not.toThrow();
  });
});

describe('permissions for AWS-hosted providers', () => {
  let resources: Resources;
  let defaultResources: Resources;

  beforeAll(() => {
    const file = providersFile('grants.json', awsProviders);
    resources = Template.fromStack(
      stackFrom(appWith({ [CONTEXT_KEYS.providers]: file }), 'Grants'),
    ).toJSON().Resources as Resources;
    defaultResources = Template.fromStack(stackFrom(appWith(), 'Default')).toJSON()
      .Resources as Resources;
  });

  const allActions = (res: Resources) =>
    Object.values(res)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
      .flatMap((s) => [s.Action].flat());

  it('let the page stage invoke exactly the configured Bedrock models', () => {
    // Act
    const parsePage = statementsOf(
      resources,
      functionIdOf(resources, 'Parse pipeline: the ParsePage state'),
    );
    const invoke = parsePage.filter((s) => [s.Action].flat().includes('bedrock:InvokeModel'));
    // Assert: the model id in its provider's Region; the EU profile in the stack's Region and
    // its model in whichever Region serves the call; nothing for the provider no tier uses.
    expect(invoke).toHaveLength(1);
    expect([invoke[0]?.Action].flat()).toEqual(['bedrock:InvokeModel']);
    expect([invoke[0]?.Resource].flat().map(flat).sort()).toEqual(
      [
        'arn:${AWS::Partition}:bedrock:us-east-1::foundation-model/amazon.nova-pro-v1:0',
        'arn:${AWS::Partition}:bedrock:${AWS::Region}:${AWS::AccountId}:inference-profile/eu.anthropic.claude-sonnet-4-20250514-v1:0',
        'arn:${AWS::Partition}:bedrock:*::foundation-model/anthropic.claude-sonnet-4-20250514-v1:0',
      ].sort(),
    );
  });

  it('let the page stage call Textract, on "*" as Textract has no resource-level permissions', () => {
    // Act
    const parsePage = statementsOf(
      resources,
      functionIdOf(resources, 'Parse pipeline: the ParsePage state'),
    );
    // Assert
    expect(parsePage).toContainEqual(
      expect.objectContaining({ Action: 'textract:AnalyzeDocument', Resource: '*' }),
    );
  });

  it('give the other functions neither Bedrock nor Textract', () => {
    // Act
    const others = functionsOf(resources).filter(
      ([, f]) => f.Properties.Description !== 'Parse pipeline: the ParsePage state',
    );
    // Assert: Route and Verify included (they call no provider).
    expect(others.length).toBeGreaterThan(5);
    for (const [id] of others) {
      const actions = statementsOf(resources, id).flatMap((s) => [s.Action].flat());
      expect(actions.filter((a) => /^(bedrock|textract):/.test(a))).toEqual([]);
    }
  });

  it('grant no "*" action', () => {
    // Act
    const actions = allActions(resources);
    // Assert
    expect(actions.filter((a) => a === '*' || a.endsWith(':*'))).toEqual([]);
  });

  it('are absent from the default stack and for configurations without such providers', () => {
    // Arrange: a configuration whose only Bedrock provider no tier uses.
    const file = providersFile('unused.json', {
      providers: { 'local-text': local, idle: awsProviders.providers.nova },
      tiers: tiersOf(['local-text'], ['local-text'], ['local-text']),
    });
    const unused = Template.fromStack(
      stackFrom(appWith({ [CONTEXT_KEYS.providers]: file }), 'Idle'),
    ).toJSON().Resources as Resources;
    // Act / Assert
    for (const res of [defaultResources, unused]) {
      expect(allActions(res).filter((a) => /^(bedrock|textract):/.test(a))).toEqual([]);
    }
  });

  it('pass the cdk-nag checks, each wildcard acknowledged with its reason', () => {
    // Arrange
    const file = providersFile('nag.json', awsProviders);
    const app = appWith({ [CONTEXT_KEYS.providers]: file });
    stackFrom(app, 'NagProviders');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // Act / Assert
    expect(() => app.synth()).not.toThrow();
  });

  it('grant the models of a cross-Region profile given as an ARN, in any Region', () => {
    // Arrange
    const profile =
      'arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.amazon.nova-lite-v1:0';
    const file = providersFile('arn.json', {
      providers: { 'local-text': local, lite: { kind: 'bedrock-converse', model: profile } },
      tiers: tiersOf(['local-text'], ['lite'], ['lite']),
    });
    const app = appWith({ [CONTEXT_KEYS.providers]: file });
    const stack = stackFrom(app, 'Arn');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // Act
    expect(() => app.synth()).not.toThrow();
    const res = Template.fromStack(stack).toJSON().Resources as Resources;
    const invoke = statementsOf(res, functionIdOf(res, 'Parse pipeline: the ParsePage state')).find(
      (s) => s.Action === 'bedrock:InvokeModel',
    );
    // Assert
    expect([invoke?.Resource].flat().map(flat).sort()).toEqual(
      [profile, 'arn:aws:bedrock:*::foundation-model/amazon.nova-lite-v1:0'].sort(),
    );
  });
});

describe('permissions for provider keys in Secrets Manager', () => {
  const completeArn =
    'arn:aws:secretsmanager:eu-west-1:123456789012:secret:docparse/anthropic-AbC123';
  const partialArn = 'arn:aws:secretsmanager:us-west-2:123456789012:secret:docparse/gemini';
  /** A secret name, a complete ARN, a partial ARN, a name shared by two providers, an unused one. */
  const secretProviders = {
    providers: {
      'local-text': local,
      gpt: {
        kind: 'openai-compatible',
        model: 'gpt-4.1-mini',
        base_url: 'https://api.openai.com/v1',
        api_key_secret: 'docparse/openai',
      },
      'gpt-large': {
        kind: 'openai-compatible',
        model: 'gpt-4.1',
        base_url: 'https://api.openai.com/v1',
        api_key_secret: 'docparse/openai',
      },
      claude: {
        kind: 'anthropic',
        model: 'claude-sonnet-4-5',
        base_url: 'https://api.anthropic.com',
        api_key_secret: completeArn,
        api_key_secret_field: 'key',
      },
      gemini: {
        kind: 'gemini',
        model: 'gemini-2.5-flash',
        base_url: 'https://generativelanguage.googleapis.com',
        api_key_secret: partialArn,
      },
      idle: {
        kind: 'mistral-ocr',
        model: 'mistral-ocr-latest',
        base_url: 'https://api.mistral.ai',
        api_key_secret: 'docparse/mistral',
      },
    },
    tiers: tiersOf(['local-text'], ['gemini', 'gpt', 'local-text'], ['claude', 'gpt-large']),
  };
  const parsePageOf = (res: Resources) =>
    statementsOf(res, functionIdOf(res, 'Parse pipeline: the ParsePage state'));
  const secretActions = (res: Resources) =>
    Object.values(res)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
      .flatMap((s) => [s.Action].flat())
      .filter((a) => a.startsWith('secretsmanager:'));

  it("let the page stage read exactly the secrets its tiers name, a name in the stack's Region and account, an ARN as given", () => {
    // Arrange
    const file = providersFile('secrets.json', secretProviders);
    // Act
    const res = Template.fromStack(
      stackFrom(appWith({ [CONTEXT_KEYS.providers]: file }), 'Secrets'),
    ).toJSON().Resources as Resources;
    // Assert: the shared name once; the idle provider's secret not at all.
    const read = parsePageOf(res).filter((s) =>
      [s.Action].flat().includes('secretsmanager:GetSecretValue'),
    );
    expect(read).toHaveLength(1);
    expect([read[0]?.Action].flat()).toEqual(['secretsmanager:GetSecretValue']);
    expect([read[0]?.Resource].flat().map(flat).sort()).toEqual(
      [
        'arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:docparse/openai-??????',
        completeArn,
        `${partialArn}-??????`,
      ].sort(),
    );
  });

  it('give no other function access to Secrets Manager', () => {
    // Arrange
    const file = providersFile('secrets-others.json', secretProviders);
    // Act
    const res = Template.fromStack(
      stackFrom(appWith({ [CONTEXT_KEYS.providers]: file }), 'SecretsOthers'),
    ).toJSON().Resources as Resources;
    // Assert
    const others = functionsOf(res).filter(
      ([, f]) => f.Properties.Description !== 'Parse pipeline: the ParsePage state',
    );
    expect(others.length).toBeGreaterThan(5);
    for (const [id] of others) {
      const actions = statementsOf(res, id).flatMap((s) => [s.Action].flat());
      expect(actions.filter((a) => a.startsWith('secretsmanager:'))).toEqual([]);
    }
  });

  it('let Deliver read exactly the secrets of the extraction chain, and ParsePage not those', () => {
    // Arrange: the idle Mistral provider (on no tier) extracts.
    const file = providersFile('secrets-extraction.json', {
      ...secretProviders,
      extraction: { providers: ['idle'] },
    });
    // Act
    const res = Template.fromStack(
      stackFrom(appWith({ [CONTEXT_KEYS.providers]: file }), 'SecretsExtraction'),
    ).toJSON().Resources as Resources;
    // Assert
    const reads = (statements: Statement[]) =>
      statements
        .filter((s) => [s.Action].flat().includes('secretsmanager:GetSecretValue'))
        .flatMap((s) => [s.Resource].flat().map(flat));
    const deliver = statementsOf(res, functionIdOf(res, 'Parse pipeline: the Deliver state'));
    expect(reads(deliver)).toEqual([
      'arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:docparse/mistral-??????',
    ]);
    expect(reads(parsePageOf(res)).join()).not.toContain('docparse/mistral');
  });

  it('grant the secret of the AWS example configuration', () => {
    // Arrange
    const example = join(import.meta.dirname, '../../config/providers.aws.json');
    const app = appWith({
      [CONTEXT_KEYS.providers]: example,
      [CONTEXT_KEYS.environment]: JSON.stringify({
        OPENAI_API_KEY: 'sk-test',
        GEMINI_API_KEY: 'gm-test',
        MISTRAL_API_KEY: 'ms-test',
      }),
    });
    // Act
    const res = Template.fromStack(stackFrom(app, 'ExampleSecrets')).toJSON()
      .Resources as Resources;
    // Assert
    const read = parsePageOf(res).find((s) => s.Action === 'secretsmanager:GetSecretValue');
    expect([read?.Resource].flat().map(flat)).toEqual([
      'arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:docparse/anthropic-??????',
    ]);
  });

  it('are absent without api_key_secret, and for a secret only an unused provider names', () => {
    // Arrange
    const envKeyed = providersFile('env-keyed.json', {
      providers: {
        'local-text': local,
        gpt: {
          kind: 'openai-compatible',
          model: 'gpt-4.1-mini',
          base_url: 'https://api.openai.com/v1',
          api_key_env: 'OPENAI_API_KEY',
        },
        idle: secretProviders.providers.idle,
      },
      tiers: tiersOf(['local-text'], ['gpt'], ['gpt']),
    });
    const stacks = [
      stackFrom(appWith(), 'NoSecretsDefault'),
      stackFrom(
        appWith({ [CONTEXT_KEYS.providers]: providersFile('aws-only.json', awsProviders) }),
        'NoSecretsAws',
      ),
      stackFrom(
        appWith({
          [CONTEXT_KEYS.providers]: envKeyed,
          [CONTEXT_KEYS.environment]: { OPENAI_API_KEY: 'sk-test' },
        }),
        'NoSecretsEnv',
      ),
    ];
    // Act
    const actions = stacks.map((stack) =>
      secretActions(Template.fromStack(stack).toJSON().Resources as Resources),
    );
    // Assert
    expect(actions).toEqual([[], [], []]);
  });

  it('pass the cdk-nag checks', () => {
    // Arrange
    const file = providersFile('secrets-nag.json', secretProviders);
    const app = appWith({ [CONTEXT_KEYS.providers]: file });
    stackFrom(app, 'NagSecrets');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // Act / Assert
    expect(() => app.synth()).not.toThrow();
  });
});
