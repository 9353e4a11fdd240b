import { Pool, type Dispatcher } from 'undici';
import type { Clock } from '../../base/clock.js';
import type { Logger } from '../../base/logger.js';
import type { TokenManager, TokenState } from '../contracts.js';
import { UpstreamError, redactSecrets } from '../errors.js';
import { tokenFailureLog } from '../explain.js';
import { observed, type TokenObserver } from '../http/observer.js';
import { parseTokenAnswer } from './grant.js';
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
  /** `'basic'`: `Authorization: Basic` (RFC 6749 §2.3.1); `'post'`: id and secret in the body. */
  clientAuth: 'basic' | 'post';
  /** Bound on each whole token request (connect, headers, body), in ms. Required. */
  timeoutMs: number;
  /**
   * After a failed token request, `getToken` fails fast with its code for this long, in ms,
   * doubling per failure in a row up to `maxFailureBackoffMs`, so a down endpoint or wrong
   * credentials cause no request storm. 0 turns it off. Default: 1000 ms.
   */
  failureBackoffMs?: number;
  /** The backoff after failed token requests never grows beyond this, in ms. Default: 30 000 ms. */
  maxFailureBackoffMs?: number;
  /**
   * How long before `expires_in` runs out a token is refreshed in the background while still
   * served, in ms; at most 10 % of its lifetime. Default: 30 000 ms.
   */
  refreshSkewMs?: number;
  /** Lifetimes and backoff on its wall face, which a store's tokens share. */
  clock: Clock;
  /** Where replicas share the token, so the fleet makes one request per refresh. Default: none. */
  store?: TokenStore;
  /** Dispatcher for token requests. Default: an own keep-alive undici `Pool`, closed by `close()`. */
  dispatcher?: Dispatcher;
  /** Receives token fetches and failures, never the token or secret. Default: silent. */
  logger?: Logger;
  /** Told of every token request and its outcome. Default: none. */
  observer?: TokenObserver;
  /** Opens a client span per token request. Default: none. */
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
 * The one upstream token for the gateway (OAuth 2.0 client_credentials). Concurrent callers share
 * one token request and its failure; failures back off. An upstream that refuses every fresh
 * token counts as failing until one is `accepted`. No timer runs while idle.
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
  let unprovenRefusals = 0;
  let tokenRequests = 0;
  let closing: Promise<void> | undefined;
  const { store } = options;
  // The last token the upstream refused: never taken back from the store.
  let rejected: string | undefined;
  // The last token obtained: redacted from what the token endpoint writes back.
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
      const { fields, line } = tokenFailureLog(error as UpstreamError, url.host);
      options.logger?.warn({ ...fields, code, status, upstreamCode, upstreamMsg: upstreamMsg?.slice(0, MAX_LOGGED_MSG), tokenRequests, backoffMs }, line);
      throw error;
    }
  }

  // Private: the secret's forms and the known tokens, longest first.
  function secretsNow(): string[] {
    const tokens = [last, rejected].filter((token): token is string => token !== undefined && token !== '');
    return [...secretForms, ...tokens].sort((a, b) => b.length - a.length);
  }

  function backOff(error: UpstreamError): number {
    const backoffMs = failureBackoff(options, failuresInRow);
    failuresInRow += 1;
    lastFailure = { error, retryAt: clock.wall() + backoffMs };
    return backoffMs;
  }

  // A token obtained ends the pause, but only one the upstream accepted resets its length.
  function settle(token: StoredToken): string {
    current = token;
    last = token.value;
    lastFailure = undefined;
    if (unprovenRefusals === 0) failuresInRow = 0;
    return token.value;
  }

  // One refusal is an ordinary expiry; a second in a row means the endpoint issues tokens the API
  // will not take, which no new request fixes: it counts as a failed token request.
  function refuse(): void {
    unprovenRefusals += 1;
    if (unprovenRefusals < 2) return;
    const error = new UpstreamError('UPSTREAM_AUTH_FAILED', 'the upstream refused a freshly issued token', { path: url.pathname });
    const backoffMs = backOff(error);
    options.logger?.warn({ code: error.code, refusedInRow: unprovenRefusals, tokenRequests, backoffMs }, 'upstream refused a fresh token; backing off');
  }

  // One token request at a time, none while backing off (a stored token is taken then).
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
      // Used up but not expired: refreshed in the background while still served.
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

// Private: the fast failure while backing off, saying no request was made.
function backingOff(last: LastFailure, nowMs: number): UpstreamError {
  const { error } = last;
  const waitMs = Math.ceil(last.retryAt - nowMs);
  return new UpstreamError(error.code, `${error.message} (no new token request for another ${waitMs} ms)`, {
    path: error.path, status: error.status, upstreamCode: error.upstreamCode, upstreamMsg: error.upstreamMsg,
    transient: error.transient, cause: error,
  });
}
