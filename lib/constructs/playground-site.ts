import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { DockerImage, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { PLAYGROUND_CONTENT_SECURITY_POLICY } from '../../web/build.js';
import { acknowledge, nagEnvironment } from './acknowledge.js';
import { PROJECT_ROOT } from './service-function.js';

export interface PlaygroundSiteProps {
  /** The API the page calls, served by the same distribution under `/v1/*` and `/docs*`. */
  readonly api: apigateway.RestApi;
  /** Where the site bucket's server access logs go. */
  readonly accessLogs: s3.IBucket;
  /**
   * ARN of a CLOUDFRONT-scoped WAFv2 web ACL for the distribution.
   * @default - none
   */
  readonly webAclArn?: string;
}

/** API paths the distribution forwards to API Gateway (everything else is the static site). */
const API_PATHS = ['/v1/*', '/docs', '/docs/*', '/health'] as const;

/**
 * The playground as a static site: the page built from `web/playground` (esbuild, at synth, from
 * the local install) in a private bucket, behind a CloudFront distribution that also forwards
 * the API's paths to API Gateway, so the page and the API share one origin (no CORS) and the
 * page's Content-Security-Policy can stay `'self'`. API responses are never cached; request
 * headers (the API key among them) and bodies are forwarded as they are, and Server-Sent Events
 * pass through (the origin read timeout, 60 s, is above the 15 s heartbeat).
 */
export class PlaygroundSite extends Construct {
  readonly distribution: cloudfront.Distribution;
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: PlaygroundSiteProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: 'playground/',
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });
    const headers = new cloudfront.ResponseHeadersPolicy(this, 'Headers', {
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: PLAYGROUND_CONTENT_SECURITY_POLICY,
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        referrerPolicy: {
          referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER,
          override: true,
        },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
      },
    });
    const api = new origins.RestApiOrigin(props.api, { readTimeout: Duration.seconds(60) });
    const apiBehavior: cloudfront.BehaviorOptions = {
      origin: api,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      compress: false,
    };
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'docparse playground and API',
      defaultRootObject: 'index.html',
      ...(props.webAclArn ? { webAclId: props.webAclArn } : {}),
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
      },
      additionalBehaviors: Object.fromEntries(API_PATHS.map((path) => [path, apiBehavior])),
    });
    const deployment = new s3deploy.BucketDeployment(this, 'Deploy', {
      sources: [playgroundSource()],
      destinationBucket: this.bucket,
      distribution: this.distribution,
      distributionPaths: ['/*'],
      memoryLimit: 512,
    });
    // The deployment's function is a stack-level singleton: its findings are acknowledged there.
    const deployer = Stack.of(this)
      .node.children.filter((child) => child.node.id.startsWith('Custom::CDKBucketDeployment'))
      .concat(deployment.handlerRole);
    const findings = [...SITE_FINDINGS, ...deployerFindings(this.bucket)];
    for (const scope of [this, ...deployer]) acknowledge(scope, findings);
  }
}

/**
 * The deployment function's wildcard grants, each acknowledged by its exact finding id: it reads
 * the CDK asset bucket and writes and deletes objects of the site bucket.
 */
function deployerFindings(bucket: s3.Bucket): { id: string; reason: string }[] {
  const stack = Stack.of(bucket);
  const { partition, region, account } = nagEnvironment(stack);
  const siteBucket = stack.getLogicalId(bucket.node.defaultChild as s3.CfnBucket);
  const reason =
    'The CDK-provided deployment function copies the site from the CDK asset bucket into the site bucket (object wildcards of the two buckets; CloudFront invalidation has no resource-level permissions).';
  return [
    ...['Abort*', 'DeleteObject*', 'GetBucket*', 'GetObject*', 'List*'].map(
      (a) => `Action::s3:${a}`,
    ),
    'Resource::*',
    `Resource::<${siteBucket}.Arn>/*`,
    `Resource::arn:${partition}:s3:::cdk-hnb659fds-assets-${account}-${region}/*`,
  ].map((detail) => ({ id: `AwsSolutions-IAM5[${detail}]`, reason }));
}

/** cdk-nag findings of the site, with their reasons. */
const SITE_FINDINGS = [
  {
    id: 'AwsSolutions-CFR1',
    reason: 'The playground and API serve every country the API itself serves.',
  },
  {
    id: 'AwsSolutions-CFR2',
    reason:
      'Requests are authenticated by API key and rate limited per key by the service; a WAF web ACL is a deployment choice (attach one with webAclId).',
  },
  {
    id: 'AwsSolutions-CFR3',
    reason:
      'API requests are logged by API Gateway access logs and the static files by the bucket’s server access logs.',
  },
  {
    id: 'AwsSolutions-CFR4',
    reason:
      'The default CloudFront certificate (*.cloudfront.net) allows only the TLSv1 policy; a custom domain with its own certificate enforces TLS 1.2.',
  },
  {
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason:
      'The CDK-provided custom resources that copy the site and empty its bucket use AWSLambdaBasicExecutionRole.',
  },
  {
    id: 'AwsSolutions-IAM5',
    reason:
      'The CDK-provided deployment function reads the asset bucket and writes the site bucket by object wildcards.',
  },
  {
    id: 'AwsSolutions-L1',
    reason: 'The runtime of the CDK-provided deployment functions is chosen by aws-cdk-lib.',
  },
];

/**
 * The built playground as a deployment source: `web/build.ts` run at synth in this checkout
 * (local bundling; no container is needed where Node and the project's packages are installed).
 */
function playgroundSource(): s3deploy.ISource {
  return s3deploy.Source.asset(join(PROJECT_ROOT, 'web'), {
    bundling: {
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22'),
      local: {
        tryBundle(outputDir: string): boolean {
          execFileSync(
            process.execPath,
            ['--import', 'tsx', join(PROJECT_ROOT, 'lib/bundling/write-playground.ts'), outputDir],
            { cwd: PROJECT_ROOT, stdio: 'inherit' },
          );
          return true;
        },
      },
    },
  });
}
