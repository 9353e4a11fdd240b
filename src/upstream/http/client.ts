import { Pool, type Dispatcher } from 'undici';
import { createBulkhead } from '../resilience/bulkhead.js';
import { createCircuitBreakers, type BreakerPass, type BreakerState, type Verdict } from '../resilience/circuit-breaker.js';
import { resolveClientOptions, type ClientSettings, type UpstreamClientOptions } from './options.js';
import type { UpstreamClient, UpstreamQuery } from '../contracts.js';
import { type Envelope, isTokenTimeout, parseEnvelope, parseJson } from '../envelope.js';
import { UpstreamError, isUpstreamError, redactSecrets } from '../errors.js';
import { looksLikeHtml, whatToCheck } from '../explain.js';
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
  /** The call's client span, when tracing is on. */
  span?: UpstreamSpan;
  /** Attempts sent so far. */
  attempts: number;
}

/** An answer not worth a retry (transient failures are thrown); `tokenRejected` asks for a fresh token. */
type Answer =
  | { ok: true; result: unknown }
  | { ok: false; tokenRejected: boolean; status: number; envelope: Envelope | undefined; error: UpstreamError };

/**
 * The upstream API over undici: GET with the shared bearer token, the `{code, msg, result}`
 * envelope unwrapped, every failure an `UpstreamError`. A call's road, outermost first: token
 * (its own single flight and backoff) → retries of transient failures → the path's circuit
 * breaker → bulkhead → the HTTP exchange, bounded by `timeoutMs`. A token-timeout envelope or
 * HTTP 401 invalidates the token and runs the road once more with a fresh one; a second bare 401
 * is `UPSTREAM_AUTH_FAILED`.
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
    const error = failure(call.path, status, envelope, text, (answer) => scrub(answer, token));
    if (error.transient) throw error;
    const tokenRejected = status === 401 || (envelope !== undefined && isTokenTimeout(envelope));
    return { ok: false, tokenRejected, status, envelope, error };
  }

  // Private: `text` without the token used nor, in any form, the client secret.
  function scrub(text: string, token: string): string {
    const scrubbed = redactSecrets(text, [token]);
    return tokens.redact?.(scrubbed) ?? scrubbed;
  }

  // Private: one attempt through the breaker and the bulkhead. The verdict is settled inside the
  // slot, so the next queued call's recheck sees it, and outside for calls that never got one.
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
      if (second.tokenRejected) tokens.invalidate(freshToken);
      if (second.status === 401 && second.envelope === undefined) {
        throw new UpstreamError('UPSTREAM_AUTH_FAILED', `upstream refused a freshly issued token for ${path} (HTTP 401)`, { path, status: 401 });
      }
      throw second.error;
    } catch (error) {
      const { code, status, upstreamCode, upstreamMsg } = error as UpstreamError;
      const outcome = outcomeOf(error);
      const msg = upstreamMsg?.slice(0, MAX_LOGGED_MSG);
      // A token failure (its own path) was explained by the token manager.
      const check = isUpstreamError(error) && error.path === path && outcome !== 'aborted' ? whatToCheck(error, { host: base.host, setting: 'UPSTREAM_BASE_URL' }) : undefined;
      const line = check === undefined ? 'upstream call failed' : `upstream call failed: ${(error as UpstreamError).message}; ${check}`;
      logger?.[outcome === 'aborted' ? 'debug' : 'warn']({ path, code, status, upstreamCode, upstreamMsg: msg, outcome, check }, line);
      throw error;
    }
  }

  // Private: tells the token manager the upstream took `token`.
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

/** Characters of the upstream's redacted `msg` written to the log. */
const MAX_LOGGED_MSG = 200;

// Private: the error for an answer that is not a success. Without an envelope it is transient
// with a 2xx (a garbled body) or 5xx, not with a 3xx or 4xx, which a retry would only repeat.
function failure(path: string, status: number, envelope: Envelope | undefined, text: string, redact: (text: string) => string): UpstreamError {
  if (envelope === undefined) {
    const transient = status >= 500 || (status >= 200 && status < 300);
    const html = looksLikeHtml(text);
    const what = html ? 'with an HTML page, not JSON' : 'without an envelope';
    return new UpstreamError('UPSTREAM_UNAVAILABLE', `GET ${path} answered HTTP ${status} ${what}`, { path, status, transient, html });
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
  // A status (a body over the cap) means the upstream is up; none means the gateway refused itself.
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
