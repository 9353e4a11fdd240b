import { Pool, type Dispatcher } from 'undici';
import { createBulkhead } from '../resilience/bulkhead.js';
import { createCircuitBreakers, type BreakerPass, type BreakerState, type Verdict } from '../resilience/circuit-breaker.js';
import { resolveClientOptions, type ClientSettings, type UpstreamClientOptions } from './options.js';
import type { UpstreamClient, UpstreamQuery } from '../contracts.js';
import { type Envelope, isTokenTimeout, parseEnvelope, parseJson } from '../envelope.js';
import { UpstreamError, isUpstreamError, redactSecrets } from '../errors.js';
import { observed, outcomeOf } from './observer.js';
import { withRetries } from '../resilience/retry.js';
import type { UpstreamSpan } from './tracer.js';
import { abortable, send } from './transport.js';

export type { UpstreamClientOptions } from './options.js';

/** One call to `get`, as its attempts see it. */
interface Call {
  path: string;
  /** Path and query on the wire. */
  target: string;
  signal: AbortSignal | undefined;
  /** The call's client span, when tracing is on: each attempt carries its `traceparent`. */
  span?: UpstreamSpan;
  /** Attempts sent so far (retries and the retry after a token refresh included). */
  attempts: number;
}

/**
 * An answer that is not worth a retry: a success, or a failure to hand back (`tokenRejected`
 * asks for one more try with a fresh token). Transient failures are thrown instead.
 */
type Answer =
  | { ok: true; result: unknown }
  | { ok: false; tokenRejected: boolean; status: number; envelope: Envelope | undefined; error: UpstreamError };

/**
 * The upstream API over undici: GET only, the shared token in `Authorization: Bearer`, the
 * `{code, msg, result}` envelope unwrapped. Every failure is an `UpstreamError`:
 *
 * - `UPSTREAM_ERROR`: an envelope with a code other than 0, at any HTTP status.
 * - `UPSTREAM_UNAVAILABLE`: network error, timeout, caller abort, an answer without an envelope
 *   (5xx, 4xx, non-JSON, no numeric `code`), a body over `maxBodyBytes`, an open circuit, a full
 *   queue.
 * - `UPSTREAM_AUTH_FAILED`: from the token manager; or a second HTTP 401 without an envelope,
 *   i.e. the API refuses a token just issued, which no retry will fix.
 *
 * The road of one call, outermost first:
 *
 * 1. token: the shared token (the token manager has its own single flight and backoff; token
 *    requests never wait in the bulkhead nor count for a circuit).
 * 2. retries: a transient failure (`UpstreamError.transient`: network error, timeout, HTTP 5xx
 *    or a 2xx that is not an envelope) is retried up to `retries` times after a full-jitter
 *    backoff. Nothing else is retried, and nothing once the caller's signal aborted.
 * 3. circuit breaker of the path: each attempt asks it first; an open circuit fails the attempt
 *    at once, which also ends the retries. Only transient failures count against it.
 * 4. bulkhead: the attempt waits for one of `maxConcurrency` slots, in a queue of `maxQueue`.
 * 5. the HTTP exchange, bounded by `timeoutMs`.
 *
 * A token-timeout envelope (code 500, "token is timeout. please retry.") or HTTP 401 invalidates
 * the token used (only if still current, so 50 callers failing together cause one refresh),
 * gets a token once more and runs steps 2–5 once more. The second failure is returned as is: an
 * envelope as `UPSTREAM_ERROR` with its code (500 for a token timeout, 401 for the mock's
 * "invalid token"), a bare 401 as `UPSTREAM_AUTH_FAILED`. The refused fresh token is invalidated
 * too, and the token manager backs off from such refusals as from failed token requests (see
 * `TokenManager.invalidate`); every answer tells it which token the upstream accepted.
 *
 * @example
 * const client = createUpstreamClient({ baseUrl, timeoutMs: 5000, tokens, clock: systemClock });
 * const page = await client.get('/api/city/list', { page: 1, pageSize: 50 }, { signal });
 */
