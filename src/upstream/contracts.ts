/** What the gateway relies on from the upstream layer (token/manager.ts, http/client.ts). */

/** Query parameters of a GET; `undefined` values are left out. */
export type UpstreamQuery = Record<string, string | number | undefined>;

export interface UpstreamRequestOptions {
  /** Aborts the call wherever it waits: rejects at once with `UPSTREAM_UNAVAILABLE`, no further attempt. */
  signal?: AbortSignal;
}

/** The one shared upstream token, for every client of the gateway. */
export interface TokenManager {
  /**
   * A valid access token, cached or requested once for all concurrent callers. Rejects with
   * `UPSTREAM_AUTH_FAILED` or `UPSTREAM_UNAVAILABLE`, at once while backing off after a failure.
   */
  getToken(): Promise<string>;
  /**
   * The upstream refused `token`: forgotten only if still current, so many callers with one old
   * token cause one refresh. A second refusal in a row before any `accepted` counts as a failure.
   */
  invalidate(token: string): void;
  /** The upstream accepted `token`: ends a row of refusals, so the next backoff starts short. */
  accepted?(token: string): void;
  /** Token requests made so far. */
  readonly tokenRequests: number;
  /** `text` with the secret, in every form, and the tokens held replaced by `[redacted]`. */
  redact?(text: string): string;
  /** The token as readiness reports it, without a request. */
  state?(): TokenState;
  close(): Promise<void>;
}

/** `failing`: the last token request failed (or fresh tokens were refused), with its `code`. */
export type TokenState = { token: 'ok' | 'pending' | 'none' } | { token: 'failing'; code: string };

export interface UpstreamClient {
  /**
   * GET `path` with `query` and the shared token: the envelope's `result` when `code` is 0, else
   * an `UpstreamError`. Transient failures are retried; a failing path's circuit opens. A refused
   * token is replaced and the call tried again once.
   */
  get(path: string, query?: UpstreamQuery, options?: UpstreamRequestOptions): Promise<unknown>;
  /** The circuit state of every path called so far. */
  breakerStates(): Record<string, 'closed' | 'open' | 'half-open'>;
  /** The token manager the client uses (readiness reads its state). */
  readonly tokens: TokenManager;
  close(): Promise<void>;
}
