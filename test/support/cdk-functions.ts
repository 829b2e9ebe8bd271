/**
 * True for the Lambda functions CDK adds for its own custom resources (bucket notifications, the
 * playground site's deployment, emptying its bucket), by logical id: the infrastructure tests
 * check the service's own functions only.
 */
export function isCdkProvided(logicalId: string): boolean {
  return [
    'BucketNotificationsHandler',
    'CustomCDKBucketDeployment',
    'CustomS3AutoDeleteObjects',
  ].some((prefix) => logicalId.startsWith(prefix));
}
