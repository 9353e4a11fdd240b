/**
 * The shapes the rest of the gateway relies on from the upstream layer. Implementations:
 * `createTokenManager` (token/manager.ts) and `createUpstreamClient` (http/client.ts).
 */

/** Query parameters of a GET; `undefined` values are left out. */
export type UpstreamQuery = Record<string, string | number | undefined>;

export interface UpstreamRequestOptions {
  /**
   * Aborts the call (the caller gave up, or its deadline passed): rejects at once with
   * `UPSTREAM_UNAVAILABLE`, whether the call waits for a token, in the queue, in a backoff pause
   * or on the network, and makes no further attempt.
   */
  signal?: AbortSignal;
}

/** The one shared upstream token, for every client of the gateway. */
export interface TokenManager {
  /**
   * A valid access token: the cached one, or a new one from the token endpoint. Any number of
   * concurrent callers while no valid token exists share one token request (single flight).
   * Rejects with `UPSTREAM_AUTH_FAILED` (credentials refused) or `UPSTREAM_UNAVAILABLE`. After a
   * failed token request, rejects at once with an error of the same code, without a request,
   * until a backoff has passed (see `TokenManagerOptions.failureBackoffMs`).
   */
  getToken(): Promise<string>;
  /**
   * The upstream refused `token`: forget it if, and only if, it is still the current one; a
   * token that was already replaced is ignored, so 50 callers failing with the same old token
   * cause one refresh. The second token in a row refused before any was `accepted` counts as a
   * failed token request: `getToken` backs off (and rejects with `UPSTREAM_AUTH_FAILED`)
   * meanwhile, so an upstream that refuses every token costs a bounded number of token requests.
   */
  invalidate(token: string): void;
  /**
   * The upstream accepted `token` (an answer came back with it): ends a row of refusals, so the
   * backoff after the next failure starts short again. Optional for stand-ins in tests.
   */
  accepted?(token: string): void;
  /** Token requests made so far (for metrics and tests). */
  readonly tokenRequests: number;
  /**
   * `text` with the client secret, in every form it travels in, and the tokens held replaced by
   * `[redacted]`: for text the upstream writes back (an envelope's `msg`). Optional for stand-ins.
   */
  redact?(text: string): string;
  /** The token as readiness reports it, without a request (see `TokenState`). Optional for stand-ins. */
  state?(): TokenState;
  close(): Promise<void>;
}

/**
 * `ok`: a token is held; `pending`: none, one is being requested; `none`: none, none asked for
 * yet; `failing`: the last token request failed (or the upstream refused fresh tokens), with
 * that failure's `code`, until a token is obtained.
 */
export type TokenState = { token: 'ok' | 'pending' | 'none' } | { token: 'failing'; code: string };

export interface UpstreamClient {
  /**
   * GET `path` (e.g. `/api/site/detail`) with `query`, authenticated with the shared token.
   * Resolves with the envelope's `result` (possibly `undefined` or `null`) when `code` is 0,
   * whatever the HTTP status; rejects with an `UpstreamError` otherwise. Transient failures
   * (network, timeout, 5xx, a garbled 2xx) are retried with backoff; a path whose calls keep
   * failing has its circuit opened, and then fails fast. A token-timeout envelope or HTTP 401
   * invalidates the token, fetches a new one once and tries again once.
   */
  get(path: string, query?: UpstreamQuery, options?: UpstreamRequestOptions): Promise<unknown>;
  /**
   * The circuit state of every path called so far: `closed` (calls go through), `open` (calls
   * fail fast) or `half-open` (the cool-down is over; the next call, or the one in flight, is
   * the probe).
   */
  breakerStates(): Record<string, 'closed' | 'open' | 'half-open'>;
  /** The token manager the client uses (readiness reads its state). */
  readonly tokens: TokenManager;
  close(): Promise<void>;
}
