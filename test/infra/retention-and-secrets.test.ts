import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TTL_ATTRIBUTE } from '../../functions/adapters/aws/service-table.js';
import { EXPIRING_PREFIXES as LOCAL_EXPIRING_PREFIXES } from '../../functions/adapters/local/retention.js';
import { EXPIRING_PREFIXES } from '../../lib/constructs/document-storage.js';
import { ServiceFunction } from '../../lib/constructs/service-function.js';
import { CONTEXT_KEYS, deployContext, retentionFrom } from '../../lib/deploy-context.js';
import { DocparseStack } from '../../lib/docparse-stack.js';
import { unbundledApp } from '../support/cdk-app.js';

type Resource = { Type: string; Properties: Record<string, unknown> };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'docparse-retention-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The stack as `bin/app.ts` builds it, from the app's context. */
function stackWith(id: string, context: Record<string, unknown> = {}): DocparseStack {
  const app = unbundledApp(context);
  return new DocparseStack(app, id, { ...deployContext(app) });
}

/** The logical id CloudFormation gives a construct's resource. */
function logicalIdOf(construct: IConstruct): string {
  const stack = Stack.of(construct);
  return stack.resolve(stack.getLogicalId(construct.node.defaultChild as CfnElement)) as string;
}

/** The resource of a construct in the stack's template, by its logical id. */
function resourceOf(stack: Stack, construct: IConstruct): Resource {
  const resources = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
  const resource = resources[logicalIdOf(construct)];
  if (!resource) throw new Error(`no resource ${logicalIdOf(construct)}`);
  return resource;
}

/** Every service function of the stack, by construct path. */
function serviceFunctions(stack: Stack): Map<string, ServiceFunction> {
  return new Map(
    stack.node
      .findAll()
      .filter((c): c is ServiceFunction => c instanceof ServiceFunction)
      .map((fn) => [fn.node.path, fn]),
  );
}

function variablesOf(stack: Stack, fn: ServiceFunction): Record<string, unknown> {
  return (resourceOf(stack, fn).Properties.Environment as { Variables: Record<string, unknown> })
    .Variables;
}

function lifecycleOf(stack: DocparseStack): { Prefix?: string; ExpirationInDays?: number }[] {
  const config = resourceOf(stack, stack.storage.bucket).Properties.LifecycleConfiguration as {
    Rules: { Prefix?: string; ExpirationInDays?: number }[];
  };
  return config.Rules;
}

describe('retention: one setting for the bucket and the table', () => {
  it('turns on the table TTL on expiresAt, the attribute the adapters write', () => {
    // Arrange
    const stack = stackWith('RetentionTable');
    // Act
    const table = resourceOf(stack, stack.storage.table);
    // Assert
    expect(table.Properties.TimeToLiveSpecification).toEqual({
      AttributeName: TTL_ATTRIBUTE,
      Enabled: true,
    });
  });

  it('expires uploads/, work/, results/ and incoming/ after 7 days, and tells every function RETENTION_DAYS=7', () => {
    // Arrange
    const stack = stackWith('RetentionDefault');
    // Act
    const rules = lifecycleOf(stack);
    const variables = [...serviceFunctions(stack).values()].map(
      (fn) => variablesOf(stack, fn).RETENTION_DAYS,
    );
    // Assert
    expect(rules.map((r) => [r.Prefix, r.ExpirationInDays])).toEqual([
      ['uploads/', 7],
      ['work/', 7],
      ['results/', 7],
      ['incoming/', 7],
    ]);
    expect(variables.length).toBeGreaterThan(20);
    expect(new Set(variables)).toEqual(new Set(['7']));
  });

  it('takes both the lifecycle days and RETENTION_DAYS from docparse:retentionDays', () => {
    // Arrange
    const stack = stackWith('RetentionThirty', { [CONTEXT_KEYS.retentionDays]: '30' });
    // Act
    const days = lifecycleOf(stack).map((r) => r.ExpirationInDays);
    const variables = [...serviceFunctions(stack).values()].map(
      (fn) => variablesOf(stack, fn).RETENTION_DAYS,
    );
    // Assert
    expect(days).toEqual([30, 30, 30, 30]);
    expect(new Set(variables)).toEqual(new Set(['30']));
  });

  it('expires locally the prefixes the stack expires', () => {
    expect([...LOCAL_EXPIRING_PREFIXES]).toEqual([...EXPIRING_PREFIXES]);
  });

  it.each([['0'], ['1.5'], ['a week'], [-3]])(
    'throws for docparse:retentionDays=%s, naming the key',
    (value) => {
      // Arrange
      const app = unbundledApp({ [CONTEXT_KEYS.retentionDays]: value });
      // Act
      const act = () => retentionFrom(app);
      // Assert
      expect(act).toThrow(/docparse:retentionDays must be a whole number of days/);
    },
  );

  it('throws when docparse:env sets another RETENTION_DAYS than docparse:retentionDays', () => {
    // Act
    const act = () =>
      stackWith('RetentionConflict', {
        [CONTEXT_KEYS.environment]: { RETENTION_DAYS: '14' },
      });
    // Assert
    expect(act).toThrow(
      /RETENTION_DAYS of docparse:env \(14\) differs from docparse:retentionDays/,
    );
  });
});