export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const settings = resolveClientOptions(options);
  const base = new URL(settings.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const { tokens, logger, observer, tracer, clock } = settings;
  const ownDispatcher = settings.dispatcher === undefined
    ? new Pool(base.origin, { connections: settings.connections, connect: { timeout: settings.timeoutMs } })
    : undefined;
  const dispatcher = settings.dispatcher ?? (ownDispatcher as Dispatcher);
  const breakers = createCircuitBreakers({ ...settings.breaker, onStateChange: (path, state) => logCircuit(settings, path, state) });
  const bulkhead = createBulkhead(settings.bulkhead);
  let closing: Promise<void> | undefined;

  async function exchange(call: Call, token: string): Promise<Answer> {
    const startedAt = clock.monotonic();
    const { status, text, bytes } = await send({
      dispatcher,
      origin: base.origin,
      target: call.target,
      path: call.path,
      method: 'GET',
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...call.span?.propagationHeaders() },
      timeoutMs: settings.timeoutMs,
      maxBodyBytes: settings.maxBodyBytes,
      signal: call.signal,
    });
    logger?.debug({ path: call.path, status, ms: Math.round(clock.monotonic() - startedAt) }, 'upstream call');
    call.span?.setAttributes({ 'http.response.status_code': status, 'http.response.body.size': bytes });
    const envelope = parseEnvelope(parseJson(text));
    if (envelope?.code === 0) return { ok: true, result: envelope.result };
    const error = failure(call.path, status, envelope, (text) => scrub(text, token));
    if (error.transient) throw error;
    const tokenRejected = status === 401 || (envelope !== undefined && isTokenTimeout(envelope));
    return { ok: false, tokenRejected, status, envelope, error };
  }

  // Private: `text` without the token used nor, in any form, the client secret.
  function scrub(text: string, token: string): string {
    const scrubbed = redactSecrets(text, [token]);
    return tokens.redact?.(scrubbed) ?? scrubbed;
  }

  // Private: one attempt through the path's circuit breaker and the bulkhead. The outcome is
  // settled inside the slot, before the slot passes to the next queued call (whose recheck must
  // see it), and again outside for calls that never got a slot (a pass takes the first verdict).
  // The observer hears of every attempt: from inside the slot once it is sent, else as refused.
  function guardedExchange(call: Call, token: string): Promise<Answer> {
    let sent = false;
    const refused = (error: unknown): never => {
      if (!sent) observer?.onAttemptEnd?.({ path: call.path, outcome: outcomeOf(error), durationMs: 0, sent: false });
      throw error;
    };
    let pass: BreakerPass;
    try {
      pass = breakers.enter(call.path);
    } catch (error) {
      return refused(error);
    }
    const inSlot = (): Promise<Answer> => settling(pass, call.signal, () => {
      pass.recheck();
      sent = true;
      call.attempts += 1;
      call.span?.setAttributes({ 'upstream.attempts': call.attempts });
      observer?.onAttemptStart?.(call.path);
      return observed(clock, () => exchange(call, token), (answer) => (answer.ok ? 'ok' : outcomeOf(answer.error)),
        (outcome, durationMs) => observer?.onAttemptEnd?.({ path: call.path, outcome, durationMs, sent: true }));
    });
    return settling(pass, call.signal, () => bulkhead.run(inSlot, call.signal, call.path)).catch(refused);
  }

  function exchangeWithRetries(call: Call, token: string): Promise<Answer> {
    return withRetries(() => guardedExchange(call, token), {
      policy: settings.retry,
      signal: call.signal,
      path: call.path,
      isRetryable: (error) => isUpstreamError(error) && error.transient,
      onRetry: (error, retry, delayMs) => {
        const { code, status } = error as UpstreamError;
        const outcome = outcomeOf(error);
        logger?.warn({ path: call.path, code, status, outcome, retry, delayMs: Math.round(delayMs) }, 'upstream call failed; retrying');
        call.span?.addEvent('retry', { 'upstream.retry': retry, 'upstream.outcome': outcome, 'upstream.retry_delay_ms': Math.round(delayMs) });
      },
    });
  }

  async function get(path: string, query?: UpstreamQuery, requestOptions: { signal?: AbortSignal } = {}): Promise<unknown> {
    const call: Call = { path, target: prefix + checkPath(path) + queryString(query), signal: requestOptions.signal, attempts: 0 };
    if (tracer === undefined) return getCall(call);
    return tracer.clientSpan(`GET ${path}`, { 'http.request.method': 'GET', 'url.path': prefix + path, 'server.address': base.hostname, 'upstream.path': path },
      (span) => {
        call.span = span;
        return getCall(call).then((result) => {
          span.setAttributes({ 'upstream.outcome': 'ok' });
          return result;
        }, (error: unknown) => {
          span.setAttributes({ 'upstream.outcome': outcomeOf(error) });
          throw error;
        });
      });
  }

  async function getCall(call: Call): Promise<unknown> {
    const { path } = call;
    try {
      const token = await abortable(() => tokens.getToken(), call.signal, path);
      const first = await exchangeWithRetries(call, token);
      if (first.ok) return accepted(token, first.result);
      if (!first.tokenRejected) throw first.error;

      logger?.warn({ path, status: first.status, upstreamCode: first.envelope?.code }, 'upstream rejected the token; refreshing it and retrying once');
      tokens.invalidate(token);
      const freshToken = await abortable(() => tokens.getToken(), call.signal, path);
      const second = await exchangeWithRetries(call, freshToken);
      if (second.ok) return accepted(freshToken, second.result);
      // Refused too: the token manager counts a fresh token refused as a failed token request.
      if (second.tokenRejected) tokens.invalidate(freshToken);
      if (second.status === 401 && second.envelope === undefined) {
        throw new UpstreamError('UPSTREAM_AUTH_FAILED', `upstream refused a freshly issued token for ${path} (HTTP 401)`, { path, status: 401 });
      }
      throw second.error;
    } catch (error) {
      // One warning per call that failed for good (each retried attempt has its own line above);
      // a caller that gave up is no news about the upstream.
      const { code, status, upstreamCode, upstreamMsg } = error as UpstreamError;
      const outcome = outcomeOf(error);
      // The upstream's own words (redacted) are for this line: clients get only the codes.
      const msg = upstreamMsg?.slice(0, MAX_LOGGED_MSG);
      logger?.[outcome === 'aborted' ? 'debug' : 'warn']({ path, code, status, upstreamCode, upstreamMsg: msg, outcome }, 'upstream call failed');
      throw error;
    }
  }

  // Tells the token manager that the upstream took `token` (which ends a row of refusals).
  function accepted(token: string, result: unknown): unknown {
    tokens.accepted?.(token);
    return result;
  }

  return {
    get,
    tokens,
    breakerStates: () => breakers.states(),
    /** Closes the own pool (idempotent); a passed-in dispatcher and the token manager stay open. */
    close() {
      closing ??= ownDispatcher?.close() ?? Promise.resolve();
      return closing;
    },
  };
}

