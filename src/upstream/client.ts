import { Pool, type Dispatcher } from 'undici';
import type { Logger } from '../logger.js';
import type { TokenManager, UpstreamClient, UpstreamQuery } from './contracts.js';
import { type Envelope, isTokenTimeout, parseEnvelope, parseJson } from './envelope.js';
import { UpstreamError, redactSecrets } from './errors.js';
import { abortable, send } from './transport.js';

export interface UpstreamClientOptions {
  /** The upstream's base address, e.g. `https://api.example.com` (a path prefix is kept). Required. */
  baseUrl: string;
  /**
   * Bounds connect, headers and body of each attempt together, in milliseconds. A call makes at
   * most two attempts and two token requests, so it settles within about 4 × `timeoutMs`.
   */
  timeoutMs: number;
  /** Supplies the bearer token; a token the upstream rejects is invalidated here. Required. */
  tokens: TokenManager;
  /** Dispatcher for API calls. Default: an own keep-alive undici `Pool` on `baseUrl`, closed by `close()`. */
  dispatcher?: Dispatcher;
  /** Receives retries and failures (never a token or a header). Default: silent. */
  logger?: Logger;
  /** A body longer than this many bytes fails with `UPSTREAM_UNAVAILABLE`. Default: 10 MiB. */
  maxBodyBytes?: number;
  /** Keep-alive connections of the own pool; ignored with `dispatcher`. Default: 32. */
  connections?: number;
}

const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
const DEFAULT_CONNECTIONS = 32;

/** One attempt's outcome; `tokenRejected` asks for one retry with a fresh token. */
type Attempt =
  | { ok: true; result: unknown }
  | { ok: false; tokenRejected: boolean; status: number; envelope: Envelope | undefined; error: UpstreamError };

/**
 * The upstream API over undici: GET only, the shared token in `Authorization: Bearer`, the
 * `{code, msg, result}` envelope unwrapped. Every failure is an `UpstreamError`:
 *
 * - `UPSTREAM_ERROR`: an envelope with a code other than 0, at any HTTP status.
 * - `UPSTREAM_UNAVAILABLE`: network error, timeout, caller abort, an answer without an envelope
 *   (5xx, 4xx, non-JSON, no numeric `code`), a body over `maxBodyBytes`.
 * - `UPSTREAM_AUTH_FAILED`: from the token manager; or a second HTTP 401 without an envelope,
 *   i.e. the API refuses a token just issued, which no retry will fix.
 *
 * A token-timeout envelope (code 500, "token is timeout. please retry.") or HTTP 401 invalidates
 * the token used (only if still current, so 50 callers failing together cause one refresh),
 * gets a token once more and retries exactly once. The second failure is returned as is: an
 * envelope as `UPSTREAM_ERROR` with its code (500 for a token timeout, 401 for the mock's
 * "invalid token"), a bare 401 as `UPSTREAM_AUTH_FAILED`.
 *
 * @example
 * const client = createUpstreamClient({ baseUrl, timeoutMs: 5000, tokens });
 * const page = await client.get('/api/city/list', { page: 1, pageSize: 50 });
 */
export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const { tokens, logger } = options;
  const ownDispatcher = options.dispatcher === undefined
    ? new Pool(base.origin, { connections: options.connections ?? DEFAULT_CONNECTIONS, connect: { timeout: options.timeoutMs } })
    : undefined;
  const dispatcher = options.dispatcher ?? (ownDispatcher as Dispatcher);
  let closing: Promise<void> | undefined;

  async function attempt(path: string, target: string, token: string, signal: AbortSignal | undefined): Promise<Attempt> {
    const startedAt = performance.now();
    const response = await send({
      dispatcher,
      origin: base.origin,
      target,
      path,
      method: 'GET',
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      timeoutMs: options.timeoutMs,
      maxBodyBytes,
      signal,
    });
    const { status } = response;
    logger?.debug({ path, status, ms: Math.round(performance.now() - startedAt) }, 'upstream call');
    const envelope = parseEnvelope(parseJson(response.text));
    if (envelope?.code === 0) return { ok: true, result: envelope.result };
    const tokenRejected = status === 401 || (envelope !== undefined && isTokenTimeout(envelope));
    return { ok: false, tokenRejected, status, envelope, error: failure(path, status, envelope, token) };
  }

  async function get(path: string, query?: UpstreamQuery, requestOptions: { signal?: AbortSignal } = {}): Promise<unknown> {
    const target = prefix + checkPath(path) + queryString(query);
    const { signal } = requestOptions;
    try {
      const token = await abortable(() => tokens.getToken(), signal, path);
      const first = await attempt(path, target, token, signal);
      if (first.ok) return first.result;
      if (!first.tokenRejected) throw first.error;

      logger?.warn({ path, status: first.status, upstreamCode: first.envelope?.code }, 'upstream rejected the token; refreshing it and retrying once');
      tokens.invalidate(token);
      const freshToken = await abortable(() => tokens.getToken(), signal, path);
      const second = await attempt(path, target, freshToken, signal);
      if (second.ok) return second.result;
      if (second.status === 401 && second.envelope === undefined) {
        throw new UpstreamError('UPSTREAM_AUTH_FAILED', `upstream refused a freshly issued token for ${path} (HTTP 401)`, { path, status: 401 });
      }
      throw second.error;
    } catch (error) {
      const { code, status, upstreamCode } = error as UpstreamError;
      logger?.debug({ path, code, status, upstreamCode }, 'upstream call failed');
      throw error;
    }
  }

  return {
    get,
    tokens,
    /** Closes the own pool (idempotent); a passed-in dispatcher and the token manager stay open. */
    close() {
      closing ??= ownDispatcher?.close() ?? Promise.resolve();
      return closing;
    },
  };
}

// Private: the error for an answer that is not a success; the token is scrubbed from `msg` in
// case the upstream echoes it.
function failure(path: string, status: number, envelope: Envelope | undefined, token: string): UpstreamError {
  if (envelope === undefined) {
    return new UpstreamError('UPSTREAM_UNAVAILABLE', `GET ${path} answered HTTP ${status} without an envelope`, { path, status });
  }
  const upstreamMsg = redactSecrets(envelope.msg, [token]);
  return new UpstreamError('UPSTREAM_ERROR', `GET ${path} failed with upstream code ${envelope.code}: ${upstreamMsg}`,
    { path, status, upstreamCode: envelope.code, upstreamMsg });
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