describe('provider keys: only on the functions that call providers', () => {
  const keyed = {
    providers: {
      'local-text': { kind: 'local-text' },
      gpt: {
        kind: 'openai-compatible',
        model: 'gpt-4.1-mini',
        base_url: 'https://api.openai.com/v1',
        api_key_env: 'OPENAI_API_KEY',
      },
    },
    tiers: {
      fast: { providers: ['local-text'], price_per_page_usd: 0.001 },
      pro: { providers: ['gpt'], price_per_page_usd: 0.01 },
      premium: { providers: ['gpt'], price_per_page_usd: 0.03 },
    },
    extraction: { providers: ['gpt'] },
  };

  function keyedStack(id: string): DocparseStack {
    const file = join(dir, `${id}.json`);
    writeFileSync(file, JSON.stringify(keyed));
    return stackWith(id, {
      [CONTEXT_KEYS.providers]: file,
      [CONTEXT_KEYS.environment]: { OPENAI_API_KEY: 'sk-test', MAX_DOCUMENT_PAGES: '500' },
    });
  }

  it('sets an api_key_env key on ParsePage and Deliver only; the others get PROVIDER_KEYS=withheld', () => {
    // Arrange
    const stack = keyedStack('KeysSplit');
    const callers = new Set<ServiceFunction>([
      stack.pipeline.functions.ParsePage as ServiceFunction,
      stack.pipeline.functions.Deliver as ServiceFunction,
    ]);
    // Act
    const byFunction = [...serviceFunctions(stack)].map(([path, fn]) => {
      const variables = variablesOf(stack, fn);
      return {
        path,
        caller: callers.has(fn),
        key: variables.OPENAI_API_KEY,
        withheld: variables.PROVIDER_KEYS,
        shared: variables.MAX_DOCUMENT_PAGES,
      };
    });
    // Assert
    expect(byFunction.filter((f) => f.caller).map((f) => [f.key, f.withheld])).toEqual([
      ['sk-test', undefined],
      ['sk-test', undefined],
    ]);
    const others = byFunction.filter((f) => !f.caller);
    expect(others.length).toBeGreaterThan(20);
    for (const other of others) {
      expect(other, other.path).toMatchObject({ key: undefined, withheld: 'withheld' });
    }
    // The rest of docparse:env still reaches every function.
    expect(new Set(byFunction.map((f) => f.shared))).toEqual(new Set(['500']));
  });

  it('never gives the API, the queue consumers or the other stages a key (live, docs, openapi included)', () => {
    // Arrange
    const stack = keyedStack('KeysApi');
    // Act
    const apiKeys = [...stack.api.functions.entries()].map(([entry, fn]) => [
      entry,
      variablesOf(stack, fn).OPENAI_API_KEY,
    ]);
    // Assert
    expect(apiKeys.filter(([, key]) => key !== undefined)).toEqual([]);
    expect(apiKeys.map(([entry]) => entry)).toEqual(
      expect.arrayContaining(['live.handler.ts', 'docs.handler.ts', 'openapi.handler.ts']),
    );
  });

  it('warns at synth that api_key_env keys belong in Secrets Manager', () => {
    // Arrange
    const stack = keyedStack('KeysWarning');
    // Act
    const warnings = Annotations.fromStack(stack).findWarning(
      '*',
      Match.stringLikeRegexp('api_key_env'),
    );
    // Assert
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0]?.entry.data)).toMatch(
      /gpt \(OPENAI_API_KEY\).*ParsePage and Deliver.*api_key_secret/,
    );
  });

  it('sets no PROVIDER_KEYS and warns of nothing without api_key_env providers', () => {
    // Arrange
    const stack = stackWith('KeysNone');
    // Act
    const withheld = [...serviceFunctions(stack).values()].filter(
      (fn) => variablesOf(stack, fn).PROVIDER_KEYS !== undefined,
    );
    // Assert
    expect(withheld).toEqual([]);
    expect(
      Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('api_key_env')),
    ).toEqual([]);
  });

  it('passes the cdk-nag checks', () => {
    // Arrange
    const file = join(dir, 'nag.json');
    writeFileSync(file, JSON.stringify(keyed));
    const app = unbundledApp({
      [CONTEXT_KEYS.providers]: file,
      [CONTEXT_KEYS.environment]: { OPENAI_API_KEY: 'sk-test' },
      [CONTEXT_KEYS.retentionDays]: 30,
    });
    new DocparseStack(app, 'KeysNag', { ...deployContext(app) });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // Act / Assert
    expect(() => app.synth()).not.toThrow();
  });
});

