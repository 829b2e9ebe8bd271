import type { PageParseRequest } from '../core/ports/page-provider.js';
import type { PageRasterizer, RasterPage } from '../engines/raster.js';
import { unavailable, type RemoteProviderSettings } from './remote-provider.js';

/**
 * What the AWS SDK adapters (Bedrock Converse, Textract) share: the attempt count of their
 * clients, their base class (settings, client, page image, one call under the deadline) and the
 * reason a failed call is reported with.
 */

/** The settings every AWS SDK adapter reads: no base URL, no API key (the SDK's chain has them). */
export type AwsSdkProviderSettings = Pick<
  RemoteProviderSettings,
  'id' | 'model' | 'timeoutMs' | 'maxRetries' | 'defaultDpi'
>;

/**
 * Base of the providers on an AWS SDK client: keeps the settings, the client and the rasterizer,
 * renders the page at the request's DPI (else `defaultDpi`), and runs one SDK call under the
 * whole-call deadline, its failure reported as {@link ProviderUnavailableError}.
 *
 * The client is built with `maxAttempts = maxRetries + 1` ({@link awsClientOptions}): the SDK
 * owns the retries, and every attempt checks the deadline's signal, so retries end there too.
 */
export abstract class AwsSdkProvider<Settings extends AwsSdkProviderSettings, Client> {
  readonly id: string;
  readonly model: string;
  protected readonly settings: Settings;
  protected readonly client: Client;
  protected readonly rasterizer: PageRasterizer;

  /**
   * @param client the SDK client, built with `maxAttempts = maxRetries + 1` (e.g. by
   *   `bedrockClient` or `textractClient`): the SDK owns the retries.
   * @param rasterizer gives the page image; called with the request's DPI or `defaultDpi`.
   */
  constructor(settings: Settings, client: Client, rasterizer: PageRasterizer) {
    this.id = settings.id;
    this.model = settings.model;
    this.settings = settings;
    this.client = client;
    this.rasterizer = rasterizer;
  }

  /**
   * The page at the request's DPI, else `defaultDpi`.
   * @throws {DocumentRejectedError} when the page cannot be rendered.
   */
  protected pageRaster(request: PageParseRequest): Promise<RasterPage> {
    return this.rasterizer.rasterize(
      request.document,
      request.pageNumber,
      request.dpi ?? this.settings.defaultDpi,
    );
  }

  /**
   * Runs one SDK call with the signal of the whole-call deadline (`timeoutMs`, retries included).
   * @param meanings what the service's error names mean, for the failure reason ({@link awsSdkFailure}).
   * @throws {ProviderUnavailableError} for any failure of the call.
   */
  protected async send<T>(
    call: (abortSignal: AbortSignal) => Promise<T>,
    meanings: Readonly<Record<string, string>>,
  ): Promise<T> {
    const { id, timeoutMs } = this.settings;
    try {
      return await call(AbortSignal.timeout(timeoutMs));
    } catch (error) {
      throw unavailable(id, awsSdkFailure(error, timeoutMs, meanings), error);
    }
  }
}

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
