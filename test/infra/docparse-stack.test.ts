import type { CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { serviceTable } from '../../functions/adapters/aws/service-table.js';
import { DocumentStorage } from '../../lib/constructs/document-storage.js';
import { DocparseStack } from '../../lib/docparse-stack.js';
import { unbundledApp } from '../support/cdk-app.js';

let stack: DocparseStack;
let template: Template;

beforeAll(() => {
  const app = unbundledApp();
  stack = new DocparseStack(app, 'DocparseTest');
  template = Template.fromStack(stack);
});

describe('DocparseStack storage', () => {
  it('creates the service table with the key schema of serviceTable()', () => {
    // Arrange
    const def = serviceTable('any');
    // Assert
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: def.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: def.sortKey.name, KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: def.partitionKey.name, AttributeType: 'S' },
        { AttributeName: def.sortKey.name, AttributeType: 'S' },
      ]),
    });
  });

  it('bills the table per request with point-in-time recovery and the TTL attribute', () => {
    // Assert
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: {
        AttributeName: serviceTable('any').timeToLiveAttribute,
        Enabled: true,
      },
    });
  });

  it.each([
    ['document bucket', (s: DocparseStack) => s.storage.bucket.node.defaultChild],
    ['access-log bucket', (s: DocparseStack) => s.storage.accessLogs.node.defaultChild],
    ['service table', (s: DocparseStack) => s.storage.table.node.defaultChild],
  ])('retains the %s when the stack is deleted or the resource replaced', (_name, resourceOf) => {
    // Arrange
    const id = stack.getLogicalId(resourceOf(stack) as CfnElement);
    // Act
    const resources = template.toJSON() as { Resources: Record<string, unknown> };
    const resource = resources.Resources[id];
    // Assert
    expect(resource).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('blocks all public access to every bucket and encrypts it', () => {
    // Act
    const buckets = Object.entries(template.findResources('AWS::S3::Bucket'));
    // Assert
    expect(buckets.length).toBeGreaterThanOrEqual(3);
    for (const [id, bucket] of buckets) {
      expect({ id, ...(bucket as { Properties: object }).Properties }).toMatchObject({
        id,
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [
            { ServerSideEncryptionByDefault: { SSEAlgorithm: expect.any(String) as string } },
          ],
        },
      });
    }
  });

  it('lets browsers POST presigned upload forms to the bucket, and nothing else cross-origin', () => {
    // Assert
    template.hasResourceProperties('AWS::S3::Bucket', {
      CorsConfiguration: {
        CorsRules: [Match.objectLike({ AllowedMethods: ['POST'], AllowedOrigins: ['*'] })],
      },
    });
  });

  it('denies every request to any bucket that is not over TLS', () => {
    // Arrange
    const denyWithoutTls = Match.objectLike({
      Effect: 'Deny',
      Action: 's3:*',
      Principal: { AWS: '*' },
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
    });
    // Act
    const bucketIds = Object.keys(template.findResources('AWS::S3::Bucket'));
    // Assert
    for (const id of bucketIds) {
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: { Statement: Match.arrayWith([denyWithoutTls]) },
      });
    }
  });

  it('expires uploads, intermediate work, results and incoming objects after seven days', () => {
    // Act
    // The service bucket is the one whose access logs go under bucket/.
    const buckets = template.findResources('AWS::S3::Bucket', {
      Properties: { LoggingConfiguration: { LogFilePrefix: 'bucket/' } },
    });
    expect(Object.keys(buckets)).toHaveLength(1);
    const rules = Object.values(buckets).flatMap(
      (b) =>
        (b as { Properties: { LifecycleConfiguration?: { Rules: Record<string, unknown>[] } } })
          .Properties.LifecycleConfiguration?.Rules ?? [],
    );
    // Assert
    expect(rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Prefix: 'uploads/', ExpirationInDays: 7, Status: 'Enabled' }),
        expect.objectContaining({ Prefix: 'work/', ExpirationInDays: 7, Status: 'Enabled' }),
        expect.objectContaining({ Prefix: 'results/', ExpirationInDays: 7, Status: 'Enabled' }),
        expect.objectContaining({ Prefix: 'incoming/', ExpirationInDays: 7, Status: 'Enabled' }),
      ]),
    );
    // No rule for the whole bucket.
    expect(rules.some((r) => r.Prefix === undefined)).toBe(false);
  });
});

describe('DocumentStorage', () => {
  it('uses the configured retention for the lifecycle rules', () => {
    // Arrange
    const app = unbundledApp();
    const stack = new DocparseStack(app, 'Custom');
    new DocumentStorage(stack, 'Short', { retentionDays: 2 });
    // Act
    const custom = Template.fromStack(stack);
    // Assert
    custom.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ Prefix: 'work/', ExpirationInDays: 2 })]),
      },
    });
  });

  it.each([0, -1, 1.5])('throws for an expiry of %s days', (days) => {
    // Arrange
    const app = unbundledApp();
    const stack = new DocparseStack(app, `Bad${String(days).replace(/\W/g, '')}`);
    // Act
    const act = () => new DocumentStorage(stack, 'Bad', { retentionDays: days });
    // Assert
    expect(act).toThrow('retentionDays must be a whole number of days, at least 1');
  });
});

describe('DocparseStack playground site', () => {
  it('serves the page from a private bucket and the API paths from API Gateway, uncached, on one origin', () => {
    // Arrange
    const distribution = Object.values(template.findResources('AWS::CloudFront::Distribution'));
    const config = (distribution[0] as { Properties: { DistributionConfig: DistributionConfig } })
      .Properties.DistributionConfig;
    const originOf = (id: string) => config.Origins.find((o) => o.Id === id);
    const restApi = Object.keys(template.findResources('AWS::ApiGateway::RestApi'))[0]!;
    // Assert
    expect(distribution).toHaveLength(1);
    expect(config.DefaultRootObject).toBe('index.html');
    expect(
      originOf(config.DefaultCacheBehavior.TargetOriginId)?.OriginAccessControlId,
    ).toBeDefined();
    const apiPaths = config.CacheBehaviors.map((b) => b.PathPattern).sort();
    expect(apiPaths).toEqual(['/docs', '/docs/*', '/health', '/v1/*']);
    for (const behavior of config.CacheBehaviors) {
      expect(JSON.stringify(originOf(behavior.TargetOriginId)?.DomainName)).toContain(restApi);
      expect(behavior.AllowedMethods).toContain('POST');
      // CachingDisabled: API answers are never cached.
      expect(behavior.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    }
    template.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: {
        SecurityHeadersConfig: {
          ContentSecurityPolicy: {
            ContentSecurityPolicy: Match.stringLikeRegexp("^default-src 'self'"),
          },
        },
      },
    });
    template.resourceCountIs('Custom::CDKBucketDeployment', 1);
  });
});

interface DistributionConfig {
  DefaultRootObject: string;
  Origins: { Id: string; DomainName: unknown; OriginAccessControlId?: unknown }[];
  DefaultCacheBehavior: { TargetOriginId: string };
  CacheBehaviors: {
    PathPattern: string;
    TargetOriginId: string;
    AllowedMethods: string[];
    CachePolicyId: string;
  }[];
}