/** Characters of the upstream's (redacted) `msg` written to the log. */
const MAX_LOGGED_MSG = 200;

// Private: the error for an answer that is not a success; `redact` scrubs the token used and the
// client secret, in every form, from `msg`, in case the upstream echoes them. An answer without an envelope is transient with HTTP 2xx (a
// garbled or truncated body) or 5xx (an overloaded proxy), not with a 3xx or 4xx, which a retry
// would only repeat.
function failure(path: string, status: number, envelope: Envelope | undefined, redact: (text: string) => string): UpstreamError {
  if (envelope === undefined) {
    const transient = status >= 500 || (status >= 200 && status < 300);
    return new UpstreamError('UPSTREAM_UNAVAILABLE', `GET ${path} answered HTTP ${status} without an envelope`, { path, status, transient });
  }
  const upstreamMsg = redact(envelope.msg);
  return new UpstreamError('UPSTREAM_ERROR', `GET ${path} failed with upstream code ${envelope.code}: ${upstreamMsg}`,
    { path, status, upstreamCode: envelope.code, upstreamMsg });
}

// Private: runs `run` and tells `pass` how it went.
async function settling<T>(pass: BreakerPass, signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
  try {
    const value = await run();
    pass.settle('success');
    return value;
  } catch (error) {
    pass.settle(verdictOn(error, signal));
    throw error;
  }
}

// Private: what a failed attempt says about the upstream's health, for the path's breaker.
function verdictOn(error: unknown, signal: AbortSignal | undefined): Verdict {
  if (signal?.aborted) return 'ignore'; // the caller left: no news about the upstream
  if (isUpstreamError(error) && error.transient) return 'failure';
  // An answer, just not a useful one (a body over the cap): the upstream is up. No status: the
  // gateway refused the attempt itself (open circuit, full queue): no news either.
  return isUpstreamError(error) && error.status !== undefined ? 'success' : 'ignore';
}

function logCircuit(settings: ClientSettings, path: string, state: BreakerState): void {
  if (state === 'open') settings.logger?.warn({ path, cooldownMs: settings.breaker.cooldownMs }, 'upstream circuit opened');
  else settings.logger?.info({ path, state }, `upstream circuit ${state}`);
}

function checkPath(path: string): string {
  if (typeof path !== 'string' || !path.startsWith('/') || /[?#]/.test(path)) {
    throw new TypeError(`path must start with "/" and carry no query, but got: ${JSON.stringify(path)}`);
  }
  return path;
}

function queryString(query: UpstreamQuery | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) params.append(name, String(value));
  }
  const encoded = params.toString();
  return encoded === '' ? '' : `?${encoded}`;
}
