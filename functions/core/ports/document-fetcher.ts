/** A document downloaded from a caller-supplied URL. */
export interface FetchedDocument {
  /** The body, at most `maxBytes` long. Its format is not checked yet: the core sniffs magic bytes. */
  bytes: Uint8Array;
  /** The media type the origin declared, lower-cased and without parameters (`application/pdf`). */
  contentType: string | null;
  /** The URL the bytes came from, after redirects. */
  finalUrl: string;
  /** From `Content-Disposition`, else the last segment of the final URL's path; never a path. */
  filename: string | null;
}

/**
 * Downloads documents from URLs the caller supplies (`POST /v1/parse`'s `file_url`, later webhook
 * targets) without letting the URL reach the service's own network: only public unicast
 * addresses over HTTPS on port 443, checked again on every redirect hop.
 */
export interface DocumentFetcher {
  /**
   * Downloads `url`, following at most a few redirects.
   *
   * @throws {UrlRefusedError} when the URL or one of its redirects is not allowed (scheme, port,
   *   credentials, host, address class), there are too many redirects, the origin answers with a
   *   non-2xx status or an HTML page, or the download times out or cannot connect.
   * @throws {PayloadTooLargeError} when the body is longer than `options.maxBytes`.
   */
  fetch(url: string, options: { maxBytes: number }): Promise<FetchedDocument>;
}