describe('webhook signing secrets: only for the functions that sign or show them', () => {
  interface Statement {
    Effect: string;
    Action: string | string[];
    Condition?: Record<string, Record<string, unknown>>;
  }

  /** Every statement of the policies attached to the role of `fn`. */
  function statementsOf(stack: Stack, fn: ServiceFunction): Statement[] {
    const role = fn.role;
    if (!role) throw new Error(`${fn.node.path} has no role`);
    const roleId = logicalIdOf(role);
    const resources = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
    return Object.values(resources)
      .filter(
        (r) =>
          r.Type === 'AWS::IAM::Policy' &&
          (r.Properties.Roles as { Ref?: string }[]).some((ref) => ref.Ref === roleId),
      )
      .flatMap((r) => (r.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  }

  const deniesSecrets = (statements: Statement[]) =>
    statements.some(
      (s) =>
        s.Effect === 'Deny' &&
        Object.keys(s.Condition ?? {}).join() === 'ForAnyValue:StringLike' &&
        JSON.stringify(
          [s.Condition?.['ForAnyValue:StringLike']?.['dynamodb:LeadingKeys']].flat(),
        ) === JSON.stringify(['WHSEC#*']) &&
        ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'].every(
          (action) => [s.Action].flat().includes(action),
        ),
    );

  it('denies the WHSEC# items to every role with table access but the deliverer and GET /v1/webhooks/secret', () => {
    // Arrange
    const stack = stackWith('SecretsDenied');
    const allowed = new Set<ServiceFunction>([
      stack.queues.webhookFunction,
      stack.api.functions.get('webhook-secret.handler.ts') as ServiceFunction,
    ]);
    // Act
    const byFunction = [...serviceFunctions(stack)].map(([path, fn]) => {
      const statements = statementsOf(stack, fn);
      const usesTable = statements.some(
        (s) => s.Effect === 'Allow' && [s.Action].flat().includes('dynamodb:GetItem'),
      );
      return { path, allowed: allowed.has(fn), usesTable, denied: deniesSecrets(statements) };
    });
    // Assert
    expect(byFunction.filter((f) => f.allowed).map((f) => [f.usesTable, f.denied])).toEqual([
      [true, false],
      [true, false],
    ]);
    const others = byFunction.filter((f) => !f.allowed && f.usesTable);
    expect(others.length).toBeGreaterThan(20);
    for (const other of others) expect(other, other.path).toMatchObject({ denied: true });
    // ParsePage, which reads hostile documents, is among them.
    expect(
      deniesSecrets(statementsOf(stack, stack.pipeline.functions.ParsePage as ServiceFunction)),
    ).toBe(true);
  });
});
