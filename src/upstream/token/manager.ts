import { Pool, type Dispatcher } from 'undici';
import type { Clock } from '../../base/clock.js';
import type { Logger } from '../../base/logger.js';
import type { TokenManager, TokenState } from '../contracts.js';
import { UpstreamError, redactSecrets } from '../errors.js';
import { observed, type TokenObserver } from '../http/observer.js';
import { parseTokenAnswer } from './answer.js';
import { credentialForms, tokenRequestBody, tokenRequestHeaders } from './request.js';
import type { StoredToken, TokenStore } from './store.js';
import type { UpstreamSpan, UpstreamTracer } from '../http/tracer.js';
import { send } from '../http/transport.js';

export interface TokenManagerOptions {
  /** The token endpoint, e.g. `https://auth.example.com/oauth/token`. Required. */
  tokenUrl: string;
  /** OAuth client id. Required. */
  clientId: string;
  /** OAuth client secret. Required; never logged, never part of an error. */
  clientSecret: string;
  /** Sent as the `scope` form field when set. Default: no scope. */
  scope?: string;
  /**
   * How the client authenticates: `'basic'` sends `Authorization: Basic` with the form-urlencoded
   * id and secret (RFC 6749 §2.3.1); `'post'` sends `client_id` and `client_secret` in the body.
   */
  clientAuth: 'basic' | 'post';
  /**
   * Bounds connect, headers and body of each token request together, in milliseconds, so a
   * hanging token endpoint costs each waiting caller at most this long. Required.
   */
  timeoutMs: number;
  /**
   * After a failed token request (endpoint down, hanging, garbled, or credentials refused; or
   * its token refused by the upstream right after a refused one, see `TokenManager.invalidate`),
   * `getToken` fails at once with that failure's code, making no request, for this many ms; each
   * further failure in a row doubles the pause up to `maxFailureBackoffMs`. Then the next
   * `getToken` makes one request (shared by concurrent callers); a success ends the backoff.
   * Keeps a down token endpoint or wrong credentials from causing a request storm. 0 turns the
   * backoff off. Measured on the clock's wall face. Default: 1000 ms.
   */
  failureBackoffMs?: number;
  /** The backoff after failed token requests never grows beyond this, in ms. Default: 30 000 ms. */
  maxFailureBackoffMs?: number;
  /**
   * A token counts as used up this many milliseconds before `expires_in` runs out: from then on
   * it is still handed out while one background request replaces it, so it is replaced before
   * the upstream would reject it, and a failing token endpoint costs nothing until the token
   * really expires. Never more than 10 % of the token's lifetime (a 2 s token is refreshed
   * 200 ms early). Default: 30 000 ms. Has no effect when the answer carries no `expires_in`:
   * such a token is kept until `invalidate`.
   */
  refreshSkewMs?: number;
  /** The clock (base/clock.ts): lifetimes and backoff on its wall face (a store's tokens carry those times). */
  clock: Clock;
  /**
   * Where replicas share the token (Redis). With one, a refresh first takes a token another
   * replica stored, and a token request happens under the store's lock, so the fleet makes one;
   * a refused token is removed from the store too. A token in memory is still used without
   * asking the store, and the guarantees above (single flight, proactive refresh, backoff) hold
   * per process; while backing off, only a stored token is taken. Default: none (this process alone).
   */
  store?: TokenStore;
  /** Dispatcher for token requests. Default: an own keep-alive undici `Pool`, closed by `close()`. */
  dispatcher?: Dispatcher;
  /** Receives token fetches and failures (never the token or the secret). Default: silent. */
  logger?: Logger;
  /** Told of every token request and its outcome (metrics); never of the token. Default: none. */
  observer?: TokenObserver;
  /** Opens a client span per token request (its path, status, outcome; never the token or the secret). Default: none. */
  tracer?: UpstreamTracer;
}

const DEFAULT_REFRESH_SKEW_MS = 30_000;
const DEFAULT_FAILURE_BACKOFF_MS = 1000;
const DEFAULT_MAX_FAILURE_BACKOFF_MS = 30_000;
const MAX_SKEW_SHARE = 0.1;
const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;
/** Characters of the token endpoint's (redacted) `msg` written to the log. */
const MAX_LOGGED_MSG = 200;

/** The last token request failed: no new one before `retryAt` (clock time, ms). */
interface LastFailure {
  error: UpstreamError;
  retryAt: number;
}

