import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

export interface ApiWebAclProps {
  /**
   * Where the web ACL is used: `REGIONAL` for the API Gateway stage, `CLOUDFRONT` for the
   * distribution (such an ACL can only be created in us-east-1).
   */
  readonly scope: 'REGIONAL' | 'CLOUDFRONT';
  /** Requests one client address may send in any 5 minutes before it is blocked (at least 10). */
  readonly rateLimit: number;
}

/** The answer to a blocked request: the service's 429 and error body (spec §7). */
const RATE_LIMITED_BODY = JSON.stringify({
  detail: 'too many requests from this address; wait a few minutes and retry',
});

/**
 * A WAFv2 web ACL that lets everything through except the requests of a client address past
 * `rateLimit` in any 5 minutes, answered 429 with the service's `{"detail": …}` body. It stops
 * a flood before API Gateway bills it and before any Lambda runs; the stage's throttles cap the
 * total, this caps each address. Its requests and blocks are CloudWatch metrics (`docparse-*`).
 */
export class ApiWebAcl extends Construct {
  readonly webAcl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: ApiWebAclProps) {
    super(scope, id);
    if (!Number.isInteger(props.rateLimit) || props.rateLimit < 10) {
      throw new Error(
        `rateLimit must be an integer of at least 10; got ${String(props.rateLimit)}`,
      );
    }
    const metric = (name: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName: `docparse-${props.scope.toLowerCase()}-${name}`,
      sampledRequestsEnabled: true,
    });
    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: props.scope,
      description: 'docparse API: per-address rate limit',
      defaultAction: { allow: {} },
      visibilityConfig: metric('api'),
      customResponseBodies: {
        RateLimited: { contentType: 'APPLICATION_JSON', content: RATE_LIMITED_BODY },
      },
      rules: [
        {
          name: 'RatePerAddress',
          priority: 0,
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: 'RateLimited',
                responseHeaders: [{ name: 'Retry-After', value: '300' }],
              },
            },
          },
          statement: {
            rateBasedStatement: {
              limit: props.rateLimit,
              aggregateKeyType: 'IP',
              evaluationWindowSec: 300,
            },
          },
          visibilityConfig: metric('rate-per-address'),
        },
      ],
    });
  }

  /** Attaches the ACL to a regional resource (an API Gateway stage, by its ARN). */
  associate(id: string, resourceArn: string): wafv2.CfnWebACLAssociation {
    return new wafv2.CfnWebACLAssociation(this, id, {
      resourceArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
