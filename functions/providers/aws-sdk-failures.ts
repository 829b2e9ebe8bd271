/**
 * What the AWS SDK adapters (Bedrock Converse, Textract) share: the attempt count of their
 * clients and the reason a failed call is reported with.
 */

/**
 * `maxRetries + 1`: the SDK client's `maxAttempts`, so that the SDK's standard retry strategy
 * (exponential backoff with jitter on throttling, 5xx and network errors) owns the retries.
 * @throws {Error} when `maxRetries` is not a non-negative integer.
 */
export function attemptsFor(maxRetries: number): number {
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new Error(`maxRetries must be a non-negative integer; got ${maxRetries}`);
  }
  return maxRetries + 1;
}

/** Client options of an adapter: `maxAttempts` from its retries, and its region when given. */
export function awsClientOptions(
  settings: { maxRetries: number },
  region: string | undefined,
): { maxAttempts: number; region?: string } {
  return {
    maxAttempts: attemptsFor(settings.maxRetries),
    ...(region === undefined ? {} : { region }),
  };
}

/**
 * The reason of a failed SDK call: the deadline (the call's abort, or a socket timeout), or the
 * SDK error's name with its meaning from `meanings`, or the network error code; never the
 * service's message (it may quote the request).
 */
export function awsSdkFailure(
  error: unknown,
  timeoutMs: number,
  meanings: Readonly<Record<string, string>>,
): string {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  const errorName = typeof name === 'string' ? name : 'Error';
  if (['AbortError', 'TimeoutError', 'RequestTimeout'].includes(errorName)) {
    return `no answer within ${timeoutMs} ms (${errorName})`;
  }
  const meaning = Object.hasOwn(meanings, errorName) ? meanings[errorName] : undefined;
  if (meaning) return `${meaning} (${errorName})`;
  return typeof code === 'string' ? `network error ${code}` : `request failed (${errorName})`;
}