/**
 * The one upstream token for the whole gateway (OAuth 2.0 client_credentials).
 *
 * Concurrent `getToken()` calls while no valid token exists share one token request, and so do
 * their failures. After a failure, calls fail fast until a backoff has passed (1 s, doubling up
 * to 30 s by default); then the next call tries once more, and one success ends the backoff.
 * An upstream that refuses every token it is given counts as failing too: the pauses grow
 * until a token is `accepted`, so it costs a few token requests a minute, not one per call.
 * Nothing runs while idle: expiry and backoff are checked when a token is asked for, not by a
 * timer. With a `store`, replicas share the token and its refreshes (see the option).
 *
 * @example
 * const tokens = createTokenManager({ tokenUrl, clientId, clientSecret, clientAuth: 'basic', timeoutMs: 5000, clock: systemClock });
 * const token = await tokens.getToken();
 */
export function createTokenManager(options: TokenManagerOptions): TokenManager {
  const url = new URL(options.tokenUrl);
  const { clock } = options;
  const ownDispatcher = options.dispatcher === undefined
    ? new Pool(url.origin, { connections: 2, connect: { timeout: options.timeoutMs } })
    : undefined;
  const dispatcher = options.dispatcher ?? (ownDispatcher as Dispatcher);
  const secretForms = credentialForms(options);
  let current: StoredToken | undefined;
  let inFlight: Promise<string> | undefined;
  let lastFailure: LastFailure | undefined;
  let failuresInRow = 0;
  // Tokens in a row the upstream refused before accepting any (see `refuse`).
  let unprovenRefusals = 0;
  let tokenRequests = 0;
  let closing: Promise<void> | undefined;
  const { store } = options;
  // The last token the upstream refused: never taken back from the store.
  let rejected: string | undefined;
  // The last token obtained, expired or not: redacted from what the token endpoint writes back.
  let last: string | undefined;

  const { tracer } = options;
  const attributes = { 'http.request.method': 'POST', 'url.path': url.pathname, 'server.address': url.hostname };
  const requestToken = tracer === undefined ? () => fetchToken(undefined)
    : () => tracer.clientSpan('POST token', attributes, (span) => fetchToken(span));

  async function fetchToken(span: UpstreamSpan | undefined): Promise<StoredToken> {
    tokenRequests += 1;
    const startedAt = clock.wall();
    try {
      const response = await send({
        dispatcher,
        origin: url.origin,
        target: url.pathname + url.search,
        path: url.pathname,
        method: 'POST',
        headers: { ...tokenRequestHeaders(options), ...span?.propagationHeaders() },
        body: tokenRequestBody(options),
        timeoutMs: options.timeoutMs,
        maxBodyBytes: MAX_TOKEN_ANSWER_BYTES,
      });
      span?.setAttributes({ 'http.response.status_code': response.status, 'http.response.body.size': response.bytes });
      const answer = parseTokenAnswer(response, url.pathname, secretsNow());
      // Counted from when the request was sent, so the upstream's clock is never behind ours.
      const lifetimeMs = answer.expiresInS === undefined ? undefined : answer.expiresInS * 1000;
      options.logger?.info({ expiresInS: answer.expiresInS, tokenRequests }, 'fetched an upstream token');
      return {
        value: answer.accessToken,
        usedUpAt: usedUpAt(startedAt, lifetimeMs, options.refreshSkewMs),
        expiresAt: lifetimeMs === undefined ? undefined : startedAt + lifetimeMs,
      };
    } catch (error) {
      const backoffMs = backOff(error as UpstreamError);
      const { code, status, upstreamCode, upstreamMsg } = error as UpstreamError;
      options.logger?.warn({ code, status, upstreamCode, upstreamMsg: upstreamMsg?.slice(0, MAX_LOGGED_MSG), tokenRequests, backoffMs }, 'token request failed');
      throw error;
    }
  }

  // The secret's forms and the tokens known here (the last obtained, the last refused), longest first.
  function secretsNow(): string[] {
    const tokens = [last, rejected].filter((token): token is string => token !== undefined && token !== '');
    return [...secretForms, ...tokens].sort((a, b) => b.length - a.length);
  }

  // Starts (or lengthens) the backoff after a failure; returns its length in ms.
  function backOff(error: UpstreamError): number {
    const backoffMs = failureBackoff(options, failuresInRow);
    failuresInRow += 1;
    lastFailure = { error, retryAt: clock.wall() + backoffMs };
    return backoffMs;
  }

  // A token obtained (requested here or taken from the store) ends the backoff's pause, but
  // while the upstream refuses every new token it does not shorten the next pause: only a token
  // the upstream accepted proves that token requests are worth making again.
  function settle(token: StoredToken): string {
    current = token;
    last = token.value;
    lastFailure = undefined;
    if (unprovenRefusals === 0) failuresInRow = 0;
    return token.value;
  }

  // The second token in a row refused without any accepted in between: the token endpoint
  // issues tokens the API will not take (wrong audience, clock skew, a broken upstream), which
  // no new request fixes. It counts as a failed token request: the backoff starts or grows, and
  // `getToken` fails fast with `UPSTREAM_AUTH_FAILED` meanwhile (`state()` says so). A single
  // refusal is the ordinary expiry of a token and costs one new request at once.
  function refuse(): void {
    unprovenRefusals += 1;
    if (unprovenRefusals < 2) return;
    const error = new UpstreamError('UPSTREAM_AUTH_FAILED', 'the upstream refused a freshly issued token', { path: url.pathname });
    const backoffMs = backOff(error);
    options.logger?.warn({ code: error.code, refusedInRow: unprovenRefusals, tokenRequests, backoffMs }, 'upstream refused a fresh token; backing off');
  }

  // One token request at a time, none while backing off after a failure (though a token another
  // replica stored is taken then); with a store, one request for the whole fleet.
  function refresh(): Promise<string> {
    if (inFlight !== undefined) return inFlight;
    const failure = lastFailure !== undefined && clock.wall() < lastFailure.retryAt ? lastFailure : undefined;
    if (failure !== undefined && store === undefined) return Promise.reject(backingOff(failure, clock.wall()));
    const tell = (outcome: string, durationMs: number) => options.observer?.onTokenRequest?.({ outcome, durationMs });
    const request = () => observed(clock, requestToken, () => 'ok', tell);
    const obtained = store === undefined ? request()
      : failure === undefined ? store.refresh(request, rejected)
        : store.current(rejected).then((token) => token ?? Promise.reject(backingOff(failure, clock.wall())));
    inFlight = obtained.then(settle).finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  }

  return {
    getToken() {
      const at = clock.wall();
      if (current !== undefined && (current.usedUpAt === undefined || at < current.usedUpAt)) {
        return Promise.resolve(current.value);
      }
      // Used up but not expired: refresh in the background and keep serving the current token,
      // so a slow or failing token endpoint costs callers nothing until the token really ends.
      if (current?.expiresAt !== undefined && at < current.expiresAt) {
        refresh().catch(() => {}); // failures are logged and backed off in fetchToken
        return Promise.resolve(current.value);
      }
      current = undefined;
      return refresh();
    },
    invalidate(token) {
      if (rejected === token) return; // 50 callers refused with one token: one removal, one refusal
      rejected = token;
      if (current?.value === token) {
        current = undefined;
        refuse();
      }
      store?.invalidate(token);
    },
    accepted(token) {
      if (unprovenRefusals === 0 || token === rejected) return;
      options.logger?.info({ refusedInRow: unprovenRefusals }, 'upstream accepts tokens again');
      unprovenRefusals = 0;
      failuresInRow = 0;
    },
    get tokenRequests() {
      return tokenRequests;
    },
    redact: (text) => redactSecrets(text, secretsNow()),
    state(): TokenState {
      if (lastFailure !== undefined) return { token: 'failing', code: lastFailure.error.code };
      const at = clock.wall();
      if (current !== undefined && (current.expiresAt === undefined || at < current.expiresAt)) return { token: 'ok' };
      return { token: inFlight === undefined ? 'none' : 'pending' };
    },
    close() {
      current = undefined;
      closing ??= ownDispatcher?.close() ?? Promise.resolve();
      return closing;
    },
  };
}

// Private: the clock time from which a token counts as used up.
function usedUpAt(startedAt: number, lifetimeMs: number | undefined, refreshSkewMs = DEFAULT_REFRESH_SKEW_MS): number | undefined {
  if (lifetimeMs === undefined) return undefined;
  return startedAt + lifetimeMs - Math.min(refreshSkewMs, lifetimeMs * MAX_SKEW_SHARE);
}

// Private: the pause after the `failuresInRow + 1`-th failure in a row.
function failureBackoff(options: TokenManagerOptions, failuresInRow: number): number {
  const base = options.failureBackoffMs ?? DEFAULT_FAILURE_BACKOFF_MS;
  const max = options.maxFailureBackoffMs ?? DEFAULT_MAX_FAILURE_BACKOFF_MS;
  return Math.min(max, base * 2 ** failuresInRow);
}

// Private: the fast failure while backing off: the last failure's code and details, and a
// message that says no request was made.
function backingOff(last: LastFailure, nowMs: number): UpstreamError {
  const { error } = last;
  const waitMs = Math.ceil(last.retryAt - nowMs);
  return new UpstreamError(error.code, `${error.message} (no new token request for another ${waitMs} ms)`, {
    path: error.path, status: error.status, upstreamCode: error.upstreamCode, upstreamMsg: error.upstreamMsg,
    transient: error.transient, cause: error,
  });
}
